"""Conformance entries: the lowered (TensorFlow 1) control-flow ops Switch, Merge, Enter, Exit,
NextIteration and LoopCond (_SwitchN is internal, tested in test_tf1_control_flow_errors.py).

These ops run only inside lowered control flow that GraphDef import rebuilds into While/If
(docs/control_flow.md), so every sample builds a small lowered graph around its op as a GraphDef
and imports it (the `build` hook); the error samples add the op directly to a graph, where running
it fails naming the node. Their gradients are an error by design (test_gradients_table.py,
GRADIENT_RAISES): the rebuilt While/If are differentiated instead (test_tf1_control_flow.py
checks those gradients against TensorFlow). cross_check is off: tf.raw_ops cannot run these ops
outside TensorFlow's own executor frames.
"""

from __future__ import annotations

import numpy as np

import tensorflux as tx
from tensorflux._src.generated import gen_ops

from conformance.gen import rand
from conformance.harness import ErrorSample, OpEntry, Sample
from lowered_graphs import BOOL, INT, G, scalar, typ

_DTYPES = {np.float32: 1, np.float64: 2, np.int32: INT}


def _import(g: G, outputs, feeds):
    names = list(feeds) + outputs
    tensors = tx.import_graph_def(g.bytes(), return_elements=names, name="")
    return tensors[len(feeds):], dict(zip(tensors[:len(feeds)], feeds.values()))


def _loop(data, n, step):
    """acc = data; k = 0; while k < n: acc = step(acc, data_invariant); k += 1 -- lowered by hand."""
    t = typ(_DTYPES[data.dtype.type])
    g = G().add("data", "Placeholder", dtype=t).add("n", "Placeholder", dtype=typ(INT))
    g.add("zero", "Const", dtype=typ(INT), value=scalar(0))
    g.add("w/acc0", "Enter", ["data"], T=t, frame_name="w").add("w/k0", "Enter", ["zero"], T=typ(INT), frame_name="w")
    g.add("w/inv", "Enter", ["data"], T=t, frame_name="w", is_constant=True)
    g.add("w/n", "Enter", ["n"], T=typ(INT), frame_name="w", is_constant=True)
    g.add("w/acc", "Merge", ["w/acc0", "w/acc_next"], T=t, N=2)
    g.add("w/k", "Merge", ["w/k0", "w/k_next"], T=typ(INT), N=2)
    g.add("w/less", "Less", ["w/k", "w/n"], T=typ(INT)).add("w/cond", "LoopCond", ["w/less"])
    g.add("w/acc_sw", "Switch", ["w/acc", "w/cond"], T=t).add("w/k_sw", "Switch", ["w/k", "w/cond"], T=typ(INT))
    g.add("w/one", "Const", ["^w/k_sw"], dtype=typ(INT), value=scalar(1))
    g.add("w/k1", "AddV2", ["w/k_sw:1", "w/one"], T=typ(INT))
    step(g, "w/acc_sw:1", "w/inv", "w/acc1", t)
    g.add("w/acc_next", "NextIteration", ["w/acc1"], T=t).add("w/k_next", "NextIteration", ["w/k1"], T=typ(INT))
    g.add("w/acc_out", "Exit", ["w/acc_sw"], T=t).add("w/k_out", "Exit", ["w/k_sw"], T=typ(INT))
    return _import(g, ["w/acc_out:0", "w/k_out:0"], {"data:0": data, "n:0": np.int32(n)})


def _add_invariant(g, acc, inv, out, t):
    g.add(out, "AddV2", [acc, inv], T=t)


def _double(g, acc, inv, out, t):
    g.add(out, "AddV2", [acc, acc], T=t)


def _build_loop(step):
    return lambda sample: _loop(np.asarray(sample.inputs["data"]), sample.inputs["n"], step)


def _build_switch(sample):
    """Switch(data, pred) -> (Neg on false, Identity on true) -> Merge: a lowered cond."""
    data = np.asarray(sample.inputs["data"])
    t = typ(_DTYPES[data.dtype.type])
    g = G().add("data", "Placeholder", dtype=t).add("pred", "Placeholder", dtype=typ(BOOL))
    g.add("c/Switch", "Switch", ["data", "pred"], T=t)
    g.add("c/neg", "Neg", ["c/Switch:0"], T=t).add("c/same", "Identity", ["c/Switch:1"], T=t)
    g.add("c/Merge", "Merge", ["c/neg", "c/same"], T=t, N=2)
    return _import(g, ["c/Merge:0"], {"data:0": data, "pred:0": np.bool_(sample.inputs["pred"])})


