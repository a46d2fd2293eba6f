"""The same pipelines written once for tensorflux-data and for tf.data: ``build(D, T)`` takes the
Dataset class and the tensor module (txd.Dataset and tx, or tf.data.Dataset and tf). Every
transformation of the package appears in at least one."""

import atexit
import os
import shutil
import tempfile

import numpy as np

_CACHE_DIR = tempfile.mkdtemp(prefix="txd-pipelines-")
atexit.register(shutil.rmtree, _CACHE_DIR, True)


def _cache_prefix(D, name):
    """A file cache prefix per process, per pipeline and per library (tf.data's files are not ours):
    the first iteration in a process writes the cache, later ones read it."""
    return os.path.join(_CACHE_DIR, "%s-%s" % (D.__module__.split(".")[0], name))


def _spec(T, shape, dtype):
    return T.TensorSpec(shape, dtype)


def _gen():
    for i in range(7):
        yield i, [i, -i]


# Python functions for tx.py_function / tf.py_function (each library hands them its eager tensors):
# their outputs are of unknown shape (Note [Unknown ranks] in _batch.py).
def _twice(x):
    return x.numpy() * 2


def _ramp(x):
    return np.arange(x.numpy() % 4, dtype=np.int64)


def _rows(x):
    return np.arange(6, dtype=np.int64).reshape(2, 3) + x.numpy()


def _twice_and_text(x):
    return [x.numpy() * 2, b"n%d" % x.numpy()]


def _checked_reciprocal(x):
    if x.numpy() == 0:
        raise ValueError("not finite")
    return np.float32(1.0) / x.numpy()


def _py(D, T, fn, dtypes, n=7):
    """range(n) mapped by ``T.py_function(fn)`` of output types ``dtypes``."""
    return D.range(n).map(lambda x: T.py_function(fn, [x], dtypes))


