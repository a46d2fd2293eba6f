"""``tx.random.Generator``: a random number generator whose state is a variable (TensorFlow 2's
tf.random.Generator with the Philox algorithm), plus the global generator and the stateless seed
helpers ``stateless_split`` / ``stateless_fold_in``.

Note [Generator state]: the state is an int64 variable of shape [3], TensorFlow's layout for
Philox: the 128-bit counter (words 0 and 1, low first) and the 64-bit key (word 2). A draw of n
values samples the stateless V2 op of its distribution with that key and counter, then adds 256 * n
to the counter, as TensorFlow's stateful kernels do; so the streams of ``uniform`` (float and
integer), ``normal``, ``uniform_full_int``, ``make_seeds`` and ``split`` equal TensorFlow's
bit for bit for the same state (``truncated_normal``'s rejection sampler assigns candidates
differently, see the StatelessTruncatedNormalV2 kernel). The counter's low word wraps without
carrying into the high word (after 2**56 draws of one element from one state, well past any use).
Draws are ordered by the state variable: eagerly in program order, in a tx.function by its
resource ordering, in a graph by control dependencies (each draw's result depends on its update).
"""

import os

import numpy as np

from tensorflux._src import context as _context
from tensorflux._src import dtypes as _dtypes
from tensorflux._src import graph as _graph
from tensorflux._src.constant_op import constant, convert_to_tensor
from tensorflux._src.eager_tensor import TENSOR_TYPES as _TENSORS
from tensorflux._src.generated import gen_ops
from tensorflux._src.random_ops import (_affine, _check_seed_tensor, _philox4x32, _shape_tensor,
                                        key_counter_from_seed, key_counter_tensors, static_seed)
from tensorflux._src.variables import Variable
from tensorflux._src.array_ops import identity, slice as slice_, stack, unstack
from tensorflux._src.math_ops import cast, multiply
from tensorflux._src.reduce_ops import reduce_prod
from tensorflux._src.shape_ops import zeros_like

__all__ = ["Algorithm", "Generator", "create_rng_state", "get_global_generator", "set_global_generator",
           "stateless_fold_in", "stateless_split"]

_STATE_SIZE = 3
_COUNTER_STRIDE = 256  # counter increment per drawn element, as TensorFlow's stateful kernels
_MASK64 = (1 << 64) - 1


class Algorithm:
    """Random algorithm ids (TensorFlow's values); only Philox is implemented."""

    PHILOX = 1
    AUTO_SELECT = 3


def _alg_id(alg):
    if alg is None:
        return Algorithm.PHILOX
    if isinstance(alg, str):
        named = {"philox": Algorithm.PHILOX, "auto_select": Algorithm.AUTO_SELECT}
        if alg.lower() not in named:
            raise ValueError("Unsupported random algorithm %r (supported: 'philox', 'auto_select')" % alg)
        alg = named[alg.lower()]
    alg = int(getattr(alg, "value", alg))
    if alg not in (Algorithm.PHILOX, Algorithm.AUTO_SELECT):
        raise ValueError("Unsupported random algorithm id %d (supported: 1 Philox, 3 auto-select)" % alg)
    return Algorithm.PHILOX


def _as_int64(word):
    word &= _MASK64
    return word - (1 << 64) if word >= 1 << 63 else word


def create_rng_state(seed, alg):
    """The initial state (an int64 array of shape [3]) for an integer seed or a list of integers:
    an int is split into 64-bit words, low first; missing words are 0 (TensorFlow's rule)."""
    _alg_id(alg)
    if isinstance(seed, (int, np.integer)):
        seed = int(seed)
        words = []
        for _ in range(_STATE_SIZE):
            words.append(seed & _MASK64)
            seed >>= 64
    else:
        words = [int(w) for w in np.asarray(seed).reshape(-1)][:_STATE_SIZE]
        words += [0] * (_STATE_SIZE - len(words))
    return np.array([_as_int64(w) for w in words], np.int64)


