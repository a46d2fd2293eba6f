// CancellationToken: how a run (a session run, an eager op) learns that it must stop early
// (Note [Cancellation]).
#pragma once

#include <atomic>
#include <cstdint>

#include "tensorflux/core/status.h"

// Note [Cancellation]
// Every session run has a token: the caller's (TX_SessionRunWithCancellation) or one of its own.
// Session::Close cancels the tokens of the runs in flight, a RunOptions deadline cancels its run
// from a timer thread, and TX_Cancel (async-signal-safe, so a SIGINT handler may call it) cancels
// on the caller's behalf. The executor checks the token before each kernel, and loop and call
// kernels check it at every iteration (a While's cond and body are nested plans that also check
// before each kernel), so a cancelled run stops at the next kernel or iteration, drops its
// intermediate tensors and returns the token's status: CANCELLED or DEADLINE_EXCEEDED. A check is
// one relaxed atomic load; a kernel that is already computing is not interrupted.

namespace tx {

// Thread-safe; the first Cancel wins and later ones are ignored until Reset.
class CancellationToken {
 public:
  // Why a run was cancelled.
  enum Reason : int { kNone = 0, kCancelled = 1, kSessionClosed = 2, kDeadlineExceeded = 3 };

  // True once cancelled: one relaxed atomic load, cheap enough to call before every kernel.
  bool cancelled() const { return reason_.load(std::memory_order_relaxed) != kNone; }
  // Cancels with `why` unless already cancelled; lock-free and async-signal-safe.
  void Cancel(Reason why) {
    int expected = kNone;
    reason_.compare_exchange_strong(expected, why, std::memory_order_relaxed);
  }
  // Makes the token usable for another run; only while no run uses it.
  void Reset() { reason_.store(kNone, std::memory_order_relaxed); }
  Reason reason() const { return static_cast<Reason>(reason_.load(std::memory_order_relaxed)); }
  // The deadline a timer enforces for this run, for the DEADLINE_EXCEEDED message (0: none).
  void set_timeout_ms(int64_t ms) { timeout_ms_ = ms; }

  // The error a cancelled run returns (OK when not cancelled).
  Status status() const {
    switch (reason()) {
      case kNone: return Status::OK();
      case kCancelled: return Cancelled("the run was cancelled");
      case kSessionClosed: return Cancelled("the session was closed during the run");
      case kDeadlineExceeded:
        return Status(Code::kDeadlineExceeded,
                      StrCat("the run exceeded its deadline of ", timeout_ms_, " ms (RunOptions.timeout_in_ms)"));
    }
    return Cancelled("the run was cancelled");
  }

 private:
  std::atomic<int> reason_{kNone};
  int64_t timeout_ms_ = 0;
};

}  // namespace tx