PIPELINES = {
    "from_tensor_slices": lambda D, T: D.from_tensor_slices((np.arange(10), np.arange(10.0) * 2)),
    "from_tensors": lambda D, T: D.from_tensors(np.arange(3, dtype=np.int32)).repeat(3),
    "range": lambda D, T: D.range(3, 20, 4),
    "from_generator": lambda D, T: D.from_generator(_gen, output_signature=(_spec(T, [], T.int64),
                                                                             _spec(T, [2], T.int64))),
    "map": lambda D, T: D.range(20).map(lambda x: x * x + 1),
    "map_parallel": lambda D, T: D.range(40).map(lambda x: (x, T.cast(x, T.float32) / 3.0), num_parallel_calls=4),
    "filter": lambda D, T: D.range(30).filter(lambda x: x % 3 == 0),
    "batch": lambda D, T: D.range(23).batch(5),
    "batch_drop_remainder": lambda D, T: D.range(23).batch(5, drop_remainder=True),
    "batch_parallel": lambda D, T: D.range(23).map(lambda x: (x * 2, T.strings.as_string(x))).batch(
        5, num_parallel_calls=3),
    "padded_batch": lambda D, T: D.range(1, 9).map(lambda x: T.range(x)).padded_batch(3),
    "unbatch": lambda D, T: D.range(12).batch(5).unbatch(),
    "repeat": lambda D, T: D.range(4).repeat(3),
    "take": lambda D, T: D.range(10).take(4),
    "skip": lambda D, T: D.range(10).skip(4),
    "take_while": lambda D, T: D.range(10).take_while(lambda x: x < 6),
    "prefetch": lambda D, T: D.range(50).map(lambda x: x * 2).prefetch(4),
    "zip": lambda D, T: D.zip((D.range(5), D.range(10, 20).map(lambda x: T.cast(x, T.float32)))),
    "concatenate": lambda D, T: D.range(3).concatenate(D.range(10, 14)),
    "choose_from_datasets": lambda D, T: D.choose_from_datasets(
        [D.range(4), D.range(10, 13).map(lambda x: x * 2), D.range(20, 30)],
        D.from_tensor_slices(np.array([0, 1, 1, 2, 0, 1, 1, 0, 2, 2], np.int64))),
    "choose_until_all_ended": lambda D, T: D.choose_from_datasets(  # an infinite choice dataset
        [D.range(3), D.range(10, 12)], D.from_tensor_slices(np.array([0, 1, 1], np.int64)).repeat(),
        stop_on_empty_dataset=False),
    "counter": lambda D, T: D.counter(3, 2).take(5),
    "rebatch": lambda D, T: D.range(9).batch(4).rebatch([2, 1, 1]),
    "rebatch_dropping": lambda D, T: D.range(10).batch(4).map(lambda x: (x, T.strings.as_string(x))).rebatch(
        3, drop_remainder=True),
    "rebatch_empty_batches": lambda D, T: D.range(6).batch(3).rebatch([0, 2]),
    "unique": lambda D, T: D.from_tensor_slices(np.array([3, 1, 3, 2, 1, 5, 2], np.int64)).unique(),
    "unique_string_rows": lambda D, T: D.from_tensor_slices(
        np.array([[b"a", b"b"], [b"a", b""], [b"a", b"b"]])).unique(),
    "random": lambda D, T: D.random(seed=5).take(9),
    "random_rerandomized": lambda D, T: D.random(seed=6, rerandomize_each_iteration=True).take(3).repeat(3),
    "sample_from_datasets": lambda D, T: D.sample_from_datasets([D.range(10), D.range(100, 105)], weights=[0.3, 0.7],
                                                                seed=9),
    "sample_from_datasets_stopping": lambda D, T: D.sample_from_datasets(
        [D.range(4), D.range(10, 30), D.range(50, 60)], weights=[0.4, 0.0, 0.6], seed=2, stop_on_empty_dataset=True),
    "sample_from_weights_dataset": lambda D, T: D.sample_from_datasets(
        [D.range(8), D.range(100, 108)], weights=D.from_tensor_slices(np.array([[0.9, 0.1], [0.1, 0.9]])).repeat(),
        seed=4),
    "choose_from_datasets_skipping": lambda D, T: D.choose_from_datasets(
        [D.range(2), D.range(10, 13)], D.from_tensor_slices(np.array([0, 0, 0, 1, 0, 1, 1, 1, 0], np.int64)),
        stop_on_empty_dataset=False),
    "enumerate": lambda D, T: D.from_tensor_slices(np.array([5.0, 6.0, 7.0])).enumerate(3),
    "shard": lambda D, T: D.range(17).shard(4, 1),
    "window": lambda D, T: D.range(10).window(3, shift=2, drop_remainder=True).flat_map(lambda w: w.batch(3)),
    "scan": lambda D, T: D.range(10).scan(np.int64(0), lambda s, x: (s + x, s * 2)),
    "apply": lambda D, T: D.range(10).apply(lambda ds: ds.map(lambda x: x + 1)),
    "ignore_errors": lambda D, T: D.from_tensor_slices(np.array([1.0, 0.0, 2.0, 4.0])).map(
        lambda x: T.debugging.check_numerics(1.0 / x, "not finite")).ignore_errors(),
    "cache": lambda D, T: D.range(6).map(lambda x: x * 3).cache().repeat(2),
    "cache_file": lambda D, T: D.range(6).map(lambda x: x * 3).cache(_cache_prefix(D, "cache_file")).repeat(2),
    "cache_file_strings": lambda D, T: D.from_tensor_slices((np.array([b"ab", b"", b"x\x00yz"]),
                                                            np.arange(6.0).reshape(3, 2))).cache(
        _cache_prefix(D, "cache_file_strings")).batch(2).repeat(2),
    "interleave": lambda D, T: D.range(1, 6).interleave(lambda x: D.from_tensors(x).repeat(x), cycle_length=2,
                                                        block_length=2),
    "interleave_parallel": lambda D, T: D.from_tensor_slices(np.array([3, 0, 5, 1, 0, 4, 2], np.int64)).interleave(
        lambda x: D.range(x * 10, x * 10 + x), cycle_length=4, block_length=2, num_parallel_calls=3),
    "interleave_parallel_nested": lambda D, T: D.range(1, 6).interleave(
        lambda x: D.range(x).map(lambda v: v * 100 + x, num_parallel_calls=2).prefetch(1), cycle_length=3,
        block_length=2, num_parallel_calls=T.data.AUTOTUNE),
    "dict_elements": lambda D, T: D.from_tensor_slices({"a": np.arange(4), "b": np.arange(4.0)}).map(
        lambda d: {"s": d["a"] * 2, "t": d["b"] + 0.5}),
    "map_then_batch": lambda D, T: D.from_tensor_slices(np.arange(60, dtype=np.float32).reshape(20, 3)).map(
        lambda x: x * 2.0 + 1.0).batch(6),
    "map_then_batch_tuples": lambda D, T: D.from_tensor_slices((np.arange(18.0).reshape(9, 2), -np.arange(9.0))).map(
        lambda x, y: (T.maximum(x, 3.0), T.cast(y, T.int32))).batch(
        4, drop_remainder=True),
    "range_map_then_batch": lambda D, T: D.range(23).map(lambda x: x * 3 - 1).batch(5),
    "group_by_window": lambda D, T: D.range(23).group_by_window(
        lambda x: x % 3, lambda key, w: w.batch(4).map(lambda b: (key, b)), window_size=4),
    "bucket_by_sequence_length": lambda D, T: D.range(1, 15).map(lambda n: T.range(n)).bucket_by_sequence_length(
        lambda x: T.shape(x)[0], [4, 9], [3, 2, 2]),
    "strings": lambda D, T: D.from_tensor_slices(np.array([b"ab", b"", b"xyz"])).repeat(2).batch(4),
    "map_parallel_errors": lambda D, T: _reciprocals(D, T, num_parallel_calls=3).ignore_errors(),
    "prefetch_errors": lambda D, T: _reciprocals(D, T).prefetch(3).ignore_errors(),
    "py_function_map": lambda D, T: _py(D, T, _twice, T.int64),
    "py_function_map_batch": lambda D, T: _py(D, T, _twice, T.int64).batch(3),
    "py_function_map_batch_drop_remainder": lambda D, T: _py(D, T, _twice, T.int64).batch(2, drop_remainder=True),
    "py_function_map_prefetch_batch": lambda D, T: _py(D, T, _twice, T.int64).prefetch(2).batch(3),
    "py_function_map_filter": lambda D, T: _py(D, T, _twice, T.int64, 12).filter(lambda x: x % 3 == 0),
    "py_function_map_padded_batch": lambda D, T: _py(D, T, _ramp, T.int64, 9).padded_batch(3, padded_shapes=[None]),
    "py_function_map_padded_batch_fixed": lambda D, T: _py(D, T, _ramp, T.int64, 9).padded_batch(
        2, padded_shapes=[5], padding_values=np.int64(-1), drop_remainder=True),
    "py_function_map_unbatch": lambda D, T: _py(D, T, _rows, T.int64, 4).unbatch(),
    "py_function_map_rebatch": lambda D, T: _py(D, T, _rows, T.int64, 4).rebatch(3),
    "py_function_map_window": lambda D, T: _py(D, T, _twice, T.int64).window(3, shift=2).flat_map(
        lambda w: w.batch(3)),
    "py_function_several_outputs": lambda D, T: _py(D, T, _twice_and_text, [T.int64, T.string]).map(
        lambda a, b: {"a": a, "b": b}, num_parallel_calls=2).batch(4),
}