class Generator:
    """Random number generator with its state in a variable (Note [Generator state]).

    Build one with ``Generator.from_seed(seed)``, ``Generator.from_non_deterministic_state()`` or
    ``Generator.from_state(state, alg)``; draws advance the state."""

    def __init__(self, copy_from=None, state=None, alg=None):
        if copy_from is not None:
            if state is not None or alg is not None:
                raise ValueError("When copy_from is given, state and alg must be None.")
            state, alg = copy_from.state.read_value(), copy_from.algorithm
        if state is None:
            raise ValueError("Generator needs copy_from or state (use Generator.from_seed ...)")
        self._alg = _alg_id(alg)
        if not isinstance(state, _TENSORS):
            state = create_rng_state(state, self._alg)
        # Made inside a tx.function, the state is lifted out of it (as TensorFlow's variables are).
        lift = _context.init_scope() if _context.inside_function() and not isinstance(state, _TENSORS) \
            else _nullcontext()
        with lift:
            init = state if isinstance(state, _TENSORS) else np.asarray(state, np.int64)
            self._state_var = Variable(init, trainable=False, name="StateVar", dtype=_dtypes.int64)
        if self._state_var.shape.as_list() != [_STATE_SIZE]:
            raise ValueError("Generator state must have shape [%d], got %s" % (_STATE_SIZE, self._state_var.shape))

    @classmethod
    def from_seed(cls, seed, alg=None):
        """A generator whose state is made from the integer ``seed`` (create_rng_state)."""
        return cls(state=create_rng_state(seed, alg), alg=alg)

    @classmethod
    def from_state(cls, state, alg):
        """A generator starting at ``state`` (shape [3] int64)."""
        return cls(state=state, alg=alg)

    @classmethod
    def from_non_deterministic_state(cls, alg=None):
        """A generator seeded from the operating system's entropy source."""
        words = np.frombuffer(os.urandom(8 * _STATE_SIZE), np.int64).copy()
        return cls(state=words, alg=alg)

    @classmethod
    def from_key_counter(cls, key, counter, alg):
        """A generator with Philox ``key`` (an int) and ``counter`` (two ints, low first)."""
        counter = list(np.asarray(counter).reshape(-1))
        return cls(state=[int(counter[0]), int(counter[1]), int(key)], alg=alg)

    @property
    def state(self):
        """The state variable (int64, shape [3])."""
        return self._state_var

    @property
    def algorithm(self):
        """The algorithm id (1, Philox)."""
        return self._alg

    @property
    def key(self):
        """The Philox key (the state's last word)."""
        return self._state_var.read_value()[-1]

    def reset(self, state):
        """Sets the state to ``state`` (shape [3])."""
        self._state_var.assign(convert_to_tensor(state, dtype=_dtypes.int64))

    def reset_from_seed(self, seed):
        """Sets the state to the one ``from_seed(seed)`` starts at."""
        self.reset(create_rng_state(seed, self._alg))

    def skip(self, delta):
        """Advances the counter as ``delta`` drawn elements would."""
        self._advance(convert_to_tensor(int(delta) * _COUNTER_STRIDE, dtype=_dtypes.int64))

    def _advance(self, amount):
        zero = constant(np.int64(0))
        return self._state_var.assign_add(stack([amount, zero, zero]), read_value=False)

    def _draw(self, sample, shape, name):
        """sample(shape_tensor, key, counter, alg) drawn from the current state, which then moves on."""
        eager = _context.executing_eagerly()
        with _graph.name_scope(name) if not eager else _nullcontext():
            shape_t = _shape_tensor(shape)
            state = self._state_var.read_value()
            counter = cast(slice_(state, [0], [2]), _dtypes.uint64)
            key = cast(slice_(state, [2], [1]), _dtypes.uint64)
            out = sample(shape_t, key, counter, constant(np.int32(self._alg), name="alg"))
            count = cast(reduce_prod(shape_t), _dtypes.int64)
            if eager:
                self._advance(multiply(count, constant(np.int64(_COUNTER_STRIDE))))
                return out
            with _graph.control_dependencies([out]):
                update = self._advance(multiply(count, constant(np.int64(_COUNTER_STRIDE))))
            if update is None:  # a tx.function's eager state: its resource ordering sequences the draws
                return out
            with _graph.control_dependencies([update]):
                return identity(out)

    def uniform(self, shape, minval=0, maxval=None, dtype=_dtypes.float32, name=None):
        """Uniform values in [minval, maxval): floats (maxval defaults to 1) or integers (both
        bounds needed; both None draws the whole range, as uniform_full_int)."""
        dtype = _dtypes.as_dtype(dtype)
        if dtype.is_integer:
            if (minval is None) != (maxval is None):
                raise ValueError("For integer dtype {}, minval and maxval must be both `None` or both non-`None`; "
                                 "got minval={} and maxval={}".format(dtype.name, minval, maxval))
            if minval is None:
                return self.uniform_full_int(shape, dtype, name)
            lo = convert_to_tensor(minval, dtype=dtype, name="min")
            hi = convert_to_tensor(maxval, dtype=dtype, name="max")
            return self._draw(lambda s, k, c, a: gen_ops.stateless_random_uniform_int_v2(s, k, c, a, lo, hi),
                              shape, name or "stateful_uniform_int")
        if not dtype.is_floating:
            raise ValueError("uniform supports float and integer dtypes, got %s" % dtype.name)
        rnd = self._draw(lambda s, k, c, a: gen_ops.stateless_random_uniform_v2(s, k, c, a, dtype=dtype),
                         shape, name or "stateful_uniform")
        if maxval is None:
            maxval = 1
        if isinstance(minval, (int, float)) and isinstance(maxval, (int, float)) and (minval, maxval) == (0, 1):
            return rnd
        lo = convert_to_tensor(minval, dtype=dtype, name="min")
        hi = convert_to_tensor(maxval, dtype=dtype, name="max")
        return gen_ops.add_v2(gen_ops.mul(rnd, gen_ops.sub(hi, lo)), lo)

    def uniform_full_int(self, shape, dtype=_dtypes.uint64, name=None):
        """Integers over the whole range of ``dtype`` (int32, int64, uint32, uint64)."""
        dtype = _dtypes.as_dtype(dtype)
        return self._draw(lambda s, k, c, a: gen_ops.stateless_random_uniform_full_int_v2(s, k, c, a, dtype=dtype),
                          shape, name or "stateful_uniform_full_int")

    def normal(self, shape, mean=0.0, stddev=1.0, dtype=_dtypes.float32, name=None):
        """Normal values N(mean, stddev**2)."""
        dtype = _dtypes.as_dtype(dtype)
        rnd = self._draw(lambda s, k, c, a: gen_ops.stateless_random_normal_v2(s, k, c, a, dtype=dtype),
                         shape, name or "stateful_normal")
        return _affine(rnd, stddev, mean, dtype)

    def truncated_normal(self, shape, mean=0.0, stddev=1.0, dtype=_dtypes.float32, name=None):
        """Normal values redrawn until within two standard deviations of the mean."""
        dtype = _dtypes.as_dtype(dtype)
        rnd = self._draw(lambda s, k, c, a: gen_ops.stateless_truncated_normal_v2(s, k, c, a, dtype=dtype),
                         shape, name or "stateful_truncated_normal")
        return _affine(rnd, stddev, mean, dtype)

    def make_seeds(self, count=1):
        """``count`` seeds for the stateless ops: an int64 tensor of shape [2, count] (row 1 zeros,
        as TensorFlow: the stateless ops scramble the pair, so one random word suffices)."""
        keys = self.uniform_full_int([count], _dtypes.int64)
        return stack([keys, zeros_like(keys)])

    def split(self, count=1):
        """``count`` new generators, each keyed by a word drawn from this one (state [0, 0, key])."""
        keys = self.uniform_full_int([count], _dtypes.int64)
        zero = constant(np.int64(0))
        return [Generator(state=stack([zero, zero, k]), alg=self._alg) for k in unstack(keys, num=count)]


