"""Exceptions raised for engine errors, named and numbered like TensorFlow's.

The classes are registered into the C++ binding at import (see lib.py), which raises them
directly from a TX_Status: ``cls(None, None, message)``.
"""

import re

OK = 0
CANCELLED = 1
UNKNOWN = 2
INVALID_ARGUMENT = 3
DEADLINE_EXCEEDED = 4
NOT_FOUND = 5
ALREADY_EXISTS = 6
PERMISSION_DENIED = 7
RESOURCE_EXHAUSTED = 8
FAILED_PRECONDITION = 9
ABORTED = 10
OUT_OF_RANGE = 11
UNIMPLEMENTED = 12
INTERNAL = 13
UNAVAILABLE = 14
DATA_LOSS = 15
UNAUTHENTICATED = 16

_NODE_NAME = re.compile(r"^\[([^\]]+)\]")


class OpError(Exception):
    """An error reported by the engine while building or running a graph.

    Attributes: ``error_code`` (an int, as TensorFlow's), ``message``, ``node_name`` (the node the
    message names in its leading ``[name]``, or None) and ``op`` (that Operation, when known).
    """

    def __init__(self, node_def, op, message, error_code=UNKNOWN, *args):
        super().__init__(message, *args)
        self._node_def = node_def
        self._op = op
        self._message = message
        self._error_code = error_code
        m = _NODE_NAME.match(message or "")
        self._node_name = m.group(1) if m else None

    def __reduce__(self):
        # The Operation does not pickle; the message (and so node_name) does.
        return (type(self), (None, None, self._message) + self._extra_args())

    def _extra_args(self):
        return (self._error_code,) if type(self) is OpError else ()

    @property
    def message(self):
        """The error message from the engine."""
        return self._message

    @property
    def error_code(self):
        """The integer error code (``tx.errors.INVALID_ARGUMENT``, ...)."""
        return self._error_code

    @property
    def node_name(self):
        """Name of the node the error is about, parsed from the message's leading ``[name]``."""
        return self._node_name

    @property
    def op(self):
        """The Operation the error is about, when it is known."""
        return self._op

    @property
    def node_def(self):
        """The NodeDef of ``op`` (a protobuf message), or None."""
        if self._node_def is None and self._op is not None:
            self._node_def = self._op.node_def
        return self._node_def

    def __str__(self):
        return self._message


def _make(name, code, doc):
    def __init__(self, node_def, op, message, *args):
        OpError.__init__(self, node_def, op, message, code, *args)

    return type(name, (OpError,), {"__init__": __init__, "__doc__": doc, "__module__": "tensorflux.errors"})


CancelledError = _make("CancelledError", CANCELLED, "An operation or step was cancelled.")
UnknownError = _make("UnknownError", UNKNOWN, "An unknown error.")
InvalidArgumentError = _make("InvalidArgumentError", INVALID_ARGUMENT, "An argument (input, attr, shape) is invalid.")
DeadlineExceededError = _make("DeadlineExceededError", DEADLINE_EXCEEDED, "A deadline expired.")
NotFoundError = _make("NotFoundError", NOT_FOUND, "A requested entity (op type, node, file) was not found.")
AlreadyExistsError = _make("AlreadyExistsError", ALREADY_EXISTS, "An entity to create already exists.")
PermissionDeniedError = _make("PermissionDeniedError", PERMISSION_DENIED, "The caller lacks permission.")
ResourceExhaustedError = _make("ResourceExhaustedError", RESOURCE_EXHAUSTED, "A resource (memory, ...) ran out.")
FailedPreconditionError = _make("FailedPreconditionError", FAILED_PRECONDITION,
                                                                "The system is not in a state the operation needs.")
AbortedError = _make("AbortedError", ABORTED, "The operation was aborted.")
OutOfRangeError = _make("OutOfRangeError", OUT_OF_RANGE, "An operation went past the valid range.")
UnimplementedError = _make("UnimplementedError", UNIMPLEMENTED, "The operation is not implemented or supported.")
InternalError = _make("InternalError", INTERNAL, "An internal invariant of the engine broke.")
UnavailableError = _make("UnavailableError", UNAVAILABLE, "A service is unavailable.")
DataLossError = _make("DataLossError", DATA_LOSS, "Unrecoverable data loss or corruption.")
UnauthenticatedError = _make("UnauthenticatedError", UNAUTHENTICATED, "The request lacks valid credentials.")

OpError.__module__ = "tensorflux.errors"

_CODE_TO_CLASS = {
        CANCELLED: CancelledError,
        UNKNOWN: UnknownError,
        INVALID_ARGUMENT: InvalidArgumentError,
        DEADLINE_EXCEEDED: DeadlineExceededError,
        NOT_FOUND: NotFoundError,
        ALREADY_EXISTS: AlreadyExistsError,
        PERMISSION_DENIED: PermissionDeniedError,
        RESOURCE_EXHAUSTED: ResourceExhaustedError,
        FAILED_PRECONDITION: FailedPreconditionError,
        ABORTED: AbortedError,
        OUT_OF_RANGE: OutOfRangeError,
        UNIMPLEMENTED: UnimplementedError,
        INTERNAL: InternalError,
        UNAVAILABLE: UnavailableError,
        DATA_LOSS: DataLossError,
        UNAUTHENTICATED: UnauthenticatedError,
}


def exception_type_from_error_code(error_code):
    """The OpError subclass for an integer error code."""
    return _CODE_TO_CLASS[error_code]


def error_code_from_exception_type(cls):
    """The integer error code of an OpError subclass."""
    for code, c in _CODE_TO_CLASS.items():
        if c is cls:
            return code
    raise KeyError(cls)


def attach_op(error, graph):
    """Sets ``error.op`` from ``error.node_name`` when ``graph`` has that operation."""
    if error._op is None and error._node_name is not None:
        error._op = graph._op_by_name_or_none(error._node_name)
    return error