def _reciprocals(D, T, values=(1.0, 0.0, 2.0, 4.0, 0.0, 5.0, 8.0, 0.5, 0.0, 10.0), **map_args):
    """1/x of ``values``: an error (check_numerics "not finite") where x is 0."""
    return D.from_tensor_slices(np.array(values, np.float32)).map(
        lambda x: T.debugging.check_numerics(1.0 / x, "not finite"), **map_args)


def _py_reciprocals(D, T, values, **map_args):
    """1/x of ``values`` computed by a py_function raising ValueError("not finite") where x is 0 (an
    InvalidArgumentError at that element in both libraries)."""
    return D.from_tensor_slices(np.array(values, np.float32)).map(
        lambda x: T.py_function(_checked_reciprocal, [x], T.float32), **map_args)


def _unfused(D, ds):
    """``ds`` without map-and-batch fusion (tf.data's and ours: Note [Batch errors])."""
    o = type(ds.options())()
    o.experimental_optimization.map_and_batch_fusion = False
    return ds.with_options(o)


def _reciprocal_sequences(D, T, n):
    """n = 1..: the dataset 1/(v - n) for v in 0..3, an error where v == n."""
    return D.range(4).map(lambda v: T.debugging.check_numerics(1.0 / T.cast(v - n, T.float32), "not finite"))


