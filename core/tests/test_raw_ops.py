"""tx.raw_ops: every generated op by its TensorFlow name, keyword arguments only."""

import inspect

import numpy as np
import pytest

import tensorflux as tx
from tensorflux._src.generated import gen_ops
from tensorflux._src.op_def_library import OpSig

pytestmark = pytest.mark.eager


def test_every_op_is_there():
    ops = {v.op_type for v in vars(gen_ops).values() if isinstance(v, OpSig)}
    assert ops == set(tx.raw_ops.__all__) == set(dir(tx.raw_ops))
    for name in ("MatMul", "AddV2", "EagerPyFunc", "StatelessRandomUniformIntV2", "Assert"):
        assert callable(getattr(tx.raw_ops, name))
    with pytest.raises(AttributeError):
        tx.raw_ops.NotAnOp


def test_keyword_only_calls():
    a = tx.constant([[1.0, 2.0]])
    b = tx.constant([[3.0], [4.0]])
    np.testing.assert_allclose(tx.raw_ops.MatMul(a=a, b=b).numpy(), [[11.0]])
    np.testing.assert_allclose(tx.raw_ops.MatMul(a=b, b=a, transpose_a=True, transpose_b=True).numpy(), [[11.0]])
    with pytest.raises(TypeError, match="only accepts keyword arguments"):
        tx.raw_ops.MatMul(a, b)
    sig = inspect.signature(tx.raw_ops.MatMul)
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in sig.parameters.values())
    assert list(sig.parameters)[:2] == ["a", "b"]
    with tx.Graph().as_default():
        t = tx.raw_ops.AddV2(x=tx.constant(1.0), y=tx.constant(2.0), name="sum")
        assert t.op.type == "AddV2" and t.op.name == "sum"


def test_argument_names_match_tensorflow():
    tf = pytest.importorskip("tensorflow")
    for name in tx.raw_ops.__all__:
        theirs = getattr(tf.raw_ops, name, None)
        if theirs is None:
            continue
        ours = list(inspect.signature(getattr(tx.raw_ops, name)).parameters)
        their_names = list(inspect.signature(theirs).parameters)
        # Every argument of ours is TensorFlow's, in TensorFlow's order (attrs TensorFlow added
        # later, e.g. MatMul's grad_a, may be absent here).
        assert set(ours) <= set(their_names), (name, ours, their_names)
        assert ours == [n for n in their_names if n in ours], (name, ours, their_names)
