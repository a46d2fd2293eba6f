"""Bad input (issue 20's list): a clear error naming what was expected; the iterator and the
process survive."""

import numpy as np
import pytest

import tensorflux as tx
import tensorflux_data as txd


def test_batch_of_zero_and_negative_sizes_are_refused():
    ds = txd.Dataset.range(4)
    with pytest.raises(tx.errors.InvalidArgumentError, match="batch_size must be >= 1, got 0"):
        ds.batch(0)
    with pytest.raises(tx.errors.InvalidArgumentError, match="shuffle buffer_size must be >= 1, got -3"):
        ds.shuffle(-3)
    with pytest.raises(tx.errors.InvalidArgumentError, match="window size must be >= 1"):
        ds.window(0)
    with pytest.raises(tx.errors.InvalidArgumentError, match=r"index must be in \[0, num_shards\)"):
        ds.shard(2, 2)
    with pytest.raises(TypeError, match="batch_size must be an integer"):
        ds.batch("two")


def test_filter_predicate_must_be_a_scalar_bool():
    with pytest.raises(ValueError, match="must return a scalar tx.bool tensor, but its return type was int64"):
        txd.Dataset.range(3).filter(lambda x: x)
    with pytest.raises(ValueError, match="scalar tx.bool"):
        txd.Dataset.from_tensor_slices(np.ones((3, 2))).filter(lambda x: x > 0)


def test_map_returning_none_or_taking_the_wrong_arguments():
    with pytest.raises(TypeError, match="map function returned None"):
        txd.Dataset.range(3).map(lambda x: None)
    with pytest.raises(TypeError):
        txd.Dataset.zip((txd.Dataset.range(2), txd.Dataset.range(2))).map(lambda x: x)
    with pytest.raises(TypeError, match="must be callable"):
        txd.Dataset.range(3).map(3)


def test_batching_elements_of_different_shapes_names_the_component_and_the_iterator_survives():
    ds = txd.Dataset.from_generator(lambda: iter([[1, 2], [3], [4], [5]]),
                                    output_signature=tx.TensorSpec([None], tx.int64)).batch(2)
    it = iter(ds)
    with pytest.raises(tx.errors.InvalidArgumentError,
                       match=r"Cannot batch tensors with different shapes in component 0. First element had shape "
                             r"\[2\] and element 1 had shape \[1\]"):
        next(it)
    assert next(it).numpy().tolist() == [[4], [5]]


@pytest.mark.parametrize("exception,error", [(RuntimeError, "UnknownError"), (KeyError, "UnknownError"),
                                              (ValueError, "InvalidArgumentError"),
                                              (TypeError, "InvalidArgumentError"),
                                              (MemoryError, "ResourceExhaustedError"),
                                              (NotImplementedError, "UnimplementedError")])
def test_a_generator_that_raises_is_tf_datas_error_naming_the_element(exception, error):
    def gen():
        yield 1
        raise exception("disk on fire")
    it = iter(txd.Dataset.from_generator(gen, output_signature=tx.TensorSpec([], tx.int64)))
    assert int(next(it)) == 1
    with pytest.raises(getattr(tx.errors, error), match="generator raised %s: .*disk on fire" % exception.__name__):
        next(it)
    with pytest.raises(StopIteration):  # a finished generator ends the sequence
        next(it)
    tf = pytest.importorskip("tensorflow")
    theirs = iter(tf.data.Dataset.from_generator(gen, output_signature=tf.TensorSpec([], tf.int64)))
    next(theirs)
    with pytest.raises(getattr(tf.errors, error)):
        next(theirs)


def test_a_generator_yielding_the_wrong_structure_or_type():
    bad = txd.Dataset.from_generator(lambda: iter([(1, 2)]), output_signature=tx.TensorSpec([], tx.int64))
    with pytest.raises(tx.errors.InvalidArgumentError, match="does not match the structure of output_signature"):
        next(iter(bad))
    wrong = txd.Dataset.from_generator(lambda: iter([1.5]), output_signature=tx.TensorSpec([], tx.int64))
    with pytest.raises(tx.errors.InvalidArgumentError, match="cannot convert 1.5 to int64"):
        next(iter(wrong))
    shape = txd.Dataset.from_generator(lambda: iter([[1, 2, 3]]), output_signature=tx.TensorSpec([2], tx.int64))
    with pytest.raises(tx.errors.InvalidArgumentError, match=r"component 0 should be int64 of shape \(2,\)"):
        next(iter(shape))