_MID = (1.0, 0.0, 2.0, 0.0, 4.0, 5.0, 0.0, 8.0, 10.0)  # errors before the end of batches of 4
_LAST = (1.0, 2.0, 4.0, 5.0, 8.0, 0.0, 10.0)  # an error in the final partial batch of 3

# Pipelines raising errors mid-sequence; an iterator goes on after each. Compared with tf.data
# element by element (test_errors_like_tf.py; SHUFFLED ones by error positions and values), in
# debug mode, and across restores at every position.
ERRORS = {
    "map_errors": lambda D, T: _reciprocals(D, T),
    "rebatch_errors": lambda D, T: _reciprocals(D, T).batch(2).rebatch([3, 1]),
    "unique_errors": lambda D, T: _reciprocals(D, T, (1.0, 0.0, 1.0, 0.5, 0.0, 2.0, 0.5)).map(
        lambda x: T.cast(x, T.int64)).unique(),
    "map_parallel_errors": lambda D, T: _reciprocals(D, T, num_parallel_calls=3),
    "prefetch_errors": lambda D, T: _reciprocals(D, T).prefetch(3),
    "map_parallel_prefetch_errors": lambda D, T: _reciprocals(D, T, num_parallel_calls=2).prefetch(2),
    "fused_batch_errors": lambda D, T: _reciprocals(D, T, (1.0, 2.0, 4.0, 5.0, 0.0, 8.0, 0.5, 0.0, 10.0, 3.0)).batch(3),
    "fused_batch_mid_errors": lambda D, T: _reciprocals(D, T, _MID).batch(4),
    "unfused_batch_mid_errors": lambda D, T: _unfused(D, _reciprocals(D, T, _MID).batch(4)),
    "fused_batch_pairs_errors": lambda D, T: _reciprocals(D, T, (1.0, 2.0, 4.0, 0.0, 5.0, 8.0)).batch(2),
    "unfused_batch_pairs_errors": lambda D, T: _unfused(D, _reciprocals(D, T, (1.0, 2.0, 4.0, 0.0, 5.0, 8.0)).batch(2)),
    "fused_batch_drop_remainder_errors": lambda D, T: _reciprocals(D, T, _MID).batch(4, drop_remainder=True),
    "unfused_batch_drop_remainder_errors": lambda D, T: _unfused(D, _reciprocals(D, T, _MID).batch(
        4, drop_remainder=True)),
    "fused_batch_final_partial_errors": lambda D, T: _reciprocals(D, T, _LAST).batch(3),
    "unfused_batch_final_partial_errors": lambda D, T: _unfused(D, _reciprocals(D, T, _LAST).batch(3)),
    "batch_final_partial_drop_remainder_errors": lambda D, T: _reciprocals(D, T, _LAST).batch(3, drop_remainder=True),
    "map_parallel_batch_errors": lambda D, T: _reciprocals(D, T, _MID, num_parallel_calls=3).batch(4),
    "unfused_map_parallel_batch_errors": lambda D, T: _unfused(D, _reciprocals(D, T, _MID, num_parallel_calls=3).batch(
        4)),
    "parallel_batch_errors": lambda D, T: _reciprocals(D, T, _MID).batch(4, num_parallel_calls=2),
    "map_map_batch_errors": lambda D, T: _reciprocals(D, T, _MID).map(lambda y: y * 2.0).batch(4),
    "prefetch_batch_errors": lambda D, T: _reciprocals(D, T, _MID).prefetch(2).batch(4),
    "map_noops_batch_errors": lambda D, T: _reciprocals(D, T, _MID).take(-1).skip(0).repeat(1).batch(4),
    "padded_batch_errors": lambda D, T: D.from_tensor_slices(np.array(_MID, np.float32)).map(
        lambda x: T.debugging.check_numerics(T.fill([T.cast(x, T.int32) % 3 + 1], 1.0 / x), "not finite")).padded_batch(
        3),
    "unbatch_errors": lambda D, T: _reciprocals(D, T, _MID).batch(4).unbatch(),
    "window_errors": lambda D, T: _reciprocals(D, T, (1.0, 2.0, 0.0, 4.0, 5.0, 8.0, 10.0, 0.5)).window(
        3, shift=2).flat_map(lambda w: w.batch(3)),
    "window_stride_drop_remainder_errors": lambda D, T: _reciprocals(D, T, (1.0, 2.0, 0.0, 4.0, 5.0, 0.0, 10.0, 0.5,
                                                                            3.0)).window(
        3, shift=1, stride=2, drop_remainder=True).flat_map(lambda w: w.batch(3)),
    "window_shift_past_errors": lambda D, T: _reciprocals(D, T, (1.0, 0.0, 2.0, 4.0, 0.0, 5.0, 8.0, 0.0, 3.0)).window(
        2, shift=3).flat_map(lambda w: w.batch(2)),
    "group_by_window_errors": lambda D, T: _reciprocals(D, T, _MID).group_by_window(
        lambda x: T.cast(x > 0.3, T.int64), lambda k, w: w.batch(2), window_size=2),
    "group_by_window_batch_errors": lambda D, T: D.from_tensor_slices(np.array(_MID, np.float32)).group_by_window(
        lambda x: T.cast(x > 3.0, T.int64), lambda k, w: w.map(
            lambda x: T.debugging.check_numerics(1.0 / x, "not finite")).batch(2), window_size=3),
    "bucket_by_sequence_length_errors": lambda D, T: D.from_tensor_slices(np.array(
        (1.0, 2.0, 0.0, 4.0, 5.0, 3.0, 0.0, 2.0, 1.0, 6.0), np.float32)).map(
        lambda x: T.debugging.check_numerics(T.fill([T.cast(x, T.int32) % 4 + 1], 1.0 / x), "not finite")
    ).bucket_by_sequence_length(lambda x: T.shape(x)[0], [3], [2, 2]),
    "scan_errors": lambda D, T: _reciprocals(D, T, _MID).scan(np.float32(0.0), lambda s, x: (s + x, s)),
    "take_while_errors": lambda D, T: _reciprocals(D, T, _MID).take_while(lambda x: x > 0.15),
    "filter_errors": lambda D, T: _reciprocals(D, T, _MID).filter(lambda x: x < 0.9),
    "shuffle_errors": lambda D, T: _reciprocals(D, T).shuffle(4, seed=1),
    "zip_errors": lambda D, T: D.zip((_reciprocals(D, T, _MID), _reciprocals(D, T, (1.0, 0.0, 2.0, 4.0, 0.0, 5.0)))),
    "enumerate_errors": lambda D, T: _reciprocals(D, T, _MID).enumerate(5),
    "choose_errors": lambda D, T: D.choose_from_datasets(
        [_reciprocals(D, T, _MID), _reciprocals(D, T, _LAST)], D.from_tensor_slices(np.array([0, 1] * 8, np.int64))),
    "concatenate_errors": lambda D, T: _reciprocals(D, T, (1.0, 2.0, 0.0)).concatenate(_reciprocals(
        D, T, (4.0, 0.0, 8.0))).batch(2),
    "skip_take_errors": lambda D, T: _reciprocals(D, T, (1.0, 2.0, 0.0, 4.0, 0.0, 0.0, 8.0, 10.0, 0.5)).skip(3).take(3),
    "interleave_errors": lambda D, T: D.range(1, 4).interleave(lambda n: _reciprocal_sequences(D, T, n),
                                                               cycle_length=2, block_length=2),
    "interleave_parallel_errors": lambda D, T: D.range(1, 4).interleave(
        lambda n: _reciprocal_sequences(D, T, n), cycle_length=2, block_length=2, num_parallel_calls=2),
    "interleave_parallel_block_errors": lambda D, T: D.range(1, 4).interleave(
        lambda n: _reciprocal_sequences(D, T, n), cycle_length=3, block_length=1, num_parallel_calls=3),
    "interleave_input_errors": lambda D, T: _reciprocals(D, T, (1.0, 0.0, 2.0, 4.0)).interleave(
        lambda v: D.from_tensors(v).repeat(3), cycle_length=2, block_length=2),
    "interleave_parallel_input_errors": lambda D, T: _reciprocals(D, T, (1.0, 0.0, 2.0, 4.0)).interleave(
        lambda v: D.from_tensors(v).repeat(3), cycle_length=2, block_length=2, num_parallel_calls=2),
    "interleave_batch_errors": lambda D, T: D.range(2).interleave(lambda n: _reciprocals(D, T, _MID).batch(4),
                                                                  cycle_length=2),
    "cache_repeat_errors": lambda D, T: _reciprocals(D, T, _MID).cache().repeat(2),
    "repeat_batch_errors": lambda D, T: _unfused(D, _reciprocals(D, T, _LAST).repeat(2).batch(3)),
    "batch_repeat_errors": lambda D, T: _reciprocals(D, T, _LAST).batch(3).repeat(2),
    "py_function_errors": lambda D, T: _py_reciprocals(D, T, _MID, num_parallel_calls=2),
    "py_function_batch_errors": lambda D, T: _py_reciprocals(D, T, _MID).batch(4),
    "py_function_unfused_batch_errors": lambda D, T: _unfused(D, _py_reciprocals(D, T, _MID).batch(4)),
}

