"""Lowered (TensorFlow 1) control flow written node by node as GraphDefs, for the tests of its
import (test_tf1_control_flow_errors.py) and the conformance entries of its ops."""

from tensorflux.proto import attr_value_pb2, graph_pb2, tensor_pb2, types_pb2

INT = types_pb2.DT_INT32
FLOAT = types_pb2.DT_FLOAT
BOOL = types_pb2.DT_BOOL


def attr(v):
    """An AttrValue: bool, str, ("type", dtype), int, or a TensorProto."""
    a = attr_value_pb2.AttrValue()
    if isinstance(v, bool):
        a.b = v
    elif isinstance(v, str):
        a.s = v.encode()
    elif isinstance(v, tuple):  # ("type", dtype)
        a.type = v[1]
    elif isinstance(v, int):
        a.i = v
    else:
        a.tensor.CopyFrom(v)
    return a


def typ(dtype):
    return ("type", dtype)


def scalar(value, dtype=INT):
    """A scalar TensorProto."""
    t = tensor_pb2.TensorProto(dtype=dtype)
    (t.int_val if dtype == INT else t.float_val).append(value)
    return t


class G:
    """A GraphDef written node by node: add(name, op, inputs, attr=value...)."""

    def __init__(self):
        self.gd = graph_pb2.GraphDef()

    def add(self, name, op, inputs=(), **attrs):
        n = self.gd.node.add(name=name, op=op)
        n.input.extend(inputs)
        for k, v in attrs.items():
            n.attr[k].CopyFrom(attr(v))
        return self

    def drop(self, name):
        nodes = [n for n in self.gd.node if n.name != name]
        del self.gd.node[:]
        self.gd.node.extend(nodes)
        return self

    def node(self, name):
        return next(n for n in self.gd.node if n.name == name)

    def bytes(self):
        return self.gd.SerializeToString()


def counting_loop():
    """i = x; while i < 5: i += 1 -- written as Enter/Merge/Switch/LoopCond/NextIteration/Exit."""
    g = G()
    g.add("x", "Placeholder", dtype=typ(INT))
    g.add("limit", "Const", dtype=typ(INT), value=scalar(5))
    g.add("w/Enter", "Enter", ["x"], T=typ(INT), frame_name="w")
    g.add("w/Merge", "Merge", ["w/Enter", "w/NextIteration"], T=typ(INT), N=2)
    g.add("w/limit", "Enter", ["limit"], T=typ(INT), frame_name="w", is_constant=True)
    g.add("w/Less", "Less", ["w/Merge", "w/limit"], T=typ(INT))
    g.add("w/LoopCond", "LoopCond", ["w/Less"])
    g.add("w/Switch", "Switch", ["w/Merge", "w/LoopCond"], T=typ(INT))
    g.add("w/Identity", "Identity", ["w/Switch:1"], T=typ(INT))
    g.add("w/one", "Const", ["^w/Identity"], dtype=typ(INT), value=scalar(1))
    g.add("w/add", "AddV2", ["w/Identity", "w/one"], T=typ(INT))
    g.add("w/NextIteration", "NextIteration", ["w/add"], T=typ(INT))
    g.add("w/Exit", "Exit", ["w/Switch"], T=typ(INT))
    return g


def simple_cond():
    """y = p ? x * 2 : x - 1 -- written as Switch/Merge."""
    g = G()
    g.add("x", "Placeholder", dtype=typ(FLOAT))
    g.add("p", "Placeholder", dtype=typ(BOOL))
    g.add("c/Switch", "Switch", ["x", "p"], T=typ(FLOAT))
    g.add("c/two", "Const", dtype=typ(FLOAT), value=scalar(2.0, FLOAT))
    g.add("c/mul", "Mul", ["c/Switch:1", "c/two"], T=typ(FLOAT))
    g.add("c/one", "Const", dtype=typ(FLOAT), value=scalar(1.0, FLOAT))
    g.add("c/sub", "Sub", ["c/Switch:0", "c/one"], T=typ(FLOAT))
    g.add("c/Merge", "Merge", ["c/sub", "c/mul"], T=typ(FLOAT), N=2)
    g.add("c/index", "Identity", ["c/Merge:1"], T=typ(INT))
    return g




def lowered_case():
    """c = [-x, x * x, x][i] -- a lowered Case: _SwitchN into three branches, one Merge."""
    g = G().add("x", "Placeholder", dtype=typ(FLOAT)).add("i", "Placeholder", dtype=typ(INT))
    g.add("c/SwitchN", "_SwitchN", ["x", "i"], T=typ(FLOAT), num_outs=3)
    g.add("c/b0", "Neg", ["c/SwitchN:0"], T=typ(FLOAT)).add("c/b1", "Square", ["c/SwitchN:1"], T=typ(FLOAT))
    g.add("c/Merge", "Merge", ["c/b0", "c/b1", "c/SwitchN:2"], T=typ(FLOAT), N=3)
    return g
