#!/usr/bin/env bash
# Tests utils/setup.sh's install branch as a fresh machine runs it, without
# needing one: stand-ins for dpkg-query, apt-get, apt-cache and cmake go first
# on PATH. They report what a fresh Debian 12 machine reports (nothing
# installed; apt offers every package), write their output line by line as the
# real tools do, and record what they are asked.
#
#   bash utils/test-setup.sh [SETUP_SH]     (default: utils/setup.sh)
#
# Cases:
#   fresh     nothing installed, every package offered: setup updates apt,
#             installs every package in one apt-get install, then configures
#   absent    nothing installed, libmlir-22-dev offered by no source: setup
#             stops with a message naming it, installs nothing, configures
#             nothing
#   installed every package installed: no apt-get at all, then configures
#   lint      no script that CI or the README runs pipes into a reader that
#             stops early (grep -q, grep -m, head) under pipefail, or tees to
#             /dev/stderr (which truncates a log file)
# Prints "N passed, N failed" last; exits non-zero on any failure.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SETUP="$(realpath "${1:-$ROOT/utils/setup.sh}")"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

passed=0
failed=0
ok() { echo "  ok: $*"; }
bad() { echo "  FAIL: $*"; BAD=1; }

# --- the stand-ins ---------------------------------------------------------------
# $STUB_STATE: "fresh" (nothing installed), "installed" (everything installed).
# $STUB_ABSENT: packages no apt source offers (Candidate: (none)).
# Each stand-in appends "tool args..." to $STUB_LOG.
STUBS="$WORK/bin"
mkdir -p "$STUBS"

cat >"$STUBS/dpkg-query" <<'EOF'
#!/usr/bin/env bash
echo "dpkg-query $*" >>"$STUB_LOG"
pkg="${*: -1}"
if [[ "$STUB_STATE" == installed ]]; then
  printf 'install ok installed'
  exit 0
fi
echo "dpkg-query: no packages found matching $pkg" >&2
exit 1
EOF

cat >"$STUBS/apt-get" <<'EOF'
#!/usr/bin/env bash
echo "apt-get $*" >>"$STUB_LOG"
case " $* " in
  *" update "*)
    echo "Get:1 http://deb.debian.org/debian bookworm InRelease [151 kB]"
    echo "Get:2 http://deb.debian.org/debian-security bookworm-security InRelease [34.8 kB]"
    echo "Reading package lists..."
    ;;
  *" install "*)
    echo "Reading package lists..."
    echo "Building dependency tree..."
    for a in "$@"; do
      [[ "$a" == -* || "$a" == install ]] && continue
      echo "Setting up $a (1.0) ..."
    done
    ;;
esac
exit 0
EOF

# The real apt-cache policy writes a version table after the Candidate line;
# this one writes it a line at a time after a pause, so a reader that quits at
# the Candidate line (grep -q) makes the writer's next line a SIGPIPE, every
# time.
cat >"$STUBS/apt-cache" <<'EOF'
#!/usr/bin/env bash
echo "apt-cache $*" >>"$STUB_LOG"
[[ "$1" == policy ]] || exit 0
shift
for pkg in "$@"; do
  echo "$pkg:"
  echo "  Installed: (none)"
  if [[ " ${STUB_ABSENT:-} " == *" $pkg "* ]]; then
    echo "  Candidate: (none)"
    echo "  Version table:"
    continue
  fi
  echo "  Candidate: 1:22.1.8-1~deb12u1"
  sleep 0.2
  echo "  Version table:"
  for i in $(seq 1 200); do
    echo "     1:22.1.$i-1~deb12u1 500"
    echo "        500 http://deb.debian.org/debian-security bookworm-security/main amd64 Packages"
  done
done
exit 0
EOF

cat >"$STUBS/cmake" <<'EOF'
#!/usr/bin/env bash
echo "cmake $*" >>"$STUB_LOG"
echo "-- Configuring done"
exit 0
EOF

