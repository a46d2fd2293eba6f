"""Datasets inside tx.function: `next(iterator)`, `iter(dataset)`, `for x in dataset` and `reduce` run
the pipeline when the function runs (Note [Iteration in graphs]), with the eager elements, and as
tf.data does inside tf.function."""

import numpy as np
import pytest

import tensorflux as tx
import tensorflux_data as txd
from pipelines import PIPELINES, assert_same_elements, flat_values

tf = pytest.importorskip("tensorflow")

# Pipelines whose elements are datasets, or whose file cache one process writes once, are iterated
# here as well as the others, except window's (its elements are datasets: only eager).
_GRAPH_PIPELINES = sorted(PIPELINES)


def _drain(fn):
    """Calls ``fn`` until it raises OutOfRangeError: the list of its results."""
    out = []
    while True:
        try:
            out.append(fn())
        except tx.errors.OutOfRangeError:
            return out
        assert len(out) < 10_000


@pytest.mark.parametrize("name", _GRAPH_PIPELINES)
def test_next_in_a_function_yields_the_eager_elements(name):
    eager = [flat_values(tx.nest, e) for e in PIPELINES[name](txd.Dataset, tx)]
    it = iter(PIPELINES[name](txd.Dataset, tx))  # rebuilt: a second iteration of one dataset may differ
    step = tx.function(lambda: next(it))
    got = [flat_values(tx.nest, e) for e in _drain(step)]
    assert_same_elements(got, eager)


def test_next_in_a_function_matches_tf_function():
    def build(D, T):
        return D.range(10).map(lambda x: (x * 2, T.strings.as_string(x))).batch(4)

    ours, theirs = iter(build(txd.Dataset, tx)), iter(build(tf.data.Dataset, tf))
    tx_step, tf_step = tx.function(lambda it: next(it)), tf.function(lambda it: next(it))
    for _ in range(3):
        assert_same_elements([flat_values(tx.nest, tx_step(ours))], [flat_values(tf.nest, tf_step(theirs))])
    with pytest.raises(tx.errors.OutOfRangeError, match="End of sequence"):
        tx_step(ours)
    with pytest.raises(tf.errors.OutOfRangeError):
        tf_step(theirs)


def test_a_function_advances_the_eager_iterator_it_captured():
    it = iter(txd.Dataset.range(6))
    assert int(next(it)) == 0
    step = tx.function(lambda: next(it) * 10)
    assert [int(step()), int(step())] == [10, 20]
    assert int(next(it)) == 3  # the eager iterator is where the function left it
    assert int(it.get_next()) == 4
    assert int(step()) == 50


def test_save_and_restore_see_the_position_a_function_reached():
    ds = txd.Dataset.range(20).shuffle(8, seed=3)
    it = iter(ds)
    step = tx.function(lambda: it.get_next())
    head = [int(step()) for _ in range(5)]
    state = it.save()
    rest = [int(x) for x in it]
    resumed = iter(ds)
    resumed.restore(state)
    assert [int(x) for x in resumed] == rest
    assert sorted(head + rest) == list(range(20))


def test_checkpoint_of_an_iterator_a_function_reads(tmp_path):
    ds = txd.Dataset.range(10).map(lambda x: x + 100)
    it = iter(ds)
    step = tx.function(lambda: next(it))
    step(), step()
    path = tx.train.Checkpoint(iterator=it).save(str(tmp_path / "ckpt"))
    want = [int(x) for x in it]
    it2 = iter(ds)
    tx.train.Checkpoint(iterator=it2).restore(path)
    step2 = tx.function(lambda: next(it2))
    assert [int(x) for x in _drain(step2)] == want == list(range(102, 110))


def test_iter_of_a_dataset_inside_a_function_starts_over_at_every_call():
    ds = txd.Dataset.range(3, 9)

    @tx.function
    def two():
        it = iter(ds)
        return next(it), next(it)

    for _ in range(3):
        assert [int(v) for v in two()] == [3, 4]


