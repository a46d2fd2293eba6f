// The entry point of engine_tests, the one binary holding every C++ test file (Note [One C++ test
// binary] in CMakeLists.txt): `engine_tests <suite>` runs the cases of <suite>_test.cc.
#include <cstdio>
#include <set>
#include <string>

#include "test_util.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::printf("usage: %s <suite>, one of:\n", argv[0]);
    std::set<std::string> suites;
    for (const tx_test::Case& c : tx_test::Cases()) suites.insert(tx_test::SuiteOf(c.file));
    for (const std::string& s : suites) std::printf("  %s\n", s.c_str());
    return 2;
  }
  return tx_test::RunSuite(argv[1]);
}
