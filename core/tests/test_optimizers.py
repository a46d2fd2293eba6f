"""tx.optimizers: every ready-made optimizer against a NumPy reference (fused and op-by-op paths
agree), convergence, composition, schedules and bad input."""

import numpy as np
import pytest

import tensorflux as tx
from tensorflux._src.optim import testing as kit

EPS = 1e-7


def sgd_ref(lr, momentum=0.0, nesterov=False):
    def step(p, g, st, t):
        if not momentum:
            return p - lr * g
        st["a"] = momentum * st.get("a", 0.0) + g
        return p - lr * (g + momentum * st["a"] if nesterov else st["a"])
    return step


def adam_ref(lr, b1=0.9, b2=0.999, eps=EPS, wd=0.0):
    def step(p, g, st, t):
        st["m"] = b1 * st.get("m", 0.0) + (1 - b1) * g
        st["v"] = b2 * st.get("v", 0.0) + (1 - b2) * g * g
        upd = st["m"] * np.sqrt(1 - b2 ** t) / (1 - b1 ** t) / (np.sqrt(st["v"]) + eps)
        return p - lr * (upd + wd * p)
    return step


def rmsprop_ref(lr, rho=0.9, momentum=0.0, eps=EPS):
    def step(p, g, st, t):
        st["ms"] = rho * st.get("ms", 0.0) + (1 - rho) * g * g
        st["mom"] = momentum * st.get("mom", 0.0) + lr * g / np.sqrt(st["ms"] + eps)
        return p - st["mom"]
    return step


def adagrad_ref(lr, init=0.1, eps=EPS):
    def step(p, g, st, t):
        st["acc"] = st.get("acc", init) + g * g
        return p - lr * g / (np.sqrt(st["acc"]) + eps)
    return step