def test_iter_inside_a_function_matches_tf_and_ends_with_out_of_range():
    def build(D):
        return D.range(2)

    @tx.function
    def ours():
        it = iter(build(txd.Dataset))
        return next(it) + next(it) + next(it)

    @tf.function
    def theirs():
        it = iter(build(tf.data.Dataset))
        return next(it) + next(it) + next(it)

    with pytest.raises(tf.errors.OutOfRangeError):
        theirs()
    with pytest.raises(tx.errors.OutOfRangeError, match="End of sequence"):
        ours()
    with pytest.raises(tx.errors.OutOfRangeError):  # and again: each call reads a new iterator
        ours()


def test_iterators_of_unfinished_calls_are_kept_up_to_a_bound():
    from tensorflux_data import _in_graph

    ds = txd.Dataset.range(100).prefetch(2)
    first = tx.function(lambda: next(iter(ds)))
    for _ in range(_in_graph.MAX_LIVE + 5):
        assert int(first()) == 0
    site = [v for v in first.get_concrete_function().graph.get_operations() if v.type == "PyFunc"]
    assert site  # the make and fetch ops are host callbacks


@pytest.mark.parametrize("lib", ["tx", "tf"])
def test_for_loop_over_a_dataset_in_a_function(lib):
    T, D = (tx, txd.Dataset) if lib == "tx" else (tf, tf.data.Dataset)
    ds = D.range(10).map(lambda x: (x * 2, T.strings.as_string(x))).batch(3)

    @T.function
    def f():
        total, rows, names = T.constant(0, T.int64), T.constant(0), T.constant("")
        for a, b in ds:
            total += T.reduce_sum(a)
            rows += T.shape(a)[0]
            names = T.strings.join([names, T.strings.reduce_join(b)])
        return total, rows, names

    for _ in range(2):
        total, rows, names = f()
        assert (int(total), int(rows), names.numpy()) == (90, 10, b"0123456789")


def _loop_sum(ds, zero):
    total = zero
    for x in ds:
        total += x
    return total


def test_a_loop_in_a_function_a_lambda_calls_is_converted_as_in_tf():
    ours = tx.function(lambda: _loop_sum(txd.Dataset.range(5), tx.constant(0, tx.int64)))
    theirs = tf.function(lambda: _loop_sum(tf.data.Dataset.range(5), tf.constant(0, tf.int64)))
    assert int(ours()) == int(theirs()) == 10


def test_for_loop_results_equal_tf_with_break_and_an_outer_graph_loop():
    def body(T, D):
        @T.function
        def f(limit):
            s = T.constant(0, T.int64)
            for epoch in T.range(3):
                for x in D.range(100).map(lambda v: v * 3):
                    if x > limit:
                        break
                    s += x + T.cast(epoch, T.int64)
            return s

        return [int(f(T.constant(v, T.int64))) for v in (-1, 0, 10, 50)]

    assert body(tx, txd.Dataset) == body(tf, tf.data.Dataset)


def test_for_loop_over_a_shuffled_dataset_reshuffles_per_call_like_eager_iteration():
    ds = txd.Dataset.range(12).shuffle(12, seed=7)
    eager_ds = txd.Dataset.range(12).shuffle(12, seed=7)

    @tx.function
    def order():
        return _order(ds)

    assert [order().numpy().tolist() for _ in range(3)] == [[int(x) for x in eager_ds] for _ in range(3)]


def _order(ds):
    ta = tx.TensorArray(tx.int64, size=0, dynamic_size=True)
    i = 0
    for x in ds:
        ta = ta.write(i, x)
        i += 1
    return ta.stack()


def test_for_loop_over_an_eager_iterator_continues_it():
    it = iter(txd.Dataset.range(8))
    next(it), next(it)

    @tx.function
    def rest():
        s = tx.constant(0, tx.int64)
        for x in it:
            s += x
        return s

    assert int(rest()) == sum(range(2, 8))
    with pytest.raises(StopIteration):
        next(it)


