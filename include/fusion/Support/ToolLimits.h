//===- ToolLimits.h - what the tools do before they parse -------*- C++ -*-===//
// Input checks and a large stack for the tools that parse IR (fusion-opt,
// fusion-translate, fusion-interpret, fusion-run) and the fuzzers.
//===----------------------------------------------------------------------===//

#ifndef FUSION_SUPPORT_TOOLLIMITS_H
#define FUSION_SUPPORT_TOOLLIMITS_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/thread.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace mlir::fusion {

// Note [Tool limits]: MLIR's parser and a few walks of the compiler
// (reifying a result's size through a chain of element-wise ops, verifying
// nested regions) recurse, so absurd input used to overflow the stack: an
// attribute nested 20,000 brackets deep crashed the parser. Two limits keep
// every input to a diagnostic:
//  - brackets ( [ { < may nest at most kMaxNesting deep in the text; deeper
//    input is refused before parsing, with a diagnostic at the bracket that
//    crosses the limit. No IR the project or its users write nests more
//    than a few dozen deep.
//  - the tools do their work on a thread with a kToolStackBytes stack, so
//    long chains (tens of thousands of ops) that the recursive walks follow
//    stay far inside it. The stack is reserved, not committed: a small input
//    touches only what it needs.
inline constexpr unsigned kMaxNesting = 1000;
inline constexpr unsigned kToolStackBytes = 512u << 20;

namespace detail {
/// Moves `i` from the opening quote of a string literal to its closing
/// quote (or the end of `text`), past escaped characters.
inline void skipString(llvm::StringRef text, size_t &i) {
  for (++i; i < text.size() && text[i] != '"'; ++i)
    if (text[i] == '\\')
      ++i;
}
} // namespace detail

/// The offset of the first bracket in `text` that nests deeper than `limit`
/// (string literals and `//` comments skipped), or none.
inline std::optional<size_t>
findExcessiveNesting(llvm::StringRef text, unsigned limit = kMaxNesting) {
  unsigned depth = 0;
  for (size_t i = 0, e = text.size(); i < e; ++i) {
    char c = text[i];
    if (c == '"') {
      detail::skipString(text, i);
      continue;
    }
    if (c == '/' && i + 1 < e && text[i + 1] == '/') {
      while (i < e && text[i] != '\n')
        ++i;
      continue;
    }
    if (c == '(' || c == '[' || c == '{' || c == '<') {
      if (++depth > limit)
        return i;
    } else if ((c == ')' || c == ']' || c == '}' || c == '>') && depth > 0) {
      // `->` is an arrow, not a closing bracket.
      if (!(c == '>' && i > 0 && text[i - 1] == '-'))
        --depth;
    }
  }
  return std::nullopt;
}

// Note [Integer lists]: LLVM 22's parsers of linalg.transpose,
// linalg.broadcast and linalg.reduce read their `permutation = [...]` or
// `dimensions = [...]` through a helper of LinalgOps.cpp
// (parseDenseI64ArrayAttr) that stores what DenseI64ArrayAttr::parse returns
// in the op's attributes without looking at it. When the list does not parse
// (`[1, ?]`, `[1, 0`, a float, a character the lexer does not know, a value
// outside int64, no `[` at all), the parser prints its error, then
// NamedAttrList::set dereferences the null attribute: SIGSEGV, before any
// code of ours runs (found by the compile fuzz target, docs/fuzzing.md; the
// one line `linalg.transpose permutation=[?` is enough). So the tools refuse
// such a list before parsing, with a diagnostic at the first character that
// does not fit:
//  - what is checked: a bare word `permutation` or `dimensions` followed by
//    `=`, unless the token before the word is `{`, `,`, `<` or `(`. After
//    those it is a key of an attribute dictionary (`{permutation = ...}`,
//    `<{dimensions = array<i64: 0>}>`) or of a dialect attribute's
//    parameters, which the generic attribute parser reads and reports
//    properly, and which may hold any attribute. The linalg parsers read
//    the word after `)` (their `outs(...)`), `}`, `>` or the op's name.
//  - what is taken: `[`, integers separated by commas, `]`, as
//    DenseI64ArrayAttr::parse takes them: a decimal or `0x` hexadecimal
//    literal, with an optional `-` before it, within int64's range, or
//    `true`/`false`; whitespace and `//` comments anywhere between tokens;
//    `[]`. What the printer writes (`[1, 0]`) is a small part of that. The
//    custom form of another op with these words as keywords before another
//    kind of value would be refused too; none is known among the dialects
//    the tools register (no assembly format of LLVM 22's .td files has one).
// String literals and `//` comments elsewhere are skipped. The tools check
// with checkInput (fusion-opt standard input too), the compile fuzz target
// skips what refusedBeforeParsing says. Drop the check once the upstream
// helper returns failure on a null attribute.

