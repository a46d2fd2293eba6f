"""TensorFlow 2 idioms that must give TensorFlow's numbers: each runs here and, where TensorFlow is
installed, the same code runs there and the results are compared."""

import copy
import pickle

import numpy as np
import pytest

import tensorflux as tx

pytestmark = pytest.mark.eager


@pytest.fixture(scope="module")
def tf():
    return pytest.importorskip("tensorflow")


def _masked_mean(m, labels, losses):
    mask = m.cast(labels != 0, m.float32)
    return m.reduce_sum(losses * mask) / m.reduce_sum(mask)


def _accuracy(m, pred, y):
    return m.reduce_mean(m.cast(pred == y, m.float32))


LABELS = [1, 0, 2, 0]
LOSSES = [1.0, 5.0, 3.0, 7.0]


@pytest.mark.parametrize("compiled", [False, True])
def test_not_equal_mask_in_function_is_elementwise(compiled):
    fn = (lambda *a: _masked_mean(tx, *a))  # noqa: E731 (AutoGraph runs lambdas unconverted: tests plain !=)
    if compiled:
        fn = tx.function(fn)
    assert float(fn(tx.constant(LABELS), tx.constant(LOSSES))) == pytest.approx(2.0)


def test_masked_mean_and_accuracy_match_tensorflow(tf):
    for m, fn in ((tx, tx.function), (tf, tf.function)):
        got = fn(lambda a, b: _masked_mean(m, a, b))(m.constant(LABELS), m.constant(LOSSES))
        acc = fn(lambda a, b: _accuracy(m, a, b))(m.constant([1, 2, 3, 4]), m.constant([1, 0, 3, 0]))
        assert float(got) == pytest.approx(2.0) and float(acc) == pytest.approx(0.5)


def test_symbolic_equality_is_an_op_and_unhashable_in_functions():
    seen = {}

    @tx.function
    def f(x):
        eq = x == 2
        seen["eq"] = eq
        with pytest.raises(TypeError, match="unhashable.*ref"):
            hash(x)
        seen["ref"] = {x.ref(): 1}[x.ref()]
        return tx.cast(eq, tx.int32), tx.cast(x != 2, tx.int32)

    eq, ne = f(tx.constant([1, 2, 3]))
    assert eq.numpy().tolist() == [0, 1, 0] and ne.numpy().tolist() == [1, 0, 1]
    assert seen["eq"].dtype == tx.bool and seen["ref"] == 1


def test_equality_with_incompatible_shapes_or_none():
    assert not bool(tx.constant([1, 2]) == tx.constant([1, 2, 3]))
    assert bool(tx.constant([1, 2]) != tx.constant([1, 2, 3]))
    assert (tx.constant(1) == None) is False  # noqa: E711 - the operator is what is tested
    assert (tx.constant(1) != None) is True  # noqa: E711


def test_graph_mode_tensors_compare_by_identity():
    with tx.Graph().as_default():
        a, b = tx.constant(1.0), tx.constant(1.0)
        assert (a == a) is True and (a == b) is False and (a != b) is True
        assert {a: 1, b: 2}[b] == 2


def test_bool_of_symbolic_tensor_points_at_autograph():
    with tx.Graph().as_default():
        with pytest.raises(TypeError, match="AutoGraph"):
            bool(tx.constant(True))


def test_variable_python_conversions():
    assert bool(tx.Variable(0.0)) is False and bool(tx.Variable(2.0)) is True
    assert int(tx.Variable(3)) == 3 and float(tx.Variable(1.5)) == 1.5
    assert [10, 20, 30][tx.Variable(2)] == 30
    assert bool(tx.Variable(3) == 3) and not bool(tx.Variable(3) != 3)
    assert (tx.Variable([1.0, 2.0]) == tx.constant([1.0, 5.0])).numpy().tolist() == [True, False]
    assert [float(x) for x in tx.Variable([1.0, 2.0])] == [1.0, 2.0]
    v = tx.Variable(1.0)
    with pytest.raises(TypeError, match="unhashable.*ref"):
        hash(v)
    assert {v.ref(): "v"}[v.ref()] == "v" and v.ref().deref() is v
    if v:  # the value decides, as in TensorFlow
        pass
    with pytest.raises(ValueError, match="single element"):
        bool(tx.Variable([1.0, 2.0]))


def test_variable_conversions_match_tensorflow(tf):
    for m in (tx, tf):
        assert bool(m.Variable(0.0)) is False
        assert bool(m.Variable(3) == 3) is True
        assert int(m.Variable(7)) == 7
        with pytest.raises(TypeError):
            hash(m.Variable(1.0))


def test_graph_mode_variables_compare_by_identity():
    with tx.Graph().as_default():
        v = tx.Variable(1.0)
        assert (v == v) is True and {v: 1}[v] == 1