def test_reduce_in_a_function_equals_eager_reduce_and_tf():
    def build(D, T, w):
        return D.range(1, 7).map(lambda x: (x, T.cast(x, T.float32))).reduce(
            (T.constant(0, T.int64), T.constant(1.0)), lambda s, e: (s[0] + e[0] * w, s[1] * e[1]))

    eager = build(txd.Dataset, tx, 2)
    ours = tx.function(lambda w: build(txd.Dataset, tx, w))(tx.constant(2, tx.int64))
    theirs = tf.function(lambda w: build(tf.data.Dataset, tf, w))(tf.constant(2, tf.int64))
    for a, b, c in zip(eager, ours, theirs):
        assert a.numpy() == b.numpy() == c.numpy()


def test_reduce_in_a_function_relaxes_a_growing_state_like_tf():
    ours = tx.function(lambda: txd.Dataset.range(4).reduce(tx.zeros([0], tx.int64),
                                                           lambda s, x: tx.concat([s, [x]], 0)))
    theirs = tf.function(lambda: tf.data.Dataset.range(4).reduce(tf.zeros([0], tf.int64),
                                                                 lambda s, x: tf.concat([s, [x]], 0)))
    assert ours().numpy().tolist() == theirs().numpy().tolist() == [0, 1, 2, 3]
    assert ours.get_concrete_function().outputs[0].shape.as_list() == [None]


def test_reduce_of_an_infinite_dataset_is_refused_in_a_function_as_eagerly():
    ds = txd.Dataset.range(3).repeat()
    for reduce in (lambda: ds.reduce(tx.constant(0, tx.int64), lambda s, x: s + x),
                   tx.function(lambda: ds.reduce(tx.constant(0, tx.int64), lambda s, x: s + x))):
        with pytest.raises(tx.errors.InvalidArgumentError, match="reduce: the dataset is infinite"):
            reduce()


def test_an_iterator_closed_past_the_bound_fails_its_call_with_a_clear_error():
    from tensorflux_data import _in_graph

    site = _in_graph._Site(txd.Dataset.range(3))
    first = site.make()
    assert int(site.get(first).get_next()) == 0
    for _ in range(_in_graph.MAX_LIVE):
        site.make()
    with pytest.raises(tx.errors.FailedPreconditionError, match="at most 16 iterators of one iter.dataset."):
        site.get(first)
    assert int(site.get(first + _in_graph.MAX_LIVE).get_next()) == 0  # the newest are alive


def test_reduce_with_random_calls_draws_the_eager_per_element_seeds():
    def build():
        return txd.Dataset.range(5).reduce(tx.constant(0.0), lambda s, x: s + tx.random.uniform([]))

    assert build().numpy() == tx.function(build)().numpy()


def test_an_error_in_the_pipeline_fails_the_call_and_the_iterator_goes_on():
    ds = txd.Dataset.from_tensor_slices(np.array([1.0, 0.0, 2.0])).map(
        lambda x: tx.debugging.check_numerics(1.0 / x, "not finite"))
    it = iter(ds)
    step = tx.function(lambda: next(it))
    assert float(step()) == 1.0
    with pytest.raises(tx.errors.InvalidArgumentError, match="not finite"):
        step()
    assert float(step()) == 0.5  # tf.data's iterators go on after an error too
    with pytest.raises(tx.errors.OutOfRangeError):
        step()


def test_dataset_elements_are_only_iterated_eagerly():
    ds = txd.Dataset.range(6).window(2)
    with pytest.raises(TypeError, match="components are datasets"):
        tx.function(lambda: next(iter(ds)))()
    assert len([w for w in ds]) == 3  # eagerly fine


def test_native_pipeline_in_a_function(tmp_path):
    path = str(tmp_path / "r.tfrecord")
    with txd.io.TFRecordWriter(path) as w:
        for i in range(50):
            w.write(b"record %d" % i)
    ds = txd.TFRecordDataset(path).batch(8).map(tx.strings.length, num_parallel_calls=2).prefetch(2)

    @tx.function
    def total():
        s = tx.constant(0)
        for lengths in ds:
            s += tx.reduce_sum(lengths)
        return s

    want = sum(len(b"record %d" % i) for i in range(50))
    assert int(total()) == want and int(total()) == want


