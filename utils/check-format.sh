#!/usr/bin/env bash
# Checks that the C++ (and C) sources follow .clang-format (LLVM style).
#
#   bash utils/check-format.sh          check; list the files that differ
#   bash utils/check-format.sh --fix    reformat those files in place
#   bash utils/check-format.sh FILE...  check (or --fix) only these files
#
# Checked: *.cpp, *.c and *.h under include/ lib/ tools/ unittests/, tracked or new
# (not ignored), so build/ and generated headers are never checked.
# CLANG_FORMAT=/path/to/clang-format picks another binary.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

fix=0
files=()
for a in "$@"; do
  case "$a" in
    --fix) fix=1 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) files+=("$a") ;;
  esac
done

CF="${CLANG_FORMAT:-clang-format}"
if ! command -v "$CF" >/dev/null; then
  echo "check-format: $CF not found (apt-get install clang-format, or bash utils/setup.sh)" >&2
  exit 1
fi

if ((${#files[@]} == 0)); then
  if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    list=$(git ls-files --cached --others --exclude-standard -- \
             include lib tools unittests | sort -u)
  else
    list=$(find include lib tools unittests -type f 2>/dev/null | sort)
  fi
  while IFS= read -r f; do
    [[ -n "$f" && -f "$f" ]] || continue          # skip deleted files
    case "$f" in
      *_generated.h|*.inc) continue ;;            # generated code
      *.cpp|*.c|*.h) files+=("$f") ;;
    esac
  done <<<"$list"
fi

if ((${#files[@]} == 0)); then
  echo "check-format: no C++ files to check"
  exit 0
fi

if ((fix)); then
  "$CF" -i --style=file "${files[@]}"
  echo "check-format: reformatted ${#files[@]} files in place with $("$CF" --version)"
  exit 0
fi

bad=()
for f in "${files[@]}"; do
  if ! "$CF" --dry-run -Werror --style=file "$f" >/dev/null 2>&1; then
    bad+=("$f")
  fi
done

if ((${#bad[@]})); then
  echo "check-format: ${#bad[@]} of ${#files[@]} files are not clang-format clean ($("$CF" --version | sed 's/.*version/version/')):"
  printf '  %s\n' "${bad[@]}"
  echo "check-format: see the diff with: $CF --style=file FILE | diff FILE -"
  echo "check-format: fix with: bash utils/check-format.sh --fix ${bad[*]}"
  exit 1
fi
echo "check-format: ${#files[@]} files clean"