/// Where and why the text fails Note [Integer lists].
struct MalformedIntegerList {
  size_t offset;       ///< the first character that does not fit
  std::string problem; ///< e.g. "expected an integer in the 'permutation' list"
};

namespace detail {
/// A character of a bare identifier, or of a token that an identifier
/// glued to it would belong to (`%x`, `@f`, `#map`, `^bb`, `!t`, `%a-b`).
inline bool isWordChar(char c) {
  return llvm::isAlnum(c) || c == '_' || c == '$' || c == '.' || c == '%' ||
         c == '@' || c == '#' || c == '^' || c == '!' || c == '-';
}

/// A character that continues a bare identifier (MLIR's lexer).
inline bool isBareIdChar(char c) {
  return llvm::isAlnum(c) || c == '_' || c == '$' || c == '.';
}

/// Moves `i` past whitespace and `//` comments.
inline void skipTrivia(llvm::StringRef text, size_t &i) {
  while (i < text.size()) {
    if (llvm::isSpace(text[i])) {
      ++i;
    } else if (text[i] == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i < text.size() && text[i] != '\n')
        ++i;
    } else {
      return;
    }
  }
}

/// Checks the value after `keyword =` from `i` on (Note [Integer lists]).
inline std::optional<MalformedIntegerList>
checkIntegerList(llvm::StringRef text, size_t i, llvm::StringRef keyword) {
  const size_t e = text.size();
  auto fail = [&](size_t at, llvm::StringRef what) {
    return MalformedIntegerList{at,
                                (what + " the '" + keyword + "' list").str()};
  };
  skipTrivia(text, i);
  if (i == e || text[i] != '[')
    return fail(i, "expected '[' to start");
  ++i;
  skipTrivia(text, i);
  if (i < e && text[i] == ']')
    return std::nullopt; // []
  while (true) {
    skipTrivia(text, i);
    if (i == e)
      return fail(i, "the input ends inside");
    bool negative = text[i] == '-';
    if (negative) {
      ++i;
      skipTrivia(text, i);
    }
    llvm::StringRef rest = text.substr(i);
    size_t word = std::min(rest.find_if_not(isBareIdChar), rest.size());
    if (!negative &&
        (rest.take_front(word) == "true" || rest.take_front(word) == "false")) {
      i += word;
    } else if (i < e && llvm::isDigit(text[i])) {
      // A decimal literal, or `0x` and hexadecimal digits.
      size_t literal = i, start = i;
      unsigned radix = 10;
      if (rest.starts_with("0x") && rest.size() > 2 &&
          llvm::isHexDigit(rest[2])) {
        radix = 16;
        start = i += 2;
      }
      while (i < e &&
             (radix == 16 ? llvm::isHexDigit(text[i]) : llvm::isDigit(text[i])))
        ++i;
      llvm::StringRef digits = text.slice(start, i).ltrim('0');
      uint64_t magnitude = 0;
      uint64_t limit = negative ? uint64_t(1) << 63 : (uint64_t(1) << 63) - 1;
      if (!digits.empty() &&
          (digits.getAsInteger(radix, magnitude) || magnitude > limit))
        return fail(literal, "integer out of int64's range in");
    } else {
      return fail(i, "expected an integer in");
    }
    skipTrivia(text, i);
    if (i == e)
      return fail(i, "the input ends inside");
    if (text[i] == ']')
      return std::nullopt;
    if (text[i] != ',')
      return fail(i, "expected ',' or ']' in");
    ++i;
  }
}
} // namespace detail

