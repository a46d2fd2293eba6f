// Ctrl-C for long engine calls: a SIGINT on the main thread cancels the engine run it is waiting
// for (Note [Interrupting runs]).
#pragma once

#include "common.h"

// Note [Interrupting runs]
// Python handles SIGINT by setting a flag that the main thread checks between bytecodes, so while
// the main thread waits in the engine (a session run, a tx.function call, a while_loop) Ctrl-C would
// do nothing until the run ended, which may be never. Before such a call on the main thread, the
// binding makes sure its own SIGINT handler is installed in front of the current one (Python's, or
// whatever the program installed): it cancels the run's TX_Cancellation (TX_Cancel is
// async-signal-safe) and then calls the handler it displaced, so Python still sees the signal. The
// run stops at its next kernel or loop iteration with CANCELLED; the binding then lets Python handle
// the pending signal (PyErr_CheckSignals), which raises KeyboardInterrupt from the call. When the
// program replaces the handler later (signal.signal), a later call puts ours in front again (the
// check, a sigaction call, runs at most every 50 ms, to keep it off the path of short runs); when
// SIGINT is ignored or has its default action, nothing is installed. Threads other than the main
// thread never see KeyboardInterrupt in Python, so their runs are not interruptible this way.

namespace txpy {

// The flag a SIGINT cancels during the current call, for calls made on the main thread with the
// GIL held while Python handles SIGINT; nullptr otherwise. Pair each non-null result with an
// InterruptScope around the engine call.
TX_Cancellation* InterruptFlag();

// Arms SIGINT cancellation of `flag` (may be null: does nothing) for the scope's lifetime; with
// the GIL held, it first raises KeyboardInterrupt (py::error_already_set) for a SIGINT that is
// already pending.
class InterruptScope {
 public:
  explicit InterruptScope(TX_Cancellation* flag);
  ~InterruptScope();
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;

 private:
  TX_Cancellation* flag_;
};

// After an engine call made with `flag` failed with `status`: when a SIGINT cancelled it, runs
// Python's signal handlers (raising KeyboardInterrupt, as a C++ exception pybind11 rethrows).
void RaiseIfInterrupted(TX_Cancellation* flag, Status& status);

}  // namespace txpy
