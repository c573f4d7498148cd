//===- fusion-filecheck.cpp - a FileCheck for the GPU machine -------------===//
// The GPU machine has no LLVM, so lit tests run there with this small driver
// over LLVM's FileCheck library, linked statically into the bundle. It
// accepts the options the project's tests use.
//===----------------------------------------------------------------------===//

#include "llvm/ADT/SmallString.h"
#include "llvm/FileCheck/FileCheck.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::opt<std::string> checkFile(cl::Positional, cl::Required,
                                 cl::desc("<check file>"));
  cl::opt<std::string> inputFile("input-file", cl::init("-"),
                                 cl::desc("Input (default stdin)"));
  cl::list<std::string> prefixes("check-prefix",
                                 cl::desc("Check prefix (default CHECK)"));
  cl::list<std::string> prefixesComma("check-prefixes", cl::CommaSeparated,
                                      cl::desc("Check prefixes"));
  cl::list<std::string> implicitNot("implicit-check-not",
                                    cl::desc("Implicit CHECK-NOT pattern"));
  cl::opt<bool> enableVarScope("enable-var-scope", cl::init(false));
  cl::opt<bool> matchFullLines("match-full-lines", cl::init(false));
  cl::opt<bool> strictWhitespace("strict-whitespace", cl::init(false));
  cl::opt<bool> allowEmpty("allow-empty", cl::init(false));
  cl::opt<bool> allowUnused("allow-unused-prefixes", cl::init(false));
  cl::opt<std::string> dumpInput("dump-input", cl::init("fail"));
  // FILECHECK_OPTS carries options lit sets for every test.
  cl::ParseCommandLineOptions(argc, argv, "fusion-filecheck\n", nullptr,
                              nullptr, "FILECHECK_OPTS");

  FileCheckRequest req;
  std::vector<std::string> allPrefixes(prefixes.begin(), prefixes.end());
  allPrefixes.insert(allPrefixes.end(), prefixesComma.begin(),
                     prefixesComma.end());
  for (const std::string &p : allPrefixes)
    req.CheckPrefixes.push_back(p);
  if (req.CheckPrefixes.empty()) {
    req.CheckPrefixes.push_back("CHECK");
    req.IsDefaultCheckPrefix = true;
  }
  req.CommentPrefixes = {"COM", "RUN"};
  for (const std::string &p : implicitNot)
    req.ImplicitCheckNot.push_back(p);
  req.EnableVarScope = enableVarScope;
  req.MatchFullLines = matchFullLines;
  req.NoCanonicalizeWhiteSpace = strictWhitespace;
  req.AllowEmptyInput = allowEmpty;
  req.AllowUnusedPrefixes = allowUnused;

  FileCheck fc(req);
  if (!fc.ValidateCheckPrefixes()) {
    errs() << "fusion-filecheck: invalid check prefix\n";
    return 2;
  }
  SourceMgr sm;
  auto checkBuffer = MemoryBuffer::getFileOrSTDIN(checkFile, true);
  if (!checkBuffer) {
    errs() << "fusion-filecheck: cannot read " << checkFile << "\n";
    return 2;
  }
  SmallString<4096> checkStorage;
  StringRef checkText = fc.CanonicalizeFile(**checkBuffer, checkStorage);
  sm.AddNewSourceBuffer(MemoryBuffer::getMemBuffer(
                            checkText, (*checkBuffer)->getBufferIdentifier()),
                        SMLoc());
  if (fc.readCheckFile(sm, checkText))
    return 2;
  auto inputBuffer = MemoryBuffer::getFileOrSTDIN(inputFile, true);
  if (!inputBuffer) {
    errs() << "fusion-filecheck: cannot read " << inputFile << "\n";
    return 2;
  }
  SmallString<4096> inputStorage;
  StringRef inputText = fc.CanonicalizeFile(**inputBuffer, inputStorage);
  if (inputText.empty() && !allowEmpty) {
    errs() << "fusion-filecheck: error: empty input\n";
    return 2;
  }
  sm.AddNewSourceBuffer(MemoryBuffer::getMemBuffer(inputText, "<stdin>"),
                        SMLoc());
  if (!fc.checkInput(sm, inputText)) {
    if (dumpInput != "never")
      errs() << "fusion-filecheck: input was:\n" << inputText << "\n";
    return 1;
  }
  return 0;
}