# Root, so setup.sh calls apt-get directly (no sudo).
cat >"$STUBS/id" <<'EOF'
#!/usr/bin/env bash
[[ "$1" == -u ]] && { echo 0; exit 0; }
exec /usr/bin/id "$@"
EOF
chmod +x "$STUBS"/*

# The packages setup.sh asks for, read from its own list.
mapfile -t PACKAGES < <(sed -n '/^PACKAGES=(/,/^)/p' "$SETUP" | sed '1d;$d' | tr ' ' '\n' | sed '/^$/d')

# run_setup CASE STATE ABSENT: runs setup.sh with the stand-ins, in a copy of the
# tree's layout (setup.sh cds to its parent folder), with a fresh build folder.
run_setup() {
  local name=$1
  export STUB_STATE=$2 STUB_ABSENT=$3 STUB_LOG="$WORK/$name.calls"
  : >"$STUB_LOG"
  (cd "$ROOT" && PATH="$STUBS:$PATH" FUSION_BUILD_DIR="$WORK/$name-build" \
    bash "$SETUP" </dev/null >"$WORK/$name.out" 2>&1)
  echo $? >"$WORK/$name.rc"
}

report_case() {
  local name=$1
  if ((BAD)); then
    failed=$((failed + 1))
    echo "  --- setup.sh's output ($name) ---"
    sed 's/^/  | /' "$WORK/$name.out"
    echo "  --- calls ---"
    sed 's/^/  | /' "$WORK/$name.calls"
  else
    passed=$((passed + 1))
  fi
}

echo "test-setup: $SETUP (${#PACKAGES[@]} packages)"

# --- fresh: everything is installed, then configured -------------------------------
echo "case fresh: nothing installed, every package offered"
BAD=0
run_setup fresh fresh ""
rc=$(cat "$WORK/fresh.rc")
((rc == 0)) && ok "exit 0" || bad "exit status $rc"
grep -qx 'apt-get update -q' "$WORK/fresh.calls" && ok "apt-get update" || bad "no apt-get update"
install=$(grep '^apt-get .*install' "$WORK/fresh.calls" || true)
if [[ -z "$install" ]]; then
  bad "no apt-get install"
else
  ((BAD == 0)) && ok "one apt-get install"
  miss=()
  for p in "${PACKAGES[@]}"; do
    [[ " $install " == *" $p "* ]] || miss+=("$p")
  done
  ((${#miss[@]} == 0)) && ok "all ${#PACKAGES[@]} packages asked for" || bad "not asked for: ${miss[*]}"
  [[ "$install" == *" -y "* ]] && ok "non-interactive (-y)" || bad "apt-get install without -y"
fi
if grep -q "^cmake -S . -B $WORK/fresh-build -G Ninja" "$WORK/fresh.calls"; then
  ok "configured $WORK/fresh-build after installing"
  # The install comes before the configure.
  first_install=$(grep -m1 -n '^apt-get .*install' "$WORK/fresh.calls")
  first_cmake=$(grep -m1 -n '^cmake ' "$WORK/fresh.calls")
  first_install=${first_install%%:*} first_cmake=${first_cmake%%:*}
  ((first_install < first_cmake)) || bad "cmake ran before apt-get install"
else
  bad "cmake was not run to configure the build folder"
fi
report_case fresh

# --- absent: a clear message, nothing installed ------------------------------------
echo "case absent: libmlir-22-dev offered by no source"
BAD=0
run_setup absent fresh "libmlir-22-dev"
rc=$(cat "$WORK/absent.rc")
((rc != 0)) && ok "exit status $rc" || bad "exit 0 without LLVM/MLIR 22"
grep -q 'no apt source offers.*libmlir-22-dev' "$WORK/absent.out" && ok "the message names libmlir-22-dev" ||
  bad "no 'no apt source offers libmlir-22-dev' message"
grep -q '^apt-get .*install' "$WORK/absent.calls" && bad "apt-get install ran anyway" || ok "nothing installed"
grep -q '^cmake ' "$WORK/absent.calls" && bad "cmake ran anyway" || ok "nothing configured"
report_case absent

# --- installed: apt is not touched ---------------------------------------------------
echo "case installed: every package installed"
BAD=0
run_setup installed installed ""
rc=$(cat "$WORK/installed.rc")
((rc == 0)) && ok "exit 0" || bad "exit status $rc"
grep -q '^apt-get ' "$WORK/installed.calls" && bad "apt-get ran although everything is installed" || ok "no apt-get"
grep -q '^cmake -S . -B ' "$WORK/installed.calls" && ok "configured" || bad "cmake was not run"
report_case installed

# --- lint: no early readers under pipefail -----------------------------------------
# Note [No early readers under pipefail] in utils/setup.sh. Comment lines are
# skipped; a reader of a file (grep -q PATTERN FILE) is fine, only a pipe into
# one is not.
echo "case lint: no pipe into grep -q / grep -m / head in the scripts CI and the README run"
BAD=0
scripts=("$ROOT"/utils/*.sh "$ROOT"/.ci/run)
hits=$(grep -nE '\|[[:space:]]*(grep[[:space:]]+(-[a-zA-Z]*[qm]|--quiet|--max-count)|head([[:space:]]|$))' "${scripts[@]}" |
  grep -vE '^[^:]+:[0-9]+:[[:space:]]*#' || true)
# `tee /dev/stderr` reopens stderr: when it is a file (a CI log), that
# truncates it.
hits+=$(grep -nE 'tee[[:space:]]+(-a[[:space:]]+)?/dev/std(err|out)' "${scripts[@]}" |
  grep -vE '^[^:]+:[0-9]+:[[:space:]]*#' || true)
if [[ -n "$hits" ]]; then
  bad "early readers in a pipe, or a tee that reopens stderr:"
  echo "$hits" | sed 's/^/    /'
  failed=$((failed + 1))
else
  ok "none in ${#scripts[@]} scripts"
  passed=$((passed + 1))
fi

echo "test-setup: $passed passed, $failed failed"
((failed == 0))
