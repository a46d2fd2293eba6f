"""`tx.initializers`: objects that make a variable's initial value, ``init(shape, dtype)``.

Seeded initializers are reproducible: with ``seed=`` they use the stateless random ops (the
same value for the same seed, shape and dtype, in any graph); without one they draw from the
graph- and op-level seeds like every random op (`tx.random.set_seed`).
"""

import math

import numpy as np

from tensorflux._src import dtypes as _dtypes
from tensorflux._src import random_ops
from tensorflux._src.constant_op import constant
from tensorflux._src.generated import gen_ops


def _dims(shape):
    dims = [int(d) for d in (shape.as_list() if hasattr(shape, "as_list") else shape)]
    if any(d < 0 for d in dims):
        raise ValueError("initializers need a fully known shape, got %s" % (dims,))
    return dims


def _fans(dims):
    """(fan_in, fan_out) as Keras computes them: dense [in, out]; conv [..., in, out] times the
    receptive field."""
    if not dims:
        return 1, 1
    if len(dims) == 1:
        return dims[0], dims[0]
    receptive = int(np.prod(dims[:-2])) if len(dims) > 2 else 1
    return dims[-2] * receptive, dims[-1] * receptive


class Initializer:
    """Base class: ``__call__(shape, dtype=float32)`` returns a tensor of that shape and dtype."""

    def __call__(self, shape, dtype=_dtypes.float32):
        raise NotImplementedError

    def get_config(self):
        return {}


class Zeros(Initializer):
    """Every element 0.

    >>> tx.initializers.Zeros()([2]).numpy()
    array([0., 0.], dtype=float32)
    """

    def __call__(self, shape, dtype=_dtypes.float32):
        return gen_ops.fill(constant(_dims(shape), dtype=_dtypes.int64), constant(0, dtype=_dtypes.as_dtype(dtype)))


class Ones(Initializer):
    """Every element 1.

    >>> tx.initializers.Ones()([2], dtype=tx.int32).numpy()
    array([1, 1], dtype=int32)
    """

    def __call__(self, shape, dtype=_dtypes.float32):
        return gen_ops.fill(constant(_dims(shape), dtype=_dtypes.int64), constant(1, dtype=_dtypes.as_dtype(dtype)))


class Constant(Initializer):
    """Every element ``value`` (a scalar), or ``value`` itself when it has the requested shape.

    >>> tx.initializers.Constant(0.5)([3]).numpy()
    array([0.5, 0.5, 0.5], dtype=float32)
    """

    def __init__(self, value=0):
        self.value = value

    def __call__(self, shape, dtype=_dtypes.float32):
        v = np.asarray(self.value)
        dims = _dims(shape)
        if v.ndim == 0:
            return gen_ops.fill(constant(dims, dtype=_dtypes.int64), constant(v, dtype=_dtypes.as_dtype(dtype)))
        if list(v.shape) != dims:
            raise ValueError("Constant initializer value of shape %s does not match shape %s" % (v.shape, dims))
        return constant(v, dtype=_dtypes.as_dtype(dtype))

    def get_config(self):
        return {"value": self.value}


class _Random(Initializer):
    def __init__(self, seed=None):
        self.seed = seed

    def _draw(self, kind, dims, dtype, **kw):
        if self.seed is not None:
            fn = {"uniform": random_ops.stateless_uniform, "normal": random_ops.stateless_normal,
                  "truncated": random_ops.stateless_truncated_normal}[kind]
            return fn(dims, seed=[int(self.seed), 0], dtype=dtype, **kw)
        fn = {"uniform": random_ops.uniform, "normal": random_ops.normal,
              "truncated": random_ops.truncated_normal}[kind]
        return fn(dims, dtype=dtype, **kw)

    def get_config(self):
        return {"seed": self.seed}


class RandomUniform(_Random):
    """Uniform in [minval, maxval); the same values for the same ``seed`` (stateless when seeded).

    >>> init = tx.initializers.RandomUniform(minval=0.0, maxval=1.0, seed=1)
    >>> x = init([100])
    >>> bool(tx.reduce_all((x >= 0.0) & (x < 1.0)))
    True
    >>> bool(tx.reduce_all(init([100]) == x))
    True
    """

    def __init__(self, minval=-0.05, maxval=0.05, seed=None):
        super().__init__(seed)
        self.minval, self.maxval = minval, maxval

    def __call__(self, shape, dtype=_dtypes.float32):
        return self._draw("uniform", _dims(shape), _dtypes.as_dtype(dtype), minval=self.minval, maxval=self.maxval)


class RandomNormal(_Random):
    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        super().__init__(seed)
        self.mean, self.stddev = mean, stddev

    def __call__(self, shape, dtype=_dtypes.float32):
        return self._draw("normal", _dims(shape), _dtypes.as_dtype(dtype), mean=self.mean, stddev=self.stddev)


class TruncatedNormal(_Random):
    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        super().__init__(seed)
        self.mean, self.stddev = mean, stddev

    def __call__(self, shape, dtype=_dtypes.float32):
        return self._draw("truncated", _dims(shape), _dtypes.as_dtype(dtype), mean=self.mean, stddev=self.stddev)