/// The first `permutation = ...` or `dimensions = ...` of an op's custom
/// form in `text` that LLVM 22's linalg parsers would crash on, or none
/// (Note [Integer lists]).
inline std::optional<MalformedIntegerList>
findMalformedIntegerList(llvm::StringRef text) {
  char previous = '\0'; // the last character of the previous token
  for (size_t i = 0, e = text.size(); i < e; ++i) {
    char c = text[i];
    if (c == '"') {
      detail::skipString(text, i);
      previous = '"';
      continue;
    }
    if (c == '/' && i + 1 < e && text[i + 1] == '/') {
      while (i + 1 < e && text[i + 1] != '\n')
        ++i;
      continue;
    }
    if (llvm::isSpace(c))
      continue;
    if (!detail::isWordChar(c)) {
      previous = c;
      continue;
    }
    size_t end = i;
    while (end < e && detail::isWordChar(text[end]))
      ++end;
    llvm::StringRef word = text.slice(i, end);
    i = end - 1;
    bool isKey = previous == '{' || previous == ',' || previous == '<' ||
                 previous == '(';
    previous = word.back();
    if (isKey || (word != "permutation" && word != "dimensions"))
      continue;
    size_t at = end;
    detail::skipTrivia(text, at);
    if (at == e || text[at] != '=')
      continue;
    if (auto bad = detail::checkIntegerList(text, at + 1, word))
      return bad;
  }
  return std::nullopt;
}

/// What the tools refuse before MLIR's parser sees it (Note [Tool limits],
/// Note [Integer lists]): where in the text, and the message.
struct InputRefusal {
  size_t offset;
  std::string message;
};

/// The first problem of `text` that the tools refuse before parsing, or none.
inline std::optional<InputRefusal> findRefusal(llvm::StringRef text) {
  if (std::optional<size_t> at = findExcessiveNesting(text))
    return InputRefusal{*at, "brackets nest deeper than " +
                                 std::to_string(kMaxNesting) +
                                 " levels here: the input is refused (Note "
                                 "[Tool limits])"};
  if (std::optional<MalformedIntegerList> bad = findMalformedIntegerList(text))
    return InputRefusal{bad->offset, bad->problem +
                                         " here: the input is refused (Note "
                                         "[Integer lists])"};
  return std::nullopt;
}

/// Reports the first problem findRefusal finds in the main buffer of
/// `sourceMgr` as an error at the offending character; true when the input
/// may be parsed.
inline bool checkInput(llvm::SourceMgr &sourceMgr) {
  const llvm::MemoryBuffer *buffer =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  std::optional<InputRefusal> refusal = findRefusal(buffer->getBuffer());
  if (!refusal)
    return true;
  sourceMgr.PrintMessage(
      llvm::SMLoc::getFromPointer(buffer->getBufferStart() + refusal->offset),
      llvm::SourceMgr::DK_Error, refusal->message);
  return false;
}

/// Whether the tools refuse `text` before parsing (checkInput, without a
/// diagnostic).
inline bool refusedBeforeParsing(llvm::StringRef text) {
  return findRefusal(text).has_value();
}

/// The 1-based line and column of `offset` in `text`.
inline std::pair<unsigned, unsigned> lineAndColumn(llvm::StringRef text,
                                                   size_t offset) {
  llvm::StringRef before = text.take_front(offset);
  size_t lineStart = before.rfind('\n');
  lineStart = lineStart == llvm::StringRef::npos ? 0 : lineStart + 1;
  return {static_cast<unsigned>(before.count('\n')) + 1,
          static_cast<unsigned>(offset - lineStart) + 1};
}

/// Runs `body` on a thread with a large stack and returns its exit code.
inline int runWithLargeStack(llvm::function_ref<int()> body) {
  int rc = 1;
  llvm::thread worker(std::optional<unsigned>(kToolStackBytes),
                      [&] { rc = body(); });
  worker.join();
  return rc;
}

} // namespace mlir::fusion

#endif // FUSION_SUPPORT_TOOLLIMITS_H