def test_errors_inside_a_map_surface_at_their_element_and_the_pipeline_goes_on():
    ds = txd.Dataset.from_tensor_slices(np.array([1.0, 0.0, 4.0], np.float32)).map(
        lambda x: tx.debugging.check_numerics(1.0 / x, "reciprocal"), num_parallel_calls=3)
    it = iter(ds)
    assert float(next(it)) == 1.0
    with pytest.raises(tx.errors.InvalidArgumentError, match="reciprocal"):
        next(it)
    assert float(next(it)) == 0.25
    assert [float(x) for x in ds.ignore_errors()] == [1.0, 0.25]


def test_mismatched_sources_and_concatenations():
    with pytest.raises(tx.errors.InvalidArgumentError, match="same size in dimension 0"):
        txd.Dataset.from_tensor_slices((np.arange(3), np.arange(4)))
    with pytest.raises(tx.errors.InvalidArgumentError, match="leading dimension"):
        txd.Dataset.from_tensor_slices(np.float32(1.0))
    with pytest.raises(TypeError, match="Incompatible dataset elements"):
        txd.Dataset.range(3).concatenate(txd.Dataset.from_tensor_slices(np.arange(3.0)))
    with pytest.raises(tx.errors.InvalidArgumentError, match="unbatch needs elements of rank >= 1"):
        txd.Dataset.range(3).unbatch()


def test_scan_whose_state_changes_dtype_is_refused():
    with pytest.raises(TypeError, match="new state"):
        txd.Dataset.range(3).scan(np.int64(0), lambda s, x: (tx.cast(s, tx.float32), x))


def test_group_by_window_arguments():
    ds = txd.Dataset.range(6)
    with pytest.raises(ValueError, match="key_func` must return a single tx.int64 scalar"):
        ds.group_by_window(lambda x: tx.cast(x, tx.int32), lambda k, w: w, window_size=2)
    with pytest.raises(ValueError, match="exactly one of window_size and window_size_func"):
        ds.group_by_window(lambda x: x, lambda k, w: w)
    with pytest.raises(TypeError, match="reduce_func must return a Dataset"):
        ds.group_by_window(lambda x: x % 2, lambda k, w: 3, window_size=2)
    with pytest.raises(ValueError, match="bucket_batch_sizes"):
        ds.bucket_by_sequence_length(lambda x: x, [3], [1])


def _ramp(x):
    return np.arange(x.numpy() % 3, dtype=np.int64)


def _shape_outcomes(m, ds):
    """What an iterator of ``ds`` yields (``m``: tx or tf), going on after each error: values as lists,
    errors as their class names."""
    out, it = [], iter(ds)
    while True:
        try:
            out.append(next(it).numpy().tolist())
        except StopIteration:
            return out
        except m.errors.OpError as e:
            out.append(type(e).__name__)


@pytest.mark.parametrize("how", ["batch", "unfused_batch", "padded_batch_rank", "unbatch_scalars"])
def test_elements_of_unknown_rank_that_do_not_fit_fail_their_batch_as_in_tf_data(how):
    def build(D, m):
        ramps = D.range(7).map(lambda x: m.py_function(_ramp, [x], m.int64))
        scalars = D.range(4).map(lambda x: m.py_function(lambda v: v.numpy() * 2, [x], m.int64))
        if how == "batch":
            return ramps.batch(2)
        if how == "unfused_batch":
            return ramps.prefetch(1).batch(2)
        if how == "padded_batch_rank":
            return scalars.padded_batch(2, padded_shapes=[3])
        return scalars.unbatch()
    ours = _shape_outcomes(tx, build(txd.Dataset, tx))
    assert "InvalidArgumentError" in ours
    tf = pytest.importorskip("tensorflow")
    assert ours == _shape_outcomes(tf, build(tf.data.Dataset, tf))


def test_padded_batch_of_unknown_rank_needs_padded_shapes():
    ds = txd.Dataset.range(3).map(lambda x: tx.py_function(_ramp, [x], tx.int64))
    with pytest.raises(ValueError, match="You must provide `padded_shapes` argument because component 0 has unknown"):
        ds.padded_batch(2)
