// SIGINT cancellation of engine calls made on the main thread (Note [Interrupting runs]).
#include "interrupt.h"

#include <signal.h>

#include <atomic>
#include <chrono>

namespace txpy {
namespace {

TX_Cancellation* g_flag = nullptr;  // the main thread's flag; never freed (a handler may read it)
std::atomic<bool> g_armed{false};  // a main-thread call is running with g_flag
struct sigaction g_previous;  // the handler ours displaced
unsigned long g_main_thread = 0;  // PyThread ident of the main thread
// Whether OnSigint was in front at the last check, and when that was: re-checking (a sigaction
// call) at most every kRecheck keeps the syscall off the path of back-to-back short runs.
bool g_installed = false;
std::chrono::steady_clock::time_point g_checked;  // the epoch at first: the first call checks
constexpr std::chrono::milliseconds kRecheck{50};

void OnSigint(int sig, siginfo_t* info, void* uctx) {
  if (g_armed.load(std::memory_order_relaxed)) TX_Cancel(g_flag);
  if (g_previous.sa_flags & SA_SIGINFO) {
    if (g_previous.sa_sigaction != nullptr) g_previous.sa_sigaction(sig, info, uctx);
  } else if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN && g_previous.sa_handler != nullptr) {
    g_previous.sa_handler(sig);
  }
}

bool IsOurs(const struct sigaction& a) { return (a.sa_flags & SA_SIGINFO) && a.sa_sigaction == OnSigint; }

// Puts OnSigint in front of the current SIGINT handler; false when SIGINT is ignored or default.
bool EnsureHandler() {
  struct sigaction current;
  if (sigaction(SIGINT, nullptr, &current) != 0) return false;
  if (IsOurs(current)) return true;
  if (!(current.sa_flags & SA_SIGINFO) && (current.sa_handler == SIG_DFL || current.sa_handler == SIG_IGN))
    return false;
  g_previous = current;
  struct sigaction ours = current;
  ours.sa_flags |= SA_SIGINFO;
  ours.sa_sigaction = OnSigint;
  return sigaction(SIGINT, &ours, nullptr) == 0;
}

}  // namespace

TX_Cancellation* InterruptFlag() {
  if (g_main_thread == 0) {
    g_main_thread = py::module_::import("threading").attr("main_thread")().attr("ident").cast<unsigned long>();
    g_flag = TX_NewCancellation();
  }
  if (g_flag == nullptr || PyThread_get_thread_ident() != g_main_thread) return nullptr;
  if (g_armed.load(std::memory_order_relaxed)) return nullptr;  // a nested call: the outer one is armed
  const auto now = std::chrono::steady_clock::now();
  if (now - g_checked >= kRecheck) {
    g_installed = EnsureHandler();
    g_checked = now;
  }
  return g_installed ? g_flag : nullptr;
}

InterruptScope::InterruptScope(TX_Cancellation* flag) : flag_(flag) {
  if (flag_ == nullptr) return;
  TX_ResetCancellation(flag_);
  g_armed.store(true, std::memory_order_relaxed);
  // A SIGINT that came after InterruptFlag() installed the handler but before arming cancelled
  // nothing; Python has it pending, so it is raised now instead of being lost behind the run.
  if (PyErr_CheckSignals() != 0) {
    g_armed.store(false, std::memory_order_relaxed);
    throw py::error_already_set();
  }
}

InterruptScope::~InterruptScope() {
  if (flag_ != nullptr) g_armed.store(false, std::memory_order_relaxed);
}

void RaiseIfInterrupted(TX_Cancellation* flag, Status& status) {
  if (flag == nullptr || status.ok() || TX_GetCode(status.get()) != TX_CANCELLED) return;
  if (PyErr_CheckSignals() != 0) throw py::error_already_set();
}

}  // namespace txpy
