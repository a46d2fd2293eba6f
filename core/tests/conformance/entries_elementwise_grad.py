"""Conformance entries: the elementwise gradient ops of the activations and unary maps.

References follow TensorFlow's formulas in the input dtype; the activation-gradient samples use
realistic second inputs (EluGrad gets Elu's outputs, SigmoidGrad gets values in (0, 1), ...).
"""

import numpy as np

from conformance.gen import FLOATS, rand
from conformance.harness import ErrorSample, OpEntry, Sample

# Scalar, vector with a vector-loop tail, matrices, zero-size, and one big enough to be split
# over the intra-op pool.
SHAPES = ((), (7,), (3, 5), (2, 67), (0, 2), (0,))
BIG = (160, 257)
INTS = (np.int32, np.int64, np.uint8)

_SELU_SCALE = 1.0507009873554804934193349852946
_SELU_ALPHA = 1.6732632423543772848170429916717


def _ref(fn):
    """Reference computed by `fn` in the inputs' dtype, ignoring floating-point warnings."""
    def ref(*args, **kwargs):
        with np.errstate(all="ignore"):
            return np.asarray(fn(*args, **kwargs))
    return ref


def _samples(grad, other, make_other, dtypes=FLOATS, specials=()):
    """Per dtype and shape: the gradient input `grad` uniform in [-3, 3] and input `other` from
    make_other(shape, dtype, seed); a large float32 sample; `specials` as (note, grad, other) float32."""
    out = []
    for dt in dtypes:
        low = 0 if np.dtype(dt).kind == "u" else -3
        for k, shape in enumerate(SHAPES):
            out.append(Sample({grad: rand(shape, dt, low, 3, seed=31 + k), other: make_other(shape, dt, 40 + k)}))
    out.append(Sample({grad: rand(BIG, np.float32, seed=50), other: make_other(BIG, np.float32, 51)},
                      note="split over threads"))
    for note, g, o in specials:
        out.append(Sample({grad: np.asarray(g, np.float32), other: np.asarray(o, np.float32)}, note=note))
    return out


def _errors(first, second):
    """Mismatched shapes fail at graph construction (static) and in the kernel (runtime)."""
    msg = f"'{first}' and '{second}' must have the same shape"
    return [ErrorSample({first: rand((2, 3)), second: rand((3,))}, match=msg, note="rank differs"),
            ErrorSample({first: rand((2, 3)), second: rand((3, 2))}, match=msg + r".*\[2,3\].*\[3,2\]",
                        note="dimensions differ"),
            ErrorSample({first: rand(()), second: rand((1,))}, match=msg, note="scalar vs [1], no broadcasting")]


def _uniform(low, high):
    return lambda shape, dt, seed: rand(shape, dt, low, high, seed=seed)


def _elu(shape, dt, seed):
    x = rand(shape, dt, -5, 3, seed=seed)
    return np.where(x > 0, x, np.expm1(x)).astype(dt)


def _selu(shape, dt, seed):
    x = rand(shape, dt, -5, 3, seed=seed)
    return (_SELU_SCALE * np.where(x > 0, x, _SELU_ALPHA * np.expm1(x))).astype(dt)


def _activation(op, second, make_second, fn, dtypes=FLOATS, specials=(), **kw):
    return OpEntry(op, _samples("gradients", second, make_second, dtypes, specials), ref=_ref(fn),
                   errors=_errors("gradients", second), **kw)


def _output_grad(op, make_y, fn, specials=(), **kw):
    return OpEntry(op, _samples("dy", "y", make_y, FLOATS, specials), ref=_ref(fn), errors=_errors("y", "dy"), **kw)


def _leaky_ref(gradients, features, alpha=0.2):
    return np.where(features > 0, gradients, gradients * gradients.dtype.type(alpha))


def _leaky_entry():
    entry = _activation("LeakyReluGrad", "features", _uniform(-4, 4), _leaky_ref)
    extra = [Sample({"gradients": rand((9,), dt, seed=60), "features": rand((9,), dt, -2, 2, seed=61)},
                    {"alpha": alpha}, note=f"alpha={alpha}") for dt in FLOATS for alpha in (0.01, 0.0, 1.5)]
    entry.samples = list(entry.samples) + extra
    return entry


# Boundaries and non-finite values, where the select-or-multiply choice shows.
_RELU_SPECIALS = [("boundaries", [1, 2, 3, 4, 5, -6], [-1, 0, 1e-30, 6, 7, 5.999]),
                  ("nan and inf gradients", [np.nan, np.inf, -np.inf, np.nan], [-1, -1, 2, 2]),
                  ("nan features", [2, -3], [np.nan, np.nan])]
_ZERO_DY = [("zero dy at y = 0 and inf", [0, 0, 1, 1, 0], [0, np.inf, 0, -0.0, 2])]

ENTRIES = [
    _activation("ReluGrad", "features", _uniform(-4, 4), lambda gradients, features: gradients * (features > 0),
                dtypes=FLOATS + INTS, specials=_RELU_SPECIALS),
    _activation("Relu6Grad", "features", _uniform(-3, 9),
                lambda gradients, features: gradients * ((features > 0) & (features < 6)),
                dtypes=FLOATS + INTS, specials=_RELU_SPECIALS),
    _activation("EluGrad", "outputs", _elu,
                lambda gradients, outputs: np.where(outputs < 0, gradients * (outputs + 1), gradients),
                specials=[("zero and -1 outputs", [1, 2, 3, np.inf], [0, -1, -0.5, -1])]),
    _activation("SeluGrad", "outputs", _selu,
                lambda gradients, outputs: np.where(outputs < 0, gradients * (outputs + _SELU_SCALE * _SELU_ALPHA),
                                                    gradients * _SELU_SCALE).astype(outputs.dtype),
                specials=[("zero outputs", [1, 2], [0, -0.0])]),
    _leaky_entry(),
    _activation("SoftplusGrad", "features", _uniform(-20, 20),
                lambda gradients, features: gradients / (np.exp(-features) + 1),
                specials=[("saturated", [1, 1, 1, 1], [-200, 200, -88, 100])], rtol=1e-5),
    _activation("SoftsignGrad", "features", _uniform(-10, 10),
                lambda gradients, features: gradients / np.square(np.abs(features) + 1), rtol=1e-6),
    _output_grad("SigmoidGrad", _uniform(0, 1), lambda y, dy: dy * y * (1 - y)),
    _output_grad("TanhGrad", _uniform(-1, 1), lambda y, dy: dy * (1 - y * y)),
    _output_grad("SqrtGrad", _uniform(0.1, 4), lambda y, dy: np.where(dy == 0, 0, 0.5 * dy / y).astype(y.dtype),
                 specials=_ZERO_DY),
    _output_grad("RsqrtGrad", _uniform(0.1, 4),
                 lambda y, dy: np.where(dy == 0, 0, -0.5 * (dy * y) * (y * y)).astype(y.dtype), specials=_ZERO_DY),
    _output_grad("ReciprocalGrad", _uniform(-4, 4), lambda y, dy: np.where(dy == 0, 0, -y * y * dy).astype(y.dtype),
                 specials=_ZERO_DY),
]
