//===- ToolLimitsTest.cpp - what the tools refuse before parsing ----------===//
// Note [Integer lists]: the check must refuse every `permutation` or
// `dimensions` list on which LLVM 22's linalg parsers crash, and take every
// list they parse. A list the check takes is handed to MLIR's parser here:
// a crash of this test is a list the check should have refused.
//===----------------------------------------------------------------------===//

#include "fusion/Support/ToolLimits.h"
#include "fusion/Registration.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <cstring>
#include <iterator>
#include <optional>
#include <random>
#include <string>

using mlir::fusion::findMalformedIntegerList;
using mlir::fusion::MalformedIntegerList;

namespace {

const char *const kPrefix =
    "func.func @f(%a: tensor<2x3xf32>, %e: tensor<3x2xf32>) {\n"
    "  %t = linalg.transpose ins(%a : tensor<2x3xf32>) "
    "outs(%e : tensor<3x2xf32>) permutation = ";
const char *const kSuffix = "\n  return\n}\n";

std::string transposeWith(llvm::StringRef list) {
  return std::string(kPrefix) + list.str() + kSuffix;
}

/// Parses `text` with the tools' dialects; diagnostics are dropped. Only
/// whether the parser comes back matters.
void parse(mlir::MLIRContext &context, llvm::StringRef text) {
  mlir::ScopedDiagnosticHandler drop(
      &context, [](mlir::Diagnostic &) { return mlir::success(); });
  (void)mlir::parseSourceString<mlir::ModuleOp>(text, &context);
}

std::unique_ptr<mlir::MLIRContext> makeContext() {
  mlir::DialectRegistry registry;
  mlir::fusion::registerAllDialects(registry);
  auto context = std::make_unique<mlir::MLIRContext>(
      registry, mlir::MLIRContext::Threading::DISABLED);
  context->loadAllAvailableDialects();
  return context;
}

TEST(IntegerLists, TakesWhatTheParserTakes) {
  auto context = makeContext();
  for (const char *list :
       {"[1, 0]", "[1,0]", "[]", "[ ]", "[0x1, 0]", "[0x1F, 0xa]", "[00001, 0]",
        "[-1, 0]", "[- 1, 0]", "[-0]", "[9223372036854775807]",
        "[-9223372036854775808]", "[0x7fffffffffffffff]",
        "[-0x8000000000000000]", "[true, false]", "[1, // comment\n 0]",
        "[-// comment\n 1, 0]", "\n  [1, 0]"}) {
    std::string text = transposeWith(list);
    EXPECT_EQ(findMalformedIntegerList(text), std::nullopt) << list;
    parse(*context, text);
  }
}

TEST(IntegerLists, RefusesWhatCrashesTheParser) {
  struct Case {
    const char *list;
    size_t column; // of the offending character in the list (0-based)
    const char *problem;
  };
  for (Case c : {
           Case{"[1, ?]", 4, "expected an integer in"},
           Case{"[1, ?", 4, "expected an integer in"},
           Case{"[1, `]", 4, "expected an integer in"},
           Case{"[1, \\]", 4, "expected an integer in"},
           Case{"[1, \xd0\xa8", 4, "expected an integer in"},
           Case{"[1, \"x\"]", 4, "expected an integer in"},
           Case{"[1, 0,]", 6, "expected an integer in"},
           Case{"[,1]", 1, "expected an integer in"},
           Case{"[+1]", 1, "expected an integer in"},
           Case{"[-true]", 2, "expected an integer in"},
           Case{"[truex]", 1, "expected an integer in"},
           Case{"[1 0]", 3, "expected ',' or ']' in"},
           Case{"[1.0, 0]", 2, "expected ',' or ']' in"},
           Case{"[1e5]", 2, "expected ',' or ']' in"},
           Case{"[0X1]", 2, "expected ',' or ']' in"},
           Case{"[0x, 1]", 2, "expected ',' or ']' in"},
           Case{"[1 : i64, 0]", 3, "expected ',' or ']' in"},
           Case{"[9223372036854775808]", 1, "integer out of int64's range in"},
           Case{"[-9223372036854775809]", 2, "integer out of int64's range in"},
           Case{"[0x8000000000000000]", 1, "integer out of int64's range in"},
           Case{"[99999999999999999999999]", 1,
                "integer out of int64's range in"},
           Case{"1", 0, "expected '[' to start"},
           Case{"array<i64: 1, 0>", 0, "expected '[' to start"},
       }) {
    std::string text = transposeWith(c.list);
    std::optional<MalformedIntegerList> bad = findMalformedIntegerList(text);
    ASSERT_TRUE(bad.has_value()) << c.list;
    EXPECT_EQ(bad->offset, strlen(kPrefix) + c.column) << c.list;
    EXPECT_EQ(bad->problem, std::string(c.problem) + " the 'permutation' list")
        << c.list;
  }
  // The input ends inside the list, or before it.
  for (const char *text :
       {"linalg.transpose permutation = [1, 0", "linalg.transpose permutation=",
        "linalg.broadcast dimensions = [", "linalg.reduce dimensions = [1,"}) {
    std::optional<MalformedIntegerList> bad = findMalformedIntegerList(text);
    ASSERT_TRUE(bad.has_value()) << text;
    EXPECT_EQ(bad->offset, strlen(text)) << text;
  }
  // The keyword after `>` (properties), `}` (an attribute dictionary) or the
  // op's name is the linalg parsers' too.
  for (const char *text :
       {"linalg.transpose <{permutation = array<i64: 1, 0>}> permutation = [?",
        "linalg.transpose {x} permutation = [?",
        "linalg.transpose permutation = [?", "dimensions = [?"})
    EXPECT_NE(findMalformedIntegerList(text), std::nullopt) << text;
}

TEST(IntegerLists, LeavesOtherWordsAndKeysAlone) {
  for (const char *text : {
           // Keys of attribute dictionaries and of dialect attributes: the
           // generic attribute parser reads those.
           "{permutation = [1, ?]}",
           "{a = 1, dimensions = [\"rows\"]}",
           "<{permutation = array<i64: 1, 0>}>",
           "#x.y<dimensions = [?]>",
           "f(dimensions = [?])",
           // Other tokens that hold the words.
           "%permutation = [?",
           "@dimensions = [?",
           "#permutation = [?",
           "!dimensions = [?",
           "^permutation = [?",
           "%a-permutation = [?",
           "x.permutation = [?",
           "permutation_map = [?",
           "dimensions2 = [?",
           "\"permutation = [?\"",
           "// permutation = [?\n",
           // No `=` after the word.
           "permutation [?",
           "dimensions(1)",
       })
    EXPECT_EQ(findMalformedIntegerList(text), std::nullopt) << text;
}

/// Random lists of the tokens that matter: every one the check takes must
/// parse without a crash (a crash ends the test).
TEST(IntegerLists, RandomListsTheCheckTakesParse) {
  auto context = makeContext();
  const char *const tokens[] = {"0",
                                "1",
                                "12",
                                "-",
                                "0x1f",
                                "0X1",
                                ",",
                                ",",
                                " ",
                                "\n",
                                "]",
                                "true",
                                "x",
                                "?",
                                "// c\n",
                                ".5",
                                "\"",
                                "9223372036854775807",
                                "9223372036854775808"};
  std::mt19937 random(12345);
  int taken = 0;
  for (int n = 0; n < 3000; ++n) {
    std::string list = "[";
    for (int i = 0, e = random() % 7; i < e; ++i)
      list += tokens[random() % std::size(tokens)];
    if (random() % 4)
      list += "]";
    std::string text = transposeWith(list);
    if (findMalformedIntegerList(text))
      continue;
    ++taken;
    parse(*context, text);
  }
  // Enough of them reach the parser for the test to mean something.
  EXPECT_GT(taken, 100);
}

} // namespace