def test_numpy_ufuncs_on_eager_tensors_return_arrays(tf):
    for m in (tx, tf):
        out = np.sin(m.constant([0.0, 1.0]))
        assert isinstance(out, np.ndarray) and out.dtype == np.float32
        mixed = np.ones(2, np.float32) + m.constant([1.0, 2.0])
        assert not isinstance(mixed, np.ndarray) and mixed.numpy().tolist() == [2.0, 3.0]


def test_deepcopy_and_pickle_of_eager_tensors():
    t = tx.constant([[1.0, 2.0], [3.0, 4.0]])
    for c in (copy.deepcopy(t), copy.copy(t), pickle.loads(pickle.dumps(t))):
        assert c.dtype == tx.float32 and c.numpy().tolist() == t.numpy().tolist()
    s = pickle.loads(pickle.dumps(tx.constant(7, tx.int64)))
    assert s.dtype == tx.int64 and int(s) == 7


@pytest.mark.parametrize("reduce", ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod"])
def test_reductions_over_rank0_and_empty_axis(reduce):
    fn = getattr(tx, reduce)
    assert float(fn(tx.constant(3.0))) == 3.0
    x = tx.constant([[1.0, 2.0], [3.0, 4.0]])
    assert fn(x, axis=[]).numpy().tolist() == x.numpy().tolist()
    assert float(tx.function(lambda v: fn(v))(tx.constant(5.0))) == 5.0


def test_empty_lists_for_integer_dtypes():
    for dt in (tx.int32, tx.int64, tx.bool, tx.float16):
        t = tx.constant([], dt)
        assert t.dtype == dt and t.shape.as_list() == [0]
    assert tx.reshape(tx.constant([7]), []).shape.as_list() == []
    assert int(tx.reshape(tx.constant([[7]]), [])) == 7


class _Net:
    """A plain object holding variables, as a model class would."""

    def __init__(self, scale):
        self.layers = [{"kernel": tx.Variable(tx.fill([2, 2], scale))}, {"kernel": tx.Variable(tx.fill([2], scale))}]
        self.bias = tx.Variable(scale)
        self.name = "net"


def test_checkpoint_tutorial_flow(tmp_path):
    def make(scale):
        net, opt = _Net(scale), tx.optimizers.Adam(0.1)
        ckpt = tx.train.Checkpoint(step=tx.Variable(1), optimizer=opt, net=net)
        return net, ckpt, tx.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=3)

    net, ckpt, manager = make(1.0)
    status = ckpt.restore(manager.latest_checkpoint)  # None: a fresh start
    with pytest.raises(AssertionError, match="No checkpoint specified"):
        status.assert_consumed()
    for _ in range(5):
        ckpt.step.assign_add(1)
        net.bias.assign_add(1.0)
        if int(ckpt.step) % 2 == 0:
            manager.save()
    assert [p.rsplit("/", 1)[1] for p in manager.checkpoints] == ["ckpt-1.safetensors", "ckpt-2.safetensors",
                                                                   "ckpt-3.safetensors"]
    net2, ckpt2, manager2 = make(0.0)
    ckpt2.restore(manager2.latest_checkpoint).assert_existing_objects_matched()
    assert int(ckpt2.step) == 6 and float(net2.bias) == 6.0 and int(ckpt2.save_counter) == 3
    assert net2.layers[0]["kernel"].numpy().tolist() == [[1.0, 1.0], [1.0, 1.0]]
    assert manager2.save().endswith("ckpt-4.safetensors")


def test_save_prefix_numbering_is_shared_and_found(tmp_path, tf):
    names = {}
    for m in (tx, tf):
        d = str(tmp_path / m.__name__)
        ckpt = m.train.Checkpoint(v=m.Variable(1.0))
        saved = [ckpt.save(d + "/model"), ckpt.save(d + "/model")]
        latest_after_saves = m.train.latest_checkpoint(d)
        saved.append(m.train.CheckpointManager(ckpt, d, max_to_keep=2).save())
        names[m] = ([s.rsplit("/", 1)[1].replace(".safetensors", "") for s in saved],
                    latest_after_saves.rsplit("/", 1)[1].replace(".safetensors", ""),
                    m.train.latest_checkpoint(d).rsplit("/", 1)[1].replace(".safetensors", ""), int(ckpt.save_counter))
        restored = m.train.Checkpoint(v=m.Variable(0.0))
        restored.restore(m.train.latest_checkpoint(d)).assert_consumed()
        assert int(restored.save_counter) == 3
    assert names[tx] == names[tf] == (["model-1", "model-2", "ckpt-3"], "model-2", "ckpt-3", 3)


