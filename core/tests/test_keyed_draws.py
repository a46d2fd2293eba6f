"""tx.random.experimental.keyed_draws (Note [Keyed draws]): inside the scope, the stateful samplers
build stateless ops keyed by a tensor, so a traced function's draws follow its key input alone."""

import threading

import numpy as np
import pytest

import tensorflux as tx
from tensorflux._src.generated import gen_ops

pytestmark = pytest.mark.eager

SAMPLERS = {
    "uniform": lambda: tx.random.uniform([3]),
    "uniform_int": lambda: tx.random.uniform([3], 0, 100, dtype=tx.int64),
    "normal": lambda: tx.random.normal([3]),
    "truncated_normal": lambda: tx.random.truncated_normal([3]),
    "shuffle": lambda: tx.random.shuffle(tx.range(10)),
    "categorical": lambda: tx.random.categorical(tx.math.log([[0.2, 0.3, 0.5]]), 4),
    "gamma": lambda: tx.random.gamma([3], 2.0),
    "poisson": lambda: tx.random.poisson([3], 4.0),
    "dropout": lambda: tx.nn.dropout(tx.ones([8]), 0.5),
    "random_flip": lambda: tx.image.random_flip_left_right(tx.reshape(tx.range(6.0), [1, 2, 3, 1])),
}


def _keyed(sampler):
    @tx.function
    def draw(key):
        with tx.random.experimental.keyed_draws(key) as draws:
            out = sampler()
        assert draws.calls >= 1  # every sampler above builds at least one random op
        return out

    return draw


@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_draws_follow_the_key_and_the_graph_holds_no_stateful_op(name):
    draw = _keyed(SAMPLERS[name])
    key = tx.constant([12345], tx.uint64)
    first = draw(key).numpy()
    np.testing.assert_array_equal(draw(key).numpy(), first)  # a stateful op would move on
    graph = draw.get_concrete_function(tx.TensorSpec([1], tx.uint64)).graph
    ops = {op.type for op in graph.get_operations()}
    assert not ops & tx.random.experimental.STATEFUL_RANDOM_OPS, ops
    others = [draw(tx.constant([k], tx.uint64)).numpy() for k in range(1, 9)]
    assert any(not np.array_equal(o, first) for o in others)  # the key chooses the stream


def test_each_random_op_of_a_scope_draws_its_own_stream():
    @tx.function
    def two(key):
        with tx.random.experimental.keyed_draws(key) as draws:
            a, b = tx.random.uniform([4]), tx.random.uniform([4])
        assert draws.calls == 2
        return a, b

    a, b = two(tx.constant([3], tx.uint64))
    assert not np.array_equal(a.numpy(), b.numpy())


def test_other_threads_and_code_outside_the_scope_build_stateful_ops():
    tracing, done = threading.Event(), threading.Event()

    def trace():
        with tx.random.experimental.keyed_draws(None):
            tracing.set()
            done.wait(30)

    t = threading.Thread(target=trace)
    t.start()
    try:
        assert tracing.wait(30)
        graph = tx.function(lambda: tx.random.uniform([2])).get_concrete_function().graph
        assert "RandomUniform" in [op.type for op in graph.get_operations()]
    finally:
        done.set()
        t.join()
    assert gen_ops.random_uniform.__name__ == "random_uniform" and gen_ops.random_uniform.__module__ == gen_ops.__name__
    graph = tx.function(lambda: tx.random.uniform([2])).get_concrete_function().graph
    assert "RandomUniform" in [op.type for op in graph.get_operations()]