class _nullcontext:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


_global_generator = [None]


def get_global_generator():
    """The process's global generator, created from non-deterministic state on first use."""
    if _global_generator[0] is None:
        _global_generator[0] = Generator.from_non_deterministic_state()
    return _global_generator[0]


def set_global_generator(generator):
    """Replaces the global generator (tx.functions that captured the old one keep using it)."""
    if not isinstance(generator, Generator):
        raise TypeError("set_global_generator expects a Generator, got %r" % (generator,))
    _global_generator[0] = generator


def _seed_words(seed):
    arr = np.asarray(seed)
    if arr.shape != (2,) or arr.dtype.kind not in "iu":
        raise ValueError("seed must be a shape-[2] integer value, got %r" % (seed,))
    if isinstance(seed, (list, tuple)) and np.all(np.abs(arr) < 2**31):
        arr = arr.astype(np.int32)  # Python ints convert to int32 when they fit, as for tensors
    return arr


def _full_int_words(seed, n, dtype):
    """The first n values of the full-range integer stream of ``seed`` (stateless_random_uniform_full_int)."""
    key, counter = key_counter_from_seed(seed)
    k = int(key[0])
    out = []
    block = 0
    c_lo, c_hi = int(counter[0]), int(counter[1])
    while len(out) < n:
        lo = (c_lo + block) & _MASK64
        hi = (c_hi + ((c_lo + block) >> 64)) & _MASK64
        w = _philox4x32([lo & 0xFFFFFFFF, lo >> 32, hi & 0xFFFFFFFF, hi >> 32], [k & 0xFFFFFFFF, k >> 32])
        if np.dtype(dtype).itemsize == 4:
            out.extend(w)
        else:
            out.extend([w[0] | w[1] << 32, w[2] | w[3] << 32])
        block += 1
    return np.array(out[:n], np.uint64 if np.dtype(dtype).itemsize == 8 else np.uint32).view(dtype)


