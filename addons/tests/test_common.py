"""What every optimizer of the add-on must do beyond its own file's checks: learn a small real
problem (softmax regression on sklearn's digits), train a tx.keras model through `compile`/`fit`,
and refuse bad input (integer variables, non-scalar learning rates) with clear errors."""

import numpy as np
import pytest

import tensorflux as tx
import tensorflux_addons as txa

import optim_checks

opts = txa.optimizers
# name -> (a configuration that learns digits in a few dozen steps, a constructor taking a learning rate)
OPTIMIZERS = {
    "AdaBelief": (lambda: opts.AdaBelief(0.05), lambda lr: opts.AdaBelief(lr)),
    "Adafactor": (lambda: opts.Adafactor(0.3), lambda lr: opts.Adafactor(lr)),
    "AdamW": (lambda: opts.AdamW(0.05, weight_decay=1e-4), lambda lr: opts.AdamW(lr)),
    "ConditionalGradient": (lambda: opts.ConditionalGradient(0.01, radius=100.0),
                            lambda lr: opts.ConditionalGradient(lr)),
    "EMA": (lambda: opts.EMA(opts.AdamW(0.05)), None),
    "GradientAccumulation": (lambda: opts.GradientAccumulation(opts.AdamW(0.05), every_k=2), None),
    "LAMB": (lambda: opts.LAMB(0.05), lambda lr: opts.LAMB(lr)),
    "LAMB-composed": (lambda: opts.LAMB(0.05, fused=False), lambda lr: opts.LAMB(lr, fused=False)),
    "LARS": (lambda: opts.LARS(1.0, trust_coefficient=0.02), lambda lr: opts.LARS(lr)),
    "Lion": (lambda: opts.Lion(0.005), lambda lr: opts.Lion(lr)),
    "Lookahead": (lambda: opts.Lookahead(opts.AdamW(0.05)), None),
    "MADGRAD": (lambda: opts.MADGRAD(0.05), lambda lr: opts.MADGRAD(lr)),
    "MultiOptimizer": (lambda: opts.MultiOptimizer([(opts.LAMB(0.05), lambda v: v.shape.rank == 2),
                                                 (tx.optimizers.SGD(0.5), lambda v: True)]), None),
    "Muon": (lambda: opts.Muon(0.05), lambda lr: opts.Muon(lr)),
    "NovoGrad": (lambda: opts.NovoGrad(0.1), lambda lr: opts.NovoGrad(lr)),
    "Prodigy": (lambda: opts.Prodigy(), lambda lr: opts.Prodigy(lr)),
    "RAdam": (lambda: opts.RAdam(0.05), lambda lr: opts.RAdam(lr)),
    "SAM": (lambda: opts.SAM(opts.AdamW(0.05)), None),
    "SGDW": (lambda: opts.SGDW(0.5, weight_decay=1e-4), lambda lr: opts.SGDW(lr)),
    "SWA": (lambda: opts.SWA(opts.AdamW(0.05)), None),
    "ScheduleFreeAdamW": (lambda: opts.ScheduleFreeAdamW(0.05), None),
    "Shampoo": (lambda: opts.Shampoo(0.5, block_size=32), lambda lr: opts.Shampoo(lr)),
    "Yogi": (lambda: opts.Yogi(0.05), lambda lr: opts.Yogi(lr)),
}
WITH_LEARNING_RATE = sorted(k for k, (_, make) in OPTIMIZERS.items() if make is not None)


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_learns_the_digits(name):
    accuracy = optim_checks.digits_accuracy(OPTIMIZERS[name][0], steps=60)
    assert accuracy > 0.85, "%s: held-out accuracy %.3f after 60 steps" % (name, accuracy)


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_trains_a_keras_model_through_compile(name):
    tx.keras.utils.set_random_seed(0)   # the layers' initial weights too: every run trains the same model
    rng = np.random.default_rng(0)
    x = rng.standard_normal((256, 8)).astype(np.float32)
    y = (x @ rng.standard_normal((8, 1)) > 0).astype(np.float32)
    model = tx.keras.Sequential([tx.keras.Input((8,)), tx.keras.layers.Dense(16, activation="relu"),
                                 tx.keras.layers.Dense(1, activation="sigmoid")])
    model.compile(optimizer=OPTIMIZERS[name][0](), loss="binary_crossentropy")
    first = model.evaluate(x, y, verbose=0)
    model.fit(x, y, batch_size=32, epochs=4, verbose=0)
    assert model.evaluate(x, y, verbose=0) < 0.9 * first, name


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_integer_variables_are_refused(name):
    ints = tx.Variable([1, 2])
    with pytest.raises(TypeError, match="has dtype int32; optimizers need a floating-point variable"):
        OPTIMIZERS[name][0]().apply_gradients([(tx.constant([1, 1]), ints)])


@pytest.mark.parametrize("name", WITH_LEARNING_RATE)
def test_a_non_scalar_learning_rate_is_refused(name):
    with pytest.raises(ValueError, match=r"learning_rate must be a scalar, got a value of shape \[2\]"):
        OPTIMIZERS[name][1](np.array([0.1, 0.2]))
