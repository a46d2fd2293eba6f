// A minimal test harness for the engine's C++ tests (no third-party test framework).
#pragma once

#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace tx_test {

struct Case {
  const char* name;
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
struct Registrar {
  Registrar(const char* n, std::function<void()> f) { Cases().push_back({n, std::move(f)}); }
};

// Runs every registered case; prints "N passed, M failed" and returns the process exit code.
inline int RunAll() {
  int passed = 0, failed = 0;
  for (const Case& c : Cases()) {
    int before = Failures();
    c.fn();
    if (Failures() == before) {
      ++passed;
    } else {
      ++failed;
      std::printf("FAILED: %s\n", c.name);
    }
  }
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}

}  // namespace tx_test

#define TX_TEST_CAT2(a, b) a##b
#define TX_TEST_CAT(a, b) TX_TEST_CAT2(a, b)
#define TEST(name)                                                                  \
  static void TX_TEST_CAT(tx_test_, name)();                                        \
  static ::tx_test::Registrar TX_TEST_CAT(tx_test_reg_, name)(#name, TX_TEST_CAT(tx_test_, name)); \
  static void TX_TEST_CAT(tx_test_, name)()

#define EXPECT_TRUE(cond)                                                            \
  do {                                                                              \
    if (!(cond)) {                                                                  \
      std::printf("%s:%d: expected %s\n", __FILE__, __LINE__, #cond);               \
      ++::tx_test::Failures();                                                      \
    }                                                                               \
  } while (0)
#define EXPECT_EQ(a, b) EXPECT_TRUE((a) == (b))
#define EXPECT_NEAR(a, b, tol) EXPECT_TRUE(std::fabs((a) - (b)) <= (tol))
#define EXPECT_OK(expr)                                                              \
  do {                                                                              \
    ::tx::Status _s = (expr);                                                       \
    if (!_s.ok()) {                                                                 \
      std::printf("%s:%d: %s failed: %s\n", __FILE__, __LINE__, #expr, _s.message().c_str()); \
      ++::tx_test::Failures();                                                      \
    }                                                                               \
  } while (0)
// Expects a non-OK status whose message contains `substr`.
#define EXPECT_ERROR(expr, substr)                                                   \
  do {                                                                              \
    ::tx::Status _s = (expr);                                                       \
    if (_s.ok() || _s.message().find(substr) == std::string::npos) {                \
      std::printf("%s:%d: %s: expected error containing '%s', got '%s'\n", __FILE__, __LINE__, #expr, substr, \
                  _s.ok() ? "OK" : _s.message().c_str());                           \
      ++::tx_test::Failures();                                                      \
    }                                                                               \
  } while (0)

#define TX_TEST_MAIN() int main() { return ::tx_test::RunAll(); }
