//===- ToolLimits.h - what the tools do before they parse -------*- C++ -*-===//
// Input checks and a large stack for the tools that parse IR (fusion-opt,
// fusion-translate, fusion-interpret, fusion-run) and the fuzzers.
//===----------------------------------------------------------------------===//

#ifndef FUSION_SUPPORT_TOOLLIMITS_H
#define FUSION_SUPPORT_TOOLLIMITS_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/thread.h"

#include <cstddef>
#include <optional>
#include <string>

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

/// The offset of the first bracket in `text` that nests deeper than `limit`
/// (string literals and `//` comments skipped), or none.
inline std::optional<size_t>
findExcessiveNesting(llvm::StringRef text, unsigned limit = kMaxNesting) {
  unsigned depth = 0;
  for (size_t i = 0, e = text.size(); i < e; ++i) {
    char c = text[i];
    if (c == '"') {
      for (++i; i < e && text[i] != '"'; ++i)
        if (text[i] == '\\')
          ++i;
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

/// Reports excessive nesting in the main buffer of `sourceMgr` as an error
/// at the offending bracket; true when the input may be parsed.
inline bool checkNesting(llvm::SourceMgr &sourceMgr,
                         unsigned limit = kMaxNesting) {
  const llvm::MemoryBuffer *buffer =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  std::optional<size_t> at = findExcessiveNesting(buffer->getBuffer(), limit);
  if (!at)
    return true;
  sourceMgr.PrintMessage(
      llvm::SMLoc::getFromPointer(buffer->getBufferStart() + *at),
      llvm::SourceMgr::DK_Error,
      "brackets nest deeper than " + std::to_string(limit) +
          " levels here: the input is refused (Note [Tool limits])");
  return false;
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
