package tf

// #include <stdlib.h>
// #include "tensorflux/c/c_api.h"
import "C"

import "fmt"

// Code is an error code; the values mirror TX_Code (gRPC's and TensorFlow's numbering).
type Code int

// The error codes of TX_Code.
const (
	OK                 Code = C.TX_OK
	Cancelled          Code = C.TX_CANCELLED
	Unknown            Code = C.TX_UNKNOWN
	InvalidArgument    Code = C.TX_INVALID_ARGUMENT
	DeadlineExceeded   Code = C.TX_DEADLINE_EXCEEDED
	NotFound           Code = C.TX_NOT_FOUND
	AlreadyExists      Code = C.TX_ALREADY_EXISTS
	PermissionDenied   Code = C.TX_PERMISSION_DENIED
	ResourceExhausted  Code = C.TX_RESOURCE_EXHAUSTED
	FailedPrecondition Code = C.TX_FAILED_PRECONDITION
	Aborted            Code = C.TX_ABORTED
	OutOfRange         Code = C.TX_OUT_OF_RANGE
	Unimplemented      Code = C.TX_UNIMPLEMENTED
	Internal           Code = C.TX_INTERNAL
	Unavailable        Code = C.TX_UNAVAILABLE
	DataLoss           Code = C.TX_DATA_LOSS
	Unauthenticated    Code = C.TX_UNAUTHENTICATED
)

var codeNames = map[Code]string{
	OK: "OK", Cancelled: "Cancelled", Unknown: "Unknown", InvalidArgument: "InvalidArgument",
	DeadlineExceeded: "DeadlineExceeded", NotFound: "NotFound", AlreadyExists: "AlreadyExists",
	PermissionDenied: "PermissionDenied", ResourceExhausted: "ResourceExhausted",
	FailedPrecondition: "FailedPrecondition", Aborted: "Aborted", OutOfRange: "OutOfRange",
	Unimplemented: "Unimplemented", Internal: "Internal", Unavailable: "Unavailable", DataLoss: "DataLoss",
	Unauthenticated: "Unauthenticated",
}

// String is the code's name, e.g. "InvalidArgument".
func (c Code) String() string {
	if s, ok := codeNames[c]; ok {
		return s
	}
	return fmt.Sprintf("Code(%d)", int(c))
}

// Error is every error the engine reports, and every error of this package's argument checks.
type Error struct {
	Code    Code
	Message string
}

// Error is "<Code>: <message>".
func (e *Error) Error() string { return e.Code.String() + ": " + e.Message }

// errorf makes an *Error with a formatted message.
func errorf(code Code, format string, args ...interface{}) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// status owns one TX_Status for the duration of a call.
type status struct{ c *C.TX_Status }

// newStatus returns a fresh status; the caller must call done.
func newStatus() status { return status{C.TX_NewStatus()} }

// done frees the status.
func (s status) done() { C.TX_DeleteStatus(s.c) }

// err returns nil when the status is OK, else an *Error with its code and message.
func (s status) err() error {
	code := C.TX_GetCode(s.c)
	if code == C.TX_OK {
		return nil
	}
	return &Error{Code: Code(code), Message: C.GoString(C.TX_Message(s.c))}
}
