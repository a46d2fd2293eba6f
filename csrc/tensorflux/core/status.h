// Status: an error code (gRPC numbering, same as TensorFlow's) plus a message.
#pragma once

#include <sstream>
#include <string>
#include <string_view>
#include <utility>

namespace tx {

// Error codes; values are part of the C API (TX_Code) and must not change.
enum class Code : int {
  kOk = 0,
  kCancelled = 1,
  kUnknown = 2,
  kInvalidArgument = 3,
  kDeadlineExceeded = 4,
  kNotFound = 5,
  kAlreadyExists = 6,
  kPermissionDenied = 7,
  kResourceExhausted = 8,
  kFailedPrecondition = 9,
  kAborted = 10,
  kOutOfRange = 11,
  kUnimplemented = 12,
  kInternal = 13,
  kUnavailable = 14,
  kDataLoss = 15,
  kUnauthenticated = 16,
};

// The result of an operation that can fail; cheap to copy when OK.
class Status {
 public:
  Status() = default;
  Status(Code code, std::string message) : code_(code), message_(std::move(message)) {
    if (code_ == Code::kOk) message_.clear();
  }
  static Status OK() { return Status(); }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }

  // Returns a copy whose message is `prefix` followed by this message.
  Status WithPrefix(std::string_view prefix) const {
    if (ok()) return *this;
    return Status(code_, std::string(prefix) + message_);
  }

 private:
  Code code_ = Code::kOk;
  std::string message_;
};

// Concatenates the stream representations of its arguments.
template <typename... Args>
std::string StrCat(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}

template <typename... Args>
Status InvalidArgument(const Args&... a) {
  return Status(Code::kInvalidArgument, StrCat(a...));
}
template <typename... Args>
Status NotFound(const Args&... a) {
  return Status(Code::kNotFound, StrCat(a...));
}
template <typename... Args>
Status AlreadyExists(const Args&... a) {
  return Status(Code::kAlreadyExists, StrCat(a...));
}
template <typename... Args>
Status FailedPrecondition(const Args&... a) {
  return Status(Code::kFailedPrecondition, StrCat(a...));
}
template <typename... Args>
Status OutOfRange(const Args&... a) {
  return Status(Code::kOutOfRange, StrCat(a...));
}
template <typename... Args>
Status Unimplemented(const Args&... a) {
  return Status(Code::kUnimplemented, StrCat(a...));
}
template <typename... Args>
Status Internal(const Args&... a) {
  return Status(Code::kInternal, StrCat(a...));
}
template <typename... Args>
Status DataLoss(const Args&... a) {
  return Status(Code::kDataLoss, StrCat(a...));
}
template <typename... Args>
Status ResourceExhausted(const Args&... a) {
  return Status(Code::kResourceExhausted, StrCat(a...));
}
template <typename... Args>
Status Cancelled(const Args&... a) {
  return Status(Code::kCancelled, StrCat(a...));
}

}  // namespace tx

// Returns from the enclosing function if `expr` yields a non-OK Status.
#define TX_RETURN_IF_ERROR(expr)             \
  do {                                       \
    ::tx::Status _tx_status = (expr);        \
    if (!_tx_status.ok()) return _tx_status; \
  } while (0)
