"""rebatch and unique: their argument errors (elements, specs and cardinalities are compared with
tf.data in the pipelines harness)."""

import numpy as np
import pytest

import tensorflux as tx
import tensorflux_data as txd

tf = pytest.importorskip("tensorflow")

BATCHED = {"ours": txd.Dataset.range(8).batch(4), "theirs": tf.data.Dataset.range(8).batch(4)}


@pytest.mark.parametrize("sizes", [[[1]], np.ones([2, 2], np.int64)])
def test_rebatch_sizes_of_rank_two_raise_as_tf_data(sizes):
    for ds in BATCHED.values():
        with pytest.raises(ValueError, match="Expected `batch_sizes` to be a scalar or a vector"):
            ds.rebatch(sizes)


def test_rebatch_of_scalar_elements_raises_as_tf_data():
    for D in (txd.Dataset, tf.data.Dataset):
        with pytest.raises(ValueError, match="rank of >= 1 but found a dataset with scalar elements"):
            D.range(3).rebatch(2)


def test_rebatch_rejects_negative_and_missing_sizes():
    # tf.data's rebatch(-1) did not return in our runs, and rebatch([]) fails with an IndexError.
    with pytest.raises(tx.errors.InvalidArgumentError, match="batch_sizes must be >= 0, got -1"):
        BATCHED["ours"].rebatch(-1)
    with pytest.raises(tx.errors.InvalidArgumentError, match="batch_sizes must not be empty"):
        BATCHED["ours"].rebatch([])


def test_rebatch_with_mixed_batch_dimensions_raises_as_tf_data():
    for D in (txd.Dataset, tf.data.Dataset):
        ds = D.zip((D.range(8).batch(4, drop_remainder=True), D.range(8).batch(2, drop_remainder=True)))
        with pytest.raises(ValueError, match="The batch dimension of component 0 is 4"):
            ds.rebatch(2)


def test_unique_dtype_and_component_errors_as_tf_data():
    for D, errors in ((txd.Dataset, tx.errors), (tf.data.Dataset, tf.errors)):
        with pytest.raises(TypeError, match="does not support type .*float32"):
            D.from_tensor_slices(np.array([1.0, 2.0], np.float32)).unique()
        with pytest.raises(errors.InvalidArgumentError, match="only supports inputs with a single component"):
            D.zip((D.range(3), D.range(3))).unique()