def _runtime_full_ints(seed, shape, dtype):
    """The first values of ``seed``'s full-range integer stream of ``dtype``, computed in the engine
    (a seed known only at run time: Note [Stateless seeds])."""
    key, counter = key_counter_tensors(_check_seed_tensor(seed))
    return gen_ops.stateless_random_uniform_full_int_v2(_shape_tensor(shape), key, counter,
                                                        constant(np.int32(1), name="alg"), dtype=dtype)


def stateless_split(seed, num=2):
    """``num`` new seeds (shape [num, 2], the seed's dtype) derived from ``seed`` (shape [2]), as
    tf.random.experimental.stateless_split; ``seed`` may be computed at run time.

    >>> tx.random.experimental.stateless_split([1, 2], num=3).shape
    TensorShape([3, 2])
    """
    if static_seed(seed) is None:
        return _runtime_full_ints(seed, [int(num), 2], seed.dtype)
    arr = _seed_words(static_seed(seed))
    dtype = np.int64 if arr.dtype.itemsize == 8 else np.int32
    return constant(_full_int_words(arr, 2 * int(num), dtype).reshape(int(num), 2))


def stateless_fold_in(seed, data):
    """A new seed from ``seed`` (shape [2]) and the integer ``data``, as
    tf.random.experimental.stateless_fold_in: [first full-range value of seed's stream, data], in
    data's dtype (int32 for a Python int that fits); ``seed`` and ``data`` may be computed at run
    time."""
    if static_seed(seed) is None or (isinstance(data, _TENSORS) and static_seed(data) is None):
        seed = seed if isinstance(seed, _TENSORS) else convert_to_tensor(_seed_words(seed))
        data = data if isinstance(data, _TENSORS) else convert_to_tensor(data)
        if data.dtype not in (_dtypes.int32, _dtypes.int64):
            raise ValueError("stateless_fold_in: data must be an int32 or int64 scalar, got %s" % data.dtype.name)
        first = _runtime_full_ints(seed, [1], data.dtype)
        return gen_ops.concat_v2([first, gen_ops.reshape(data, constant(np.array([1], np.int32)))],
                                 constant(np.int32(0)))
    arr = _seed_words(static_seed(seed))
    if isinstance(data, _TENSORS):
        dtype = np.int64 if data.dtype == _dtypes.int64 else np.int32
        data = _seed_words_scalar(data)
    else:
        data = int(data)
        dtype = np.int32 if -2**31 <= data < 2**31 else np.int64
    first = _full_int_words(arr, 1, dtype)[0]
    return constant(np.array([first, data], dtype))


def _seed_words_scalar(t):
    if hasattr(t, "numpy"):
        return int(t.numpy())
    if t.op.type == "Const":
        return int(t.op.get_attr("value"))
    raise TypeError("stateless_fold_in needs a known data value; %s is computed at run time" % t.name)