# Error pipelines whose order is random: compared with tf.data by error positions and values alone.
SHUFFLED = {"shuffle_errors"}

# Pipelines whose order is random: compared with themselves (seeded), never with TensorFlow's RNG.
RANDOM = {
    "shuffle": lambda D, T: D.range(40).shuffle(8, seed=3),
    "shuffle_repeat": lambda D, T: D.range(10).shuffle(4, seed=5).repeat(3).batch(4),
    "global_shuffle": lambda D, T: D.from_tensor_slices(np.arange(37) * 3).global_shuffle(seed=4).repeat(2),
    "shuffle_no_reshuffle": lambda D, T: D.range(10).shuffle(10, seed=5, reshuffle_each_iteration=False).repeat(2),
    "shuffle_file_cache": lambda D, T: D.range(10).shuffle(10, seed=5).cache(
        _cache_prefix(D, "shuffle_file_cache")).repeat(2),
}


def flat_values(nest, element):
    """An element as a list of NumPy arrays (the given nest module flattens it)."""
    out = []
    for v in nest.flatten(element):
        out.append(np.asarray(v.numpy() if hasattr(v, "numpy") else v))
    return out


def assert_same_elements(got, want):
    assert len(got) == len(want), (len(got), len(want))
    for i, (g, w) in enumerate(zip(got, want)):
        assert len(g) == len(w), i
        for a, b in zip(g, w):
            assert a.dtype == b.dtype and a.shape == b.shape, (i, a.dtype, b.dtype, a.shape, b.shape)
            np.testing.assert_array_equal(a, b, err_msg="element %d" % i)