def _build_merge(sample):
    """Merge(Switch(a, p):0, Switch(b, p):1) and its value_index: b when p, else a."""
    a, b = (np.asarray(v) for v in sample.inputs["inputs"])
    t = typ(_DTYPES[a.dtype.type])
    g = G().add("a", "Placeholder", dtype=t).add("b", "Placeholder", dtype=t).add("p", "Placeholder", dtype=typ(BOOL))
    g.add("c/sa", "Switch", ["a", "p"], T=t).add("c/sb", "Switch", ["b", "p"], T=t)
    g.add("c/Merge", "Merge", ["c/sa:0", "c/sb:1"], T=t, N=2).add("index", "Identity", ["c/Merge:1"], T=typ(INT))
    return _import(g, ["c/Merge:0", "index:0"], {"a:0": a, "b:0": b, "p:0": np.bool_(sample.inputs["pred"])})


def _direct(op):
    """The op added straight to a graph (no import): running it fails, naming the node."""
    def build(sample):
        x = tx.constant(np.ones(2, np.float32))
        if op == "Switch":
            return list(gen_ops.switch(x, tx.constant(True))), {}
        if op == "Merge":
            return list(gen_ops.merge([x, x])), {}
        if op == "Enter":
            return [gen_ops.enter(x, frame_name="f")], {}
        if op == "LoopCond":
            return [gen_ops.loop_cond(tx.constant(True))], {}
        return [getattr(gen_ops, {"Exit": "exit", "NextIteration": "next_iteration"}[op])(x)], {}
    return build


def _builder(op, build):
    direct = _direct(op)
    return lambda sample: direct(sample) if sample.inputs.get("direct") else build(sample)


def _errors(op):
    return [ErrorSample({"direct": True}, error=tx.errors.UnimplementedError, when="runtime",
                        match=r"is lowered \(TensorFlow 1\) control flow, which runs only once GraphDef import")]


def _loop_samples():
    out = []
    for k, dt in enumerate(_DTYPES):
        for n in (0, 1, 5):
            out.append(Sample({"data": rand((2, 3), dt, seed=k + n), "n": n},
                              note="%s, %d iterations" % (np.dtype(dt).name, n)))
    out.append(Sample({"data": np.float32(1.5), "n": -2}, note="scalar, no iteration"))
    return out


def _loop_ref(step):
    def ref(data, n, **_):
        acc = np.asarray(data)
        for _ in range(max(n, 0)):
            acc = step(acc, np.asarray(data))
        return acc, np.int32(max(n, 0))
    return ref


_SWITCH = [Sample({"data": rand((2, 3), dt, seed=3), "pred": p}, note="%s, pred %s" % (np.dtype(dt).name, p))
           for dt in _DTYPES for p in (True, False)]
_MERGE = [Sample({"inputs": [rand((3,), dt, seed=4), rand((3,), dt, seed=5)], "pred": p},
                 note="%s, pred %s" % (np.dtype(dt).name, p)) for dt in _DTYPES for p in (True, False)]


def _loop_entry(op, step_graph, step_ref):
    return OpEntry(op, _loop_samples(), ref=_loop_ref(step_ref), build=_builder(op, _build_loop(step_graph)),
                   errors=_errors(op), cross_check=False)


ENTRIES = [
    OpEntry("Switch", _SWITCH, ref=lambda data, pred, **_: np.asarray(data) if pred else -np.asarray(data),
            build=_builder("Switch", _build_switch), errors=_errors("Switch"), cross_check=False),
    OpEntry("Merge", _MERGE,
            ref=lambda inputs, pred, **_: (np.asarray(inputs[1 if pred else 0]), np.int32(1 if pred else 0)),
            build=_builder("Merge", _build_merge), errors=_errors("Merge"), cross_check=False),
    _loop_entry("Enter", _add_invariant, lambda acc, x: acc + x),
    _loop_entry("Exit", _double, lambda acc, x: acc + acc),
    _loop_entry("NextIteration", _add_invariant, lambda acc, x: acc + x),
    _loop_entry("LoopCond", _double, lambda acc, x: acc + acc),
]
