"""Errors raised by the engine, named and numbered like TensorFlow's (``tx.errors.*``)."""

from tensorflux._src.errors import (ABORTED, ALREADY_EXISTS, CANCELLED, DATA_LOSS, DEADLINE_EXCEEDED,
                                    FAILED_PRECONDITION, INTERNAL, INVALID_ARGUMENT, NOT_FOUND, OK, OUT_OF_RANGE,
                                    PERMISSION_DENIED, RESOURCE_EXHAUSTED, UNAUTHENTICATED, UNAVAILABLE,
                                    UNIMPLEMENTED, UNKNOWN, AbortedError, AlreadyExistsError, CancelledError,
                                    DataLossError, DeadlineExceededError, FailedPreconditionError, InternalError,
                                    InvalidArgumentError, NotFoundError, OpError, OutOfRangeError,
                                    PermissionDeniedError, ResourceExhaustedError, UnauthenticatedError,
                                    UnavailableError, UnimplementedError, UnknownError,
                                    error_code_from_exception_type, exception_type_from_error_code)

__all__ = [
    "OpError", "CancelledError", "UnknownError", "InvalidArgumentError", "DeadlineExceededError", "NotFoundError",
    "AlreadyExistsError", "PermissionDeniedError", "ResourceExhaustedError", "FailedPreconditionError",
    "AbortedError", "OutOfRangeError", "UnimplementedError", "InternalError", "UnavailableError", "DataLossError",
    "UnauthenticatedError",
    "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND", "ALREADY_EXISTS",
    "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED",
    "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED",
    "error_code_from_exception_type", "exception_type_from_error_code",
]

from tensorflux._src.module_getattr import module_getattr as _module_getattr

__getattr__ = _module_getattr(__name__)
