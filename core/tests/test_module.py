"""tx.Module: names, name scopes, variable and submodule discovery, against tf.Module."""

import collections

import numpy as np
import pytest

import tensorflux as tx

pytestmark = pytest.mark.eager


def _classes(base, variable):
    """The same module definitions over ``base`` (tx.Module or tf.Module) and ``variable``."""

    class Dense(base):
        def __init__(self, n_in, n_out, name=None):
            super().__init__(name=name)
            with self.name_scope:
                self.w = variable(np.ones((n_in, n_out), np.float32), name="w")
                self.b = variable(np.zeros((n_out,), np.float32), name="b")
                self.steps = variable(0, trainable=False, name="steps")

        @base.with_name_scope
        def __call__(self, x):
            return x

    class MLPModel(base):
        def __init__(self, name=None):
            super().__init__(name=name)
            self.layers = [Dense(2, 3), Dense(3, 1, name="out")]
            self.extras = {"z": Dense(1, 1, name="zeta"), "a": (Dense(1, 2, name="alpha"),)}
            self.shared = self.layers[0]
            self.scale = variable(2.0, name="scale")
            self.not_a_var = [1, "x", None]

    return Dense, MLPModel


def _summary(m):
    return {
        "name": m.name,
        "variables": [v.name for v in m.variables],
        "trainable": [v.name for v in m.trainable_variables],
        "non_trainable": [v.name for v in m.non_trainable_variables],
        "submodules": [s.name for s in m.submodules],
    }


def test_module_discovery():
    _, MLP = _classes(tx.Module, tx.Variable)
    m = MLP()
    s = _summary(m)
    assert s["name"] == "mlp_model"
    assert s["submodules"] == ["alpha", "zeta", "dense", "out"]
    assert len(s["variables"]) == 13 and len(set(map(id, m.variables))) == 13
    assert s["variables"][0] == "scale:0"
    assert len(s["trainable"]) == 9 and len(s["non_trainable"]) == 4
    assert all(n.endswith("steps:0") for n in s["non_trainable"])
    assert "dense/w:0" in s["variables"] and "out/b:0" in s["variables"]


def test_matches_tf_module():
    tf = pytest.importorskip("tensorflow")
    _, tx_mlp = _classes(tx.Module, tx.Variable)
    _, tf_mlp = _classes(tf.Module, tf.Variable)
    assert _summary(tx_mlp()) == _summary(tf_mlp())
    for name in ("Dense2D", "HTTPServer", "simple", "ABC"):
        cls_tx = type(name, (tx.Module,), {})
        cls_tf = type(name, (tf.Module,), {})
        assert cls_tx().name == cls_tf().name


def test_name_scope_and_with_name_scope():
    Dense, _ = _classes(tx.Module, tx.Variable)

    class Outer(tx.Module):
        def __init__(self):
            super().__init__(name="outer")
            with self.name_scope:
                self.inner = Dense(1, 1, name="inner")

        @tx.Module.with_name_scope
        def scoped(self):
            return tx.get_default_graph().get_name_scope()

    o = Outer()
    assert o.inner.w.name == "outer/inner/w:0"
    assert o.scoped() == "outer"
    assert o.inner.name_scope._scope_name == "outer/inner/"


def test_graph_mode_scope_is_uniquified():
    with tx.Graph().as_default() as g:
        a, b = tx.Module(name="m"), tx.Module(name="m")
        with b.name_scope:
            c = tx.constant(1.0, name="c")
        assert a._scope_name == "m/" and b._scope_name == "m_1/"
        assert c.name == "m_1/c:0"
        assert g is tx.get_default_graph()


def test_invalid_name():
    with pytest.raises(ValueError, match="valid Python 3 identifiers"):
        tx.Module(name="not valid")


def test_flatten_with_path_and_cycles():
    m = tx.Module(name="root")
    m.child = tx.Module(name="child")
    m.child.parent = m  # a cycle: walked once
    m.child.v = tx.Variable(1.0, name="v")
    m.pairs = collections.OrderedDict(k=m.child.v)
    assert [s.name for s in m.submodules] == ["child"]
    assert len(m.variables) == 1
    paths = [p for p, _ in m._flatten(predicate=lambda x: isinstance(x, tx.Variable), with_path=True)]
    assert ("pairs", "k") in paths and ("child", "v") in paths