def test_an_unconverted_python_loop_over_a_dataset_raises_instead_of_tracing_forever():
    ds = txd.Dataset.range(5)

    def total(d):
        s = tx.constant(0, tx.int64)
        for x in d:
            s += x
        return s

    with pytest.raises(ValueError, match="unusually high number of get_next"):
        tx.function(total, autograph=False)(ds)
    with pytest.raises(ValueError, match="unusually high number of get_next"):
        tx.function(total, autograph=False)(iter(ds))
    assert int(tx.function(total)(ds)) == 10  # converted: one graph loop


@pytest.mark.parametrize("n", [0, 1, 2])
def test_get_single_element_eagerly_and_in_a_function_as_tf(n):
    def build(D, T):
        return D.range(n).map(lambda x: {"a": x + 5, "b": T.strings.as_string(x)})

    results = []
    for T, D in ((tx, txd.Dataset), (tf, tf.data.Dataset)):
        for call in (lambda: build(D, T).get_single_element(), T.function(lambda: build(D, T).get_single_element())):
            try:
                e = call()
                results.append((int(e["a"]), e["b"].numpy()))
            except (tx.errors.InvalidArgumentError, tf.errors.InvalidArgumentError) as err:
                results.append("empty" if "Dataset was empty." in str(err) else
                               "more" if "Dataset had more than one element." in str(err) else str(err))
    assert len(set(map(str, results))) == 1, results
    assert results[0] == {0: "empty", 1: (5, b"0"), 2: "more"}[n]


def _symbolic_sources_program(m, D):
    @m.function
    def f(x, n):
        s = m.constant(0.0)
        for b in D.from_tensor_slices(x).map(lambda e: e * 2).batch(2):
            s += m.reduce_sum(b)
        total = D.range(1, n, 2).reduce(m.constant(0, m.int64), lambda a, e: a + e)
        pair = next(iter(D.from_tensors((x, n))))
        one = D.from_tensor_slices({"v": x}).skip(1).take(1).get_single_element()["v"]
        specs.append(D.from_tensor_slices(x).element_spec.shape.as_list())
        return s, total, pair[0], pair[1], one, D.from_tensor_slices(x).cardinality()

    out, specs = [], []
    for x, n in (([1.0, 2.0, 3.0], 6), ([4.0, 5.0], 3)):
        s, total, p0, p1, one, card = f(m.constant(x), m.constant(n, m.int64))
        out.append([float(s), int(total), np.asarray(p0).tolist(), int(p1), float(one), int(card)])
    return out, specs


def test_datasets_of_a_functions_own_tensors_equal_tf_data():
    """Note [Symbolic sources]: from_tensor_slices / from_tensors / range of the function's tensors."""
    assert _symbolic_sources_program(tx, txd.Dataset) == _symbolic_sources_program(tf, tf.data.Dataset)


def test_a_dataset_of_function_tensors_used_outside_raises_clearly_and_one_capturing_them_works():
    leaked = []

    @tx.function
    def leak(x):
        leaked.append(txd.Dataset.from_tensor_slices(x))
        return x

    leak(tx.constant([1, 2]))
    with pytest.raises(ValueError, match="iterated only inside that function"):
        list(leaked[0])

    def captures(m, D):  # Note [Captured outer tensors]: the map function captures y
        return m.function(lambda x, y: D.from_tensor_slices(x).map(lambda e: e * y).reduce(
            m.constant(0.0), lambda a, e: a + e))

    ours, theirs = captures(tx, txd.Dataset), captures(tf, tf.data.Dataset)
    for x, y in (([1.0, 2.0], 3.0), ([4.0], 0.5)):
        assert float(ours(tx.constant(x), tx.constant(y))) == float(theirs(tf.constant(x), tf.constant(y)))
    assert float(ours.python_function(tx.constant([1.0]), tx.constant(2.0))) == 2.0  # eagerly it is fine