def outcomes(nest, error_class, it, limit=None):
    """What iterator ``it`` yields until its end (or ``limit`` outcomes): ("value", [lists]) per
    element and ("error", class, message) per ``error_class`` raised, going on after each error."""
    out = []
    while limit is None or len(out) < limit:
        try:
            out.append(("value", [a.tolist() for a in flat_values(nest, next(it))]))
        except StopIteration:
            break
        except error_class as e:
            out.append(("error", type(e), e.message))
    return out


def kinds(results):
    """``outcomes`` with each error as its class alone (messages name the traced function, which
    differs between pipeline builds and between the fast and debug modes)."""
    return [r[:2] for r in results]


# Random ops inside a map function: per-element seeds make them deterministic (Note [Element seeds]).
SEEDED = {
    "map_random": lambda D, T: D.range(64).map(lambda x: T.cast(x, T.float32) + T.random.uniform([3]),
                                               num_parallel_calls=8),
    "map_random_shuffle_batch": lambda D, T: D.range(50).shuffle(16, seed=2).map(
        lambda x: (x, T.random.normal([2]) * T.random.truncated_normal([])), num_parallel_calls=4).batch(7),
    "map_random_samplers": lambda D, T: D.range(40).map(
        lambda x: (T.random.shuffle(T.range(8) + T.cast(x, T.int32)), T.random.gamma([2], [0.5, 3.0]),
                   T.random.poisson([3], 4.0, dtype=T.int64), T.random.categorical([[0.0, 1.0, 2.0]], 4),
                   T.image.random_flip_left_right(T.reshape(T.range(12), [2, 3, 2])),
                   T.image.random_hue(T.fill([2, 2, 3], 0.5), 0.2)), num_parallel_calls=8).batch(3),
}
RANDOM.update(SEEDED)