CASES = {
    "sgd": (lambda: tx.optimizers.SGD(0.1), lambda: tx.optimizers.Optimizer(tx.optimizers.sgd(0.1)), sgd_ref(0.1)),
    "momentum": (lambda: tx.optimizers.SGD(0.1, momentum=0.9),
                 lambda: tx.optimizers.Optimizer(tx.optimizers.sgd(0.1, 0.9)), sgd_ref(0.1, 0.9)),
    "nesterov": (lambda: tx.optimizers.SGD(0.1, momentum=0.9, nesterov=True),
                 lambda: tx.optimizers.Optimizer(tx.optimizers.sgd(0.1, 0.9, True)), sgd_ref(0.1, 0.9, True)),
    "adam": (lambda: tx.optimizers.Adam(0.01), lambda: tx.optimizers.Optimizer(tx.optimizers.adam(0.01)),
             adam_ref(0.01)),
    "adamw": (lambda: tx.optimizers.AdamW(0.01, weight_decay=0.1),
              lambda: tx.optimizers.Optimizer(tx.optimizers.adamw(0.01, weight_decay=0.1)), adam_ref(0.01, wd=0.1)),
    "rmsprop": (lambda: tx.optimizers.RMSprop(0.01), None, rmsprop_ref(0.01)),
    "rmsprop_momentum": (lambda: tx.optimizers.RMSprop(0.01, momentum=0.5),
                         lambda: tx.optimizers.Optimizer(tx.optimizers.rmsprop(0.01, momentum=0.5)),
                         rmsprop_ref(0.01, momentum=0.5)),
    "adagrad": (lambda: tx.optimizers.Adagrad(0.1), lambda: tx.optimizers.Optimizer(tx.optimizers.adagrad(0.1)),
                adagrad_ref(0.1)),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_against_numpy_reference(case):
    fused, unfused, ref = CASES[case]
    a = kit.check_against_reference(fused, ref)
    if unfused is not None:  # the op-by-op chain computes the same thing
        b = kit.check_against_reference(unfused, ref)
        for x, y in zip(a, b):
            np.testing.assert_allclose(x, y, rtol=1e-12)


@pytest.mark.parametrize("case", sorted(CASES))
def test_converges_on_a_quadratic(case):
    lr = {"sgd": 0.02, "momentum": 0.01, "nesterov": 0.01, "adam": 0.1, "adamw": 0.1, "rmsprop": 0.05,
          "rmsprop_momentum": 0.02, "adagrad": 1.0}[case]
    make = {"sgd": lambda: tx.optimizers.SGD(lr), "momentum": lambda: tx.optimizers.SGD(lr, 0.9),
            "nesterov": lambda: tx.optimizers.SGD(lr, 0.9, True), "adam": lambda: tx.optimizers.Adam(lr),
            "adamw": lambda: tx.optimizers.AdamW(lr, weight_decay=0.0),
            "rmsprop": lambda: tx.optimizers.RMSprop(lr),
            "rmsprop_momentum": lambda: tx.optimizers.RMSprop(lr, 0.0, 0.5),
            "adagrad": lambda: tx.optimizers.Adagrad(lr)}[case]
    kit.check_converges_on_quadratic(make)


def test_a_contributed_transformation_composes():
    """sign-SGD with global-norm clipping in front: a few lines, no optimizer subclass."""
    def scale_by_sign():
        def update(updates, slots, params, step):
            return [tx.sign(u) for u in updates], []
        return tx.optimizers.GradientTransformation("scale_by_sign", {}, update)

    make = lambda: tx.optimizers.Optimizer(tx.optimizers.chain(  # noqa: E731
        tx.optimizers.clip_by_global_norm(1.0), scale_by_sign(), tx.optimizers.scale(-0.01)))
    kit.check_against_reference(make, lambda p, g, st, t: p - 0.01 * np.sign(g))


def test_slots_are_created_once_and_named_after_the_variable():
    with tx.Graph().as_default():
        w = tx.Variable(tx.ones([2, 2]), name="dense/kernel")
        loss = tx.reduce_sum(w * w)
        opt = tx.optimizers.Adam(0.1)
        opt.minimize(loss, [w])
        opt.minimize(loss, [w])
        assert opt.get_slot_names() == ["0_scale_by_adam/m", "0_scale_by_adam/v"]
        m = opt.get_slot(w, "0_scale_by_adam/m")
        assert m.name.startswith("dense/kernel/Adam/") and not m.trainable
        assert len(opt.variables()) == 3


@pytest.mark.parametrize("name,schedule,expected", [
    ("exponential", tx.optimizers.schedules.exponential_decay(0.1, 10, 0.5), lambda s: 0.1 * 0.5 ** (s / 10)),
    ("staircase", tx.optimizers.schedules.exponential_decay(0.1, 10, 0.5, staircase=True),
     lambda s: 0.1 * 0.5 ** (s // 10)),
    ("cosine_warmup", tx.optimizers.schedules.cosine_decay(0.0, 20, alpha=0.1, warmup_steps=5, warmup_target=1.0),
     lambda s: s / 5 if s < 5 else 0.9 * 0.5 * (1 + np.cos(np.pi * min(s - 5, 20) / 20)) + 0.1),
    ("piecewise", tx.optimizers.schedules.piecewise_constant([5, 10], [1.0, 0.5, 0.1]),
     lambda s: 1.0 if s < 5 else (0.5 if s < 10 else 0.1)),
    ("polynomial", tx.optimizers.schedules.polynomial_decay(1.0, 10, 0.1, power=2.0),
     lambda s: 0.9 * (1 - min(s, 10) / 10) ** 2 + 0.1),
])
def test_schedules(name, schedule, expected):
    with tx.Graph().as_default():
        step = tx.placeholder(tx.int64, [])
        lr = schedule(step)
        with tx.Session() as s:
            for k in (0, 3, 5, 9, 10, 17, 40):
                np.testing.assert_allclose(s.run(lr, {step: k}), expected(k), rtol=1e-5, atol=1e-7)


def test_schedule_drives_an_optimizer():
    sched = tx.optimizers.schedules.piecewise_constant([1], [0.5, 0.1])
    kit.check_against_reference(lambda: tx.optimizers.SGD(sched),
                                lambda p, g, st, t: p - (0.5 if t == 1 else 0.1) * g, steps=3)


def test_bad_input():
    with tx.Graph().as_default():
        frozen = tx.Variable(tx.ones([2]), trainable=False, name="frozen")
        ints = tx.Variable(tx.constant([1, 2]), name="ints")
        w = tx.Variable(tx.ones([2]), name="w")
        loss = tx.reduce_sum(w * w)
        with pytest.raises(ValueError, match="frozen.*not trainable"):
            tx.optimizers.SGD(0.1).minimize(loss, [frozen])
        with pytest.raises(TypeError, match="ints.*int32.*floating"):
            tx.optimizers.SGD(0.1).apply_gradients([(tx.constant([1, 1]), ints)])
        with pytest.raises(ValueError, match="No gradients"):
            tx.optimizers.SGD(0.1).apply_gradients([(None, w)])
        with pytest.raises(TypeError, match="tx.Variable"):
            tx.optimizers.SGD(0.1).apply_gradients([(tx.constant([1.0, 1.0]), tx.constant([1.0, 2.0]))])
        with pytest.raises(ValueError, match="boundaries"):
            tx.optimizers.schedules.piecewise_constant([10, 5], [1.0, 0.5, 0.1])


@pytest.mark.parametrize("case", ["momentum", "adam", "adamw", "rmsprop_momentum", "adagrad"])
def test_slot_checkpoint_round_trip(case, tmp_path):
    kit.check_slot_checkpoint_round_trip(CASES[case][0], str(tmp_path / "opt.safetensors"))


def test_nan_in_the_loss_names_the_check():
    with tx.Graph().as_default():
        w = tx.Variable([1.0, -1.0], name="w")
        loss = tx.debugging.check_numerics(tx.reduce_sum(tx.math.log(w)), "loss is not finite")
        train = tx.optimizers.SGD(0.1).minimize(loss, [w])
        with tx.Session() as s:
            s.run(w.initializer)
            with pytest.raises(tx.errors.InvalidArgumentError, match="loss is not finite"):
                s.run(train)
            np.testing.assert_array_equal(s.run(w), [1.0, -1.0])  # the failed step changed nothing


@pytest.mark.eager
@pytest.mark.parametrize("make", [lambda: tx.optimizers.RMSprop(0.1),
                                  lambda: tx.optimizers.Optimizer(tx.optimizers.adamw(0.1)),
                                  lambda: tx.optimizers.Optimizer(tx.optimizers.scale(-0.1))])
def test_unfused_optimizers_step_inside_tx_function(make):
    # Op-by-op updates of eager variables traced into a function are ops the step depends on.
    w, w_eager = tx.Variable([1.0, 2.0]), tx.Variable([1.0, 2.0])
    opt, opt_eager = make(), make()

    @tx.function
    def step():
        with tx.GradientTape() as tape:
            loss = tx.reduce_sum(w * w)
        opt.apply_gradients(zip(tape.gradient(loss, [w]), [w]))

    for _ in range(3):
        step()
        with tx.GradientTape() as tape:
            loss = tx.reduce_sum(w_eager * w_eager)
        opt_eager.apply_gradients(zip(tape.gradient(loss, [w_eager]), [w_eager]))
    np.testing.assert_allclose(w.numpy(), w_eager.numpy(), rtol=1e-6)
    assert not np.allclose(w.numpy(), [1.0, 2.0])


@pytest.mark.eager
def test_learning_rate_is_assignable_between_steps_of_a_traced_step():
    w = tx.Variable([1.0])
    opt = tx.optimizers.SGD(learning_rate=0.5)

    @tx.function
    def step():
        with tx.GradientTape() as tape:
            loss = tx.reduce_sum(w)
        opt.apply_gradients(zip(tape.gradient(loss, [w]), [w]))

    step()
    np.testing.assert_allclose(w.numpy(), [0.5])
    opt.learning_rate = 0.25  # no retrace needed: the rate lives in a Variable
    step()
    np.testing.assert_allclose(w.numpy(), [0.25])
    assert float(opt.learning_rate.numpy()) == 0.25
    assert opt.get_config()["learning_rate"] == 0.25
    schedule_opt = tx.optimizers.SGD(learning_rate=tx.optimizers.schedules.exponential_decay(0.1, 10, 0.5))
    with pytest.raises(TypeError, match="schedule"):
        schedule_opt.learning_rate = 0.3


@pytest.mark.eager
@pytest.mark.parametrize("make", [lambda: tx.optimizers.Optimizer(tx.optimizers.adamw(0.1)),
                                  lambda: tx.optimizers.Adam(0.1), lambda: tx.optimizers.AdamW(0.1)],
                         ids=["composed_adamw", "fused_adam", "fused_adamw"])
def test_updates_eager_variables_inside_tx_function(make):
    # An op-by-op chain's slot assignments inside a trace are ops the step depends on (they were
    # None there once, which failed the step); the call returns None as it does eagerly.
    w = tx.Variable([1.0, -2.0])
    eager_opt, traced_opt = make(), make()
    w2 = tx.Variable([1.0, -2.0])
    step = tx.function(lambda: traced_opt.apply_gradients([(tx.constant([1.0, 1.0]), w2)]))
    for _ in range(3):
        eager_opt.apply_gradients([(tx.constant([1.0, 1.0]), w)])
        assert step() is None
    np.testing.assert_allclose(w2.numpy(), w.numpy(), rtol=1e-6)
    assert int(traced_opt.iterations.numpy()) == 3


@pytest.mark.eager
def test_fused_adamw_decays_only_masked_variables_as_the_chain_does():
    # The fused path applies the decay kernel only where mask(var) is true, like add_decayed_weights.
    mask = lambda v: len(v.shape) == 2  # noqa: E731 (decay matrices, not biases)
    results = []
    for make in (lambda: tx.optimizers.AdamW(0.1, weight_decay=0.5, mask=mask),
                 lambda: tx.optimizers.Optimizer(tx.optimizers.adamw(0.1, weight_decay=0.5, mask=mask))):
        w, b = tx.Variable([[1.0, -2.0]]), tx.Variable([3.0])
        opt = make()
        for _ in range(3):
            opt.apply_gradients([(tx.constant([[0.5, 0.5]]), w), (tx.constant([0.5]), b)])
        results.append((w.numpy(), b.numpy()))
    # float32, and the two round in a different order (decay, then Adam; or one summed update)
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=2e-5)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=2e-5)
    assert results[0][0][0, 0] < 1.0 - 0.3 - 0.1  # the matrix decayed as well
    # Without the decay the bias takes three Adam steps of about 0.1 each.
    np.testing.assert_allclose(results[0][1], [3.0 - 0.3], atol=1e-4)


@pytest.mark.eager
def test_adamw_matches_tensorflow_keras():
    # The fused AdamW (decay, then Adam) against tf.keras's AdamW, which decays first as well.
    tf = pytest.importorskip("tensorflow")
    rng = np.random.default_rng(5)
    init = rng.standard_normal(6).astype(np.float32)
    grads = [rng.standard_normal(6).astype(np.float32) for _ in range(4)]
    ours, theirs = tx.Variable(init), tf.Variable(init)
    opt = tx.optimizers.AdamW(0.05, weight_decay=0.1, epsilon=1e-7)
    ref = tf.keras.optimizers.AdamW(learning_rate=0.05, weight_decay=0.1, epsilon=1e-7)
    for g in grads:
        opt.apply_gradients([(tx.constant(g), ours)])
        ref.apply_gradients([(tf.constant(g), theirs)])
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5, atol=1e-6)