def test_checkpoint_attributes_and_prefix_paths(tmp_path):
    ckpt = tx.train.Checkpoint(step=tx.Variable(5))
    ckpt.extra = tx.Variable([1.0, 2.0])
    assert int(ckpt.step) == 5
    with pytest.raises(AttributeError, match="tracks"):
        ckpt.missing
    path = ckpt.save(str(tmp_path / "p"))
    prefix = path[: -len(".safetensors")]
    other = tx.train.Checkpoint(step=tx.Variable(0), extra=tx.Variable([0.0, 0.0]))
    other.restore(prefix).assert_consumed()  # a prefix, as TensorFlow's save returns, restores too
    assert int(other.step) == 5 and other.extra.numpy().tolist() == [1.0, 2.0]
    with pytest.raises(tx.errors.NotFoundError, match="not found"):
        other.restore(str(tmp_path / "nope"))


def test_every_optimizer_on_scalar_variables():
    names = [n for n in ("SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Momentum") if hasattr(tx.optimizers, n)]
    assert len(names) >= 4
    for n in names:
        v = tx.Variable(3.0)
        opt = getattr(tx.optimizers, n)(0.1)
        for _ in range(3):
            with tx.GradientTape() as tape:
                loss = v * v
            opt.apply_gradients([(tape.gradient(loss, v), v)])
        assert 0.0 < float(v) < 3.0, n


def _jacobian_case(m, fn, x_value, persistent):
    x = m.convert_to_tensor(x_value)
    with m.GradientTape(persistent=persistent) as tape:
        tape.watch(x)
        y = fn(m, x)
    return tape.jacobian(y, x)


def _jac_fn(m, x):
    return m.reduce_sum(x, axis=1) * x[:, 0] + m.sin(x)[:, 1]


@pytest.mark.parametrize("persistent", [False, True])
def test_jacobian_non_persistent_and_in_function(persistent, tf):
    x = np.arange(6, dtype=np.float64).reshape(3, 2) / 3
    want = _jacobian_case(tf, _jac_fn, x, persistent).numpy()
    got = _jacobian_case(tx, _jac_fn, x, persistent).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-12)
    traced = tx.function(lambda v: _jacobian_case(tx, _jac_fn, v, persistent))(tx.constant(x))
    np.testing.assert_allclose(traced.numpy(), want, rtol=1e-12)


def test_batch_jacobian_matches_tensorflow(tf):
    x = np.arange(6, dtype=np.float32).reshape(3, 2) / 3

    def run(m, compiled=False):
        def body(v):
            with m.GradientTape() as tape:
                tape.watch(v)
                y = m.stack([v[:, 0] * v[:, 1], m.exp(v[:, 0]), v[:, 1] ** 2], axis=1)
            return tape.batch_jacobian(y, v)
        return (m.function(body) if compiled else body)(m.constant(x)).numpy()

    want = run(tf)
    np.testing.assert_allclose(run(tx), want, rtol=1e-6)
    np.testing.assert_allclose(run(tx, compiled=True), want, rtol=1e-6)


def test_non_persistent_tape_computes_once():
    x = tx.constant(2.0)
    with tx.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    assert float(tape.gradient(y, x)) == 4.0
    with pytest.raises(RuntimeError, match="non-persistent GradientTape can only be used to compute one set"):
        tape.gradient(y, x)


def test_missing_device_falls_back_to_cpu_under_soft_placement():
    from tensorflux._src import context

    assert context.get_soft_device_placement() is True
    with tx.device("/GPU:0"):
        y = tx.constant([1.0]) + 1.0
        z = tx.function(lambda a: a * 3.0)(y)
    assert y.numpy().tolist() == [2.0] and z.numpy().tolist() == [6.0] and "CPU:0" in y.device
    context.set_soft_device_placement(False)
    try:
        with pytest.raises(tx.errors.InvalidArgumentError, match="Could not satisfy device specification"):
            with tx.device("/GPU:0"):
                tx.constant([1.0]) + 1.0
        assert float(tx.constant(1.0) + 1.0) == 2.0  # the context stays usable
    finally:
        context.set_soft_device_placement(True)


def test_placeholder_in_eager_mode_keeps_its_error():
    with pytest.raises(RuntimeError, match="not compatible with eager execution"):
        tx.placeholder(tx.float32, [None, 3])


def test_set_seed_repeats_eager_random_sequences(tf):
    for m in (tx, tf):
        m.random.set_seed(42)
        a, b = m.random.uniform([3]).numpy(), m.random.normal([3], seed=7).numpy()
        m.random.set_seed(42)
        c, d = m.random.uniform([3]).numpy(), m.random.normal([3], seed=7).numpy()
        e = m.random.normal([3], seed=7).numpy()
        np.testing.assert_array_equal(a, c)
        np.testing.assert_array_equal(b, d)
        assert not np.array_equal(d, e)  # a stateful op continues its sequence
        m.random.set_seed(None)