_ROWS = np.arange(120, dtype=np.float32).reshape(40, 3)

# Shuffles in chains the native engine runs (Note [Native shuffle]): buffers filling, refilling and
# draining, parallel maps below and above, read-ahead above (batch, prefetch), two in one chain,
# a buffer larger than the input, and a repeat above (an order per epoch).
NATIVE_SHUFFLES = {
    "shuffle_map_batch": lambda D, T: D.from_tensor_slices(_ROWS).shuffle(16, seed=7).map(
        lambda x: x * 2.0 + 1.0).batch(6),
    "shuffle_parallel_map_batch_prefetch": lambda D, T: D.from_tensor_slices(
        (np.arange(50), np.arange(50.0) / 4)).shuffle(12, seed=8).map(
        lambda i, v: (i * 3, T.sin(v)), num_parallel_calls=4).batch(4).prefetch(3),
    "parallel_map_shuffle_batch": lambda D, T: D.range(45).map(lambda x: x * x, num_parallel_calls=3).shuffle(
        9, seed=9).batch(5),
    "shuffle_larger_than_input": lambda D, T: D.range(10).shuffle(64, seed=10).map(lambda x: x + 1),
    "shuffle_filter_prefetch": lambda D, T: D.range(60).shuffle(7, seed=11).filter(lambda x: x % 3 != 0).prefetch(2),
    "shuffle_twice": lambda D, T: D.range(50).shuffle(8, seed=12).map(lambda x: x * 2).shuffle(5, seed=13).batch(4),
    "shuffle_map_repeat": lambda D, T: D.range(12).shuffle(5, seed=14).map(lambda x: x * 10).repeat(3),
    "shuffle_one": lambda D, T: D.range(9).shuffle(1, seed=15).map(lambda x: -x),
}
RANDOM.update(NATIVE_SHUFFLES)


_RECORD_COUNTS = (7, 0, 3, 12, 5, 1, 9)  # records per file: an empty file, short and long ones


def record_files():
    """TFRecord files of _RECORD_COUNTS records each (b"file-record"), written once per process."""
    import tensorflux_data as txd
    paths = [os.path.join(_CACHE_DIR, "records-%d.tfrecord" % f) for f in range(len(_RECORD_COUNTS))]
    if not os.path.exists(paths[-1]):
        for f, (path, n) in enumerate(zip(paths, _RECORD_COUNTS)):
            with txd.io.TFRecordWriter(path + ".tmp") as w:
                for r in range(n):
                    w.write(b"%d-%d" % (f, r))
            os.replace(path + ".tmp", path)
    return paths


def tfrecord_class(D):
    """TFRecordDataset of the library whose Dataset class is ``D``."""
    if D.__module__.startswith("tensorflow"):
        import tensorflow as tf
        return tf.data.TFRecordDataset
    import tensorflux_data as txd
    return txd.TFRecordDataset


def interleave_records(D, cycle_length, block_length, **kwargs):
    """The records of record_files() read by interleave(lambda f: TFRecordDataset(f), ...)."""
    records = tfrecord_class(D)
    return D.from_tensor_slices(record_files()).interleave(lambda f: records(f), cycle_length=cycle_length,
                                                           block_length=block_length, **kwargs)


def mapped_records(D, inner, cycle_length, block_length, **kwargs):
    """The records of record_files() read by interleave(lambda f: inner(TFRecordDataset(f)), ...)."""
    records = tfrecord_class(D)
    return D.from_tensor_slices(record_files()).interleave(lambda f: inner(records(f)), cycle_length=cycle_length,
                                                           block_length=block_length, **kwargs)


