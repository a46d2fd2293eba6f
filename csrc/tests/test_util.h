// A minimal test harness for the engine's C++ tests (no third-party test framework).
#pragma once

#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace tx_test {

// One test case; `file` (its source file, from __FILE__) names the suite it belongs to.
struct Case {
  const char* name;
  const char* file;
  std::function<void()> fn;
};
inline std::vector<Case>& Cases() {
  static std::vector<Case> c;
  return c;
}
inline int& Failures() {
  static int f = 0;
  return f;
}
// Functions run after a suite's cases (cleanup such as removing temporary files).
inline std::vector<Case>& Teardowns() {
  static std::vector<Case> t;
  return t;
}
struct Registrar {
  Registrar(const char* n, const char* file, std::function<void()> f) { Cases().push_back({n, file, std::move(f)}); }
};
struct TeardownRegistrar {
  TeardownRegistrar(const char* file, std::function<void()> f) { Teardowns().push_back({"", file, std::move(f)}); }
};

// The suite a source file's cases belong to: its base name without extension ("array_test").
inline std::string SuiteOf(const char* file) {
  std::string s(file);
  const size_t slash = s.find_last_of('/');
  if (slash != std::string::npos) s = s.substr(slash + 1);
  return s.substr(0, s.find('.'));
}

// Runs every case of `suite`, then its teardowns; prints "N passed, M failed" and returns the
// process exit code (2 when the suite has no cases, so a misspelled name cannot pass).
inline int RunSuite(const std::string& suite) {
  int passed = 0, failed = 0;
  for (const Case& c : Cases()) {
    if (SuiteOf(c.file) != suite) continue;
    int before = Failures();
    c.fn();
    if (Failures() == before) {
      ++passed;
    } else {
      ++failed;
      std::printf("FAILED: %s\n", c.name);
    }
  }
  for (const Case& t : Teardowns()) {
    if (SuiteOf(t.file) == suite) t.fn();
  }
  if (passed + failed == 0) {
    std::printf("no test suite named '%s'\n", suite.c_str());
    return 2;
  }
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}

}  // namespace tx_test

#define TX_TEST_CAT2(a, b) a##b
#define TX_TEST_CAT(a, b) TX_TEST_CAT2(a, b)
#define TEST(name)                                                                                           \
  static void TX_TEST_CAT(tx_test_, name)();                                                                 \
  static ::tx_test::Registrar TX_TEST_CAT(tx_test_reg_, name)(#name, __FILE__, TX_TEST_CAT(tx_test_, name)); \
  static void TX_TEST_CAT(tx_test_, name)()

#define EXPECT_TRUE(cond)                                             \
  do {                                                                \
    if (!(cond)) {                                                    \
      std::printf("%s:%d: expected %s\n", __FILE__, __LINE__, #cond); \
      ++::tx_test::Failures();                                        \
    }                                                                 \
  } while (0)
#define EXPECT_EQ(a, b) EXPECT_TRUE((a) == (b))
#define EXPECT_NEAR(a, b, tol) EXPECT_TRUE(std::fabs((a) - (b)) <= (tol))
#define EXPECT_OK(expr)                                                                       \
  do {                                                                                        \
    ::tx::Status _s = (expr);                                                                 \
    if (!_s.ok()) {                                                                           \
      std::printf("%s:%d: %s failed: %s\n", __FILE__, __LINE__, #expr, _s.message().c_str()); \
      ++::tx_test::Failures();                                                                \
    }                                                                                         \
  } while (0)
// Expects a non-OK status whose message contains `substr`.
#define EXPECT_ERROR(expr, substr)                                                                            \
  do {                                                                                                        \
    ::tx::Status _s = (expr);                                                                                 \
    if (_s.ok() || _s.message().find(substr) == std::string::npos) {                                          \
      std::printf("%s:%d: %s: expected error containing '%s', got '%s'\n", __FILE__, __LINE__, #expr, substr, \
                  _s.ok() ? "OK" : _s.message().c_str());                                                     \
      ++::tx_test::Failures();                                                                                \
    }                                                                                                         \
  } while (0)

// A function run after the cases of the file that defines it: TX_TEST_TEARDOWN() { ... }
#define TX_TEST_TEARDOWN()                                                              \
  static void tx_test_teardown();                                                       \
  static ::tx_test::TeardownRegistrar tx_test_teardown_reg(__FILE__, tx_test_teardown); \
  static void tx_test_teardown()