class VarianceScaling(_Random):
    """Keras's VarianceScaling: variance ``scale / n`` with n = fan_in, fan_out or their mean,
    from a truncated normal (stddev corrected for the truncation), a normal or a uniform."""

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None):
        super().__init__(seed)
        if scale <= 0:
            raise ValueError("VarianceScaling scale must be positive, got %r" % (scale,))
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise ValueError("VarianceScaling mode must be fan_in, fan_out or fan_avg, got %r" % (mode,))
        if distribution not in ("truncated_normal", "untruncated_normal", "uniform"):
            raise ValueError("VarianceScaling distribution must be truncated_normal, untruncated_normal or uniform,"
                             " got %r" % (distribution,))
        self.scale, self.mode, self.distribution = scale, mode, distribution

    def __call__(self, shape, dtype=_dtypes.float32):
        dims = _dims(shape)
        fan_in, fan_out = _fans(dims)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2}[self.mode]
        variance = self.scale / max(1.0, n)
        dtype = _dtypes.as_dtype(dtype)
        if self.distribution == "truncated_normal":
            # Standard deviation of a unit normal truncated to [-2, 2].
            return self._draw("truncated", dims, dtype, stddev=math.sqrt(variance) / 0.87962566103423978)
        if self.distribution == "untruncated_normal":
            return self._draw("normal", dims, dtype, stddev=math.sqrt(variance))
        limit = math.sqrt(3.0 * variance)
        return self._draw("uniform", dims, dtype, minval=-limit, maxval=limit)

    def get_config(self):
        return {"scale": self.scale, "mode": self.mode, "distribution": self.distribution, "seed": self.seed}


def GlorotUniform(seed=None):  # noqa: N802 (Keras's class-like name)
    """Uniform in [-limit, limit] with limit = sqrt(6 / (fan_in + fan_out)) (Glorot and Bengio).

    >>> w = tx.initializers.GlorotUniform(seed=0)([64, 10])
    >>> w.shape
    TensorShape([64, 10])
    >>> bool(tx.reduce_max(tx.abs(w)) <= np.sqrt(6.0 / (64 + 10)))
    True
    """
    return VarianceScaling(1.0, "fan_avg", "uniform", seed)


def GlorotNormal(seed=None):  # noqa: N802
    return VarianceScaling(1.0, "fan_avg", "truncated_normal", seed)


def HeUniform(seed=None):  # noqa: N802
    return VarianceScaling(2.0, "fan_in", "uniform", seed)


def HeNormal(seed=None):  # noqa: N802
    return VarianceScaling(2.0, "fan_in", "truncated_normal", seed)


def LecunNormal(seed=None):  # noqa: N802
    return VarianceScaling(1.0, "fan_in", "truncated_normal", seed)


class Orthogonal(_Random):
    """A (semi-)orthogonal matrix times ``gain``, flattened to [prod(shape[:-1]), shape[-1]].

    The engine has no QR op yet, so the matrix is computed here with NumPy (QR of a Gaussian
    matrix, signs fixed by R's diagonal) from ``seed`` (a random seed when None) and embedded
    as a constant.

    >>> q = tx.initializers.Orthogonal(seed=0)([4, 4])
    >>> np.allclose(tx.matmul(q, q, transpose_a=True).numpy(), np.eye(4), atol=1e-5)
    True
    """

    def __init__(self, gain=1.0, seed=None):
        super().__init__(seed)
        self.gain = gain

    def __call__(self, shape, dtype=_dtypes.float32):
        dims = _dims(shape)
        if len(dims) < 2:
            raise ValueError("Orthogonal initializer needs a shape of rank >= 2, got %s" % (dims,))
        rows, cols = int(np.prod(dims[:-1])), dims[-1]
        rng = np.random.default_rng(self.seed)
        a = rng.standard_normal((max(rows, cols), min(rows, cols)))
        q, r = np.linalg.qr(a)
        q *= np.sign(np.diag(r))
        if rows < cols:
            q = q.T
        return constant((self.gain * q).reshape(dims), dtype=_dtypes.as_dtype(dtype))

    def get_config(self):
        return {"gain": self.gain, "seed": self.seed}


def get(identifier):
    """An initializer from a name ("glorot_uniform", "zeros", ...) or an initializer itself.

    >>> type(tx.initializers.get("glorot_uniform")).__name__
    'VarianceScaling'
    """
    if isinstance(identifier, Initializer) or callable(identifier):
        return identifier
    table = {"zeros": Zeros, "ones": Ones, "constant": Constant, "random_uniform": RandomUniform,
             "random_normal": RandomNormal, "truncated_normal": TruncatedNormal, "glorot_uniform": GlorotUniform,
             "glorot_normal": GlorotNormal, "he_uniform": HeUniform, "he_normal": HeNormal,
             "lecun_normal": LecunNormal, "orthogonal": Orthogonal, "variance_scaling": VarianceScaling}
    if identifier not in table:
        raise ValueError("unknown initializer %r (known: %s)" % (identifier, ", ".join(sorted(table))))
    return table[identifier]()


# snake_case aliases, as tf.keras.initializers offers.
zeros, ones, constant_initializer = Zeros, Ones, Constant
random_uniform, random_normal, truncated_normal = RandomUniform, RandomNormal, TruncatedNormal
glorot_uniform, glorot_normal, he_uniform, he_normal, lecun_normal = (GlorotUniform, GlorotNormal, HeUniform,
                                                                      HeNormal, LecunNormal)
orthogonal, variance_scaling = Orthogonal, VarianceScaling