# Interleaves of TFRecord files in chains the native engine runs (Note [Native interleave]): cycles
# shorter and longer than the file count, blocks longer than files, the parallel deterministic
# interleave, list_files, and the training chain's shuffle, batch, map and prefetch above.
NATIVE_INTERLEAVES = {
    "interleave_records_c3_b2": lambda D, T: interleave_records(D, 3, 2),
    "interleave_records_c1_b1": lambda D, T: interleave_records(D, 1, 1).map(T.strings.length),
    "interleave_records_c10_b4_batch": lambda D, T: interleave_records(D, 10, 4).batch(5),
    "interleave_records_parallel_batch_map": lambda D, T: interleave_records(D, 4, 1, num_parallel_calls=4).batch(
        3).map(T.strings.length),
    "interleave_records_list_files_prefetch": lambda D, T: D.list_files(
        os.path.join(os.path.dirname(record_files()[0]), "records-*.tfrecord"), shuffle=False).interleave(
        lambda f: tfrecord_class(D)(f), cycle_length=2, block_length=3, num_parallel_calls=T.data.AUTOTUNE,
        deterministic=True).prefetch(2),
    "interleave_records_shuffle_batch_map": lambda D, T: interleave_records(D, 3, 1, num_parallel_calls=2).shuffle(
        10, seed=21).batch(4).map(T.strings.length),
    # Inner chains over each file (Note [Native interleave]): a map, a map and filter batched inside,
    # a map and filter in a parallel interleave (AUTOTUNE), an inner parallel map in a parallel
    # interleave, list_files with a batch inside and outside.
    "interleave_mapped_records_c3_b2": lambda D, T: mapped_records(D, lambda r: r.map(T.strings.length), 3, 2),
    "interleave_mapped_filtered_batched_c2_b1": lambda D, T: mapped_records(
        D, lambda r: r.map(lambda x: (x, T.strings.length(x))).filter(
            lambda x, n: T.strings.regex_full_match(x, ".*[13579]")).batch(2), 2, 1),
    "interleave_mapped_parallel_filter_c3_b2": lambda D, T: mapped_records(
        D, lambda r: r.map(lambda x: (x, T.strings.length(x))).filter(
            lambda x, n: T.strings.regex_full_match(x, ".*[02468]")), 3, 2, num_parallel_calls=T.data.AUTOTUNE),
    "interleave_mapped_parallel_c4_b3": lambda D, T: mapped_records(
        D, lambda r: r.map(T.strings.length, num_parallel_calls=2).batch(3), 4, 3, num_parallel_calls=4),
    "interleave_mapped_list_files_batch": lambda D, T: D.list_files(
        os.path.join(os.path.dirname(record_files()[0]), "records-*.tfrecord"), shuffle=False).interleave(
        lambda f: tfrecord_class(D)(f).batch(2, drop_remainder=True).map(T.strings.length), cycle_length=3,
        num_parallel_calls=T.data.AUTOTUNE, deterministic=True).batch(3),
}
RANDOM.update(NATIVE_INTERLEAVES)


def assert_resumes_natively(build, want, after):
    """Iterators of batched pipeline ``build()`` saved after each of ``after`` batches and restored
    into a new one give the rest of ``want`` (the flat values), the restored one in the native engine."""
    for k in after:
        it = iter(build())
        head = [v for _ in range(k) for v in next(it).numpy().tolist()]
        resumed = iter(build())
        resumed.restore(it.save())
        assert head + [v for b in resumed for v in b.numpy().tolist()] == want
        assert not resumed._root.in_python


def python_only(ds):
    """``ds`` kept in the Python engine."""
    import tensorflux_data as txd
    o = txd.Options()
    o.experimental_optimization.native_engine = False
    return ds.with_options(o)


def native_values(ds, batched=True):
    """The flat values ``ds`` yields in the native engine (asserted), checked against the Python
    engine's; ``batched``: its elements are vectors, else scalars."""
    def values(it):
        return [v for e in it for v in (e.numpy().tolist() if batched else [e.numpy()])]
    it = iter(ds)
    native = values(it)
    assert not it._root.in_python
    assert native == values(iter(python_only(ds)))
    return native
