"""Dataset functions traced inside a tx.function that use its tensors capture them, as tf.data's do
(Note [Captured outer tensors] in _functions.py): each program runs in tf.function + tf.data too and
the values must be equal, in the native and the Python engine, with new values on every call."""

import numpy as np
import pytest

import tensorflux as tx
import tensorflux_data as txd
from tensorflux_data import _native

tf = pytest.importorskip("tensorflow")

ENGINES = ["native", "python"]


def _tuner(engine):
    """Applies the engine's options to a tensorflux dataset (tf.data's are left as they are)."""
    def tune(ds):
        if not isinstance(ds, txd.Dataset):
            return ds
        opts = txd.Options()
        opts.experimental_optimization.native_engine = engine == "native"
        return ds.with_options(opts)
    return tune


def _programs(m, D, tune):
    @m.function
    def loop(scale, n):  # the example of the task: a `for` over a map of a captured scale
        ds = tune(D.range(n).map(lambda x: m.cast(x, m.float32) * scale))
        total = m.constant(0.0)
        for v in ds:
            total += v
        return total

    @m.function
    def pipeline(scale, limit):
        ds = tune(D.range(10).map(lambda x: x * scale).filter(lambda x: x < limit))
        total = ds.reduce(m.constant(0, m.int64), lambda a, e: a + e * scale)
        it = iter(ds)  # an iterator made and read inside the function
        first, second = next(it), next(it)
        batches = tune(D.from_tensor_slices(np.arange(12, dtype=np.int64))
                       .map(lambda x: x + scale, num_parallel_calls=2).batch(5))
        weighted = batches.reduce(m.constant(0, m.int64), lambda a, b: a * 7 + m.reduce_sum(b) * limit)
        one = tune(D.range(3, 4).map(lambda x: x * limit)).get_single_element()
        return total, first, second, weighted, one

    @m.function
    def folds(scale, limit):
        ds = tune(D.range(12).scan(np.array(0, np.int64), lambda s, x: (s + x * scale, s))
                  .take_while(lambda x: x < limit))
        ds = ds.group_by_window(lambda x: x % scale, lambda k, w: w.batch(3), window_size=3)
        total = m.constant(0, m.int64)
        for b in ds:
            total = total * 3 + m.reduce_sum(b)  # order matters
        return total

    return loop, pipeline, folds


def _run(m, D, tune):
    loop, pipeline, folds = _programs(m, D, tune)
    out = []
    for scale, n, limit in ((2, 5, 9), (3, 7, 20), (5, 0, 1)):  # each call: its own values
        i64 = [m.constant(v, m.int64) for v in (scale, limit)]
        out.append(float(loop(m.constant(float(scale)), m.constant(n, m.int64))))
        out.append([int(t) for t in pipeline(*i64)] if limit > 1 else None)
        out.append(int(folds(*i64)))
    return out


@pytest.mark.parametrize("engine", ENGINES)
def test_functions_capturing_the_tx_functions_tensors_equal_tf_data(engine):
    assert _run(tx, txd.Dataset, _tuner(engine)) == _run(tf, tf.data.Dataset, _tuner(engine))


def test_the_native_engine_runs_the_functions_with_each_calls_values(monkeypatch):
    if _native.engine() is None:
        pytest.skip("the native engine is not built: %s" % _native.unavailable_reason())
    seen = []
    made = _native.Function

    def recording(eng, cf):
        seen.append([np.asarray(t.numpy()).tolist() for t in cf.captured_inputs])
        return made(eng, cf)

    monkeypatch.setattr(_native, "Function", recording)

    @tx.function
    def f(scale, limit):
        ds = txd.Dataset.range(10).map(lambda x: x * scale).filter(lambda x: x < limit)
        return ds.reduce(tx.constant(0, tx.int64), lambda a, e: a + e)

    assert int(f(tx.constant(2, tx.int64), tx.constant(9, tx.int64))) == 20
    assert int(f(tx.constant(3, tx.int64), tx.constant(20, tx.int64))) == 63
    assert [2] in seen and [9] in seen and [3] in seen and [20] in seen


def test_debug_mode_and_eager_iteration_of_a_capturing_dataset_raise_naming_the_tensors():
    opts = txd.Options()
    opts.debug_mode = True

    @tx.function
    def debug(scale):
        ds = txd.Dataset.range(3).map(lambda x: x * scale).with_options(opts)
        return ds.reduce(tx.constant(0, tx.int64), lambda a, e: a + e)

    # tf.data's debug mode fails here too: the Python function cannot see the graph's tensors.
    with pytest.raises(tx.errors.InvalidArgumentError, match=r"debug mode runs the map function eagerly.*\(args_0:0\)"):
        debug(tx.constant(2, tx.int64))
    with txd.debug_mode():
        with pytest.raises(tx.errors.InvalidArgumentError, match="debug mode runs the map function eagerly"):
            debug(tx.constant(2, tx.int64))

    leaked = []

    @tx.function
    def leak(scale):
        leaked.append(txd.Dataset.range(3).filter(lambda x: x < scale))
        return scale

    leak(tx.constant(2, tx.int64))
    for engine in ENGINES:
        with pytest.raises(ValueError, match=r"filter function uses tensors of the tx.function.*only inside"):
            list(_tuner(engine)(leaked[0]))


def test_a_dataset_made_per_element_cannot_capture_and_says_so():
    """flat_map's function runs in Python for each element when the function runs (tf.data traces
    it): a dataset it makes there cannot use the tx.function's tensors."""
    @tx.function
    def nested(scale):
        ds = txd.Dataset.range(3).flat_map(lambda x: txd.Dataset.range(x).map(lambda y: y * scale))
        return ds.reduce(tx.constant(0, tx.int64), lambda a, e: a + e)

    with pytest.raises(tx.errors.InvalidArgumentError, match="cannot capture the tx.function's tensors"):
        nested(tx.constant(2, tx.int64))
