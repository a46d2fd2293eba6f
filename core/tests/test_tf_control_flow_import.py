"""Frozen TensorFlow 2 graphs with functional control flow (If, StatelessIf, Case, StatelessCase,
While, StatelessWhile calling functions of the GraphDef's library), and one frozen with lowered
control flow (Switch/Merge/Enter/Exit, rebuilt into While/If at import), import and run here with
the outputs TensorFlow computed; one loop writes a tf.TensorArray (TensorList ops). The graphs,
inputs and outputs are checked-in files written by tools/testdata/make_tf_control_flow_graphs.py,
so these tests need no TensorFlow."""

import pathlib

import numpy as np
import pytest

import tensorflux as tx
from tensorflux.proto import graph_pb2

DATA = pathlib.Path(__file__).parent / "data" / "tf_control_flow"

# Model -> the control-flow ops its GraphDef holds (in the graph or in library functions).
MODELS = {
    "cond": {"If", "StatelessIf"},
    "switch_case": {"Case", "StatelessCase", "StatelessWhile"},
    "while_max_iterations": {"StatelessWhile"},
    "nested_while": {"StatelessWhile", "PartitionedCall"},
    "rnn": {"While"},
    "autograph": {"StatelessWhile", "StatelessIf"},
    "tensor_array": {"StatelessWhile", "TensorListReserve", "TensorListSetItem", "TensorListStack"},
}

# Models frozen with lowered control flow -> the ops import rebuilds it into.
LOWERED = {
    "lowered": {"StatelessWhile", "StatelessIf"},
}

def _load(name):
    graph_def = (DATA / (name + ".pb")).read_bytes()
    data = np.load(DATA / (name + ".npz"))
    cases = []
    while "case%d/in0" % len(cases) in data:
        k = len(cases)
        ins = [data["case%d/in%d" % (k, j)] for j in range(len(data["inputs"]))]
        outs = [data["case%d/out%d" % (k, j)] for j in range(len(data["outputs"]))]
        cases.append((ins, outs))
    return graph_def, list(data["inputs"]), list(data["outputs"]), cases


def _op_types(graph_def):
    g = graph_pb2.GraphDef.FromString(graph_def)
    return {n.op for n in g.node} | {n.op for f in g.library.function for n in f.node_def}


def _run_cases(graph_def, input_names, output_names, cases):
    """Imports `graph_def` into a new graph and runs every case; returns the results per case."""
    with tx.Graph().as_default() as g:
        tensors = tx.import_graph_def(graph_def, return_elements=input_names + output_names, name="tf")
        xs, ys = tensors[:len(input_names)], tensors[len(input_names):]
        with tx.Session() as s:
            return g, [s.run(ys, dict(zip(xs, ins))) for ins, _ in cases]


def _check(got, want, where):
    assert got.dtype == want.dtype and got.shape == want.shape, (where, got.dtype, got.shape, want.dtype, want.shape)
    if np.issubdtype(want.dtype, np.floating):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=where)
    else:
        np.testing.assert_array_equal(got, want, err_msg=where)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_frozen_graph_runs_with_tensorflow_results(name):
    graph_def, input_names, output_names, cases = _load(name)
    assert MODELS[name] <= _op_types(graph_def)  # the control flow was not lowered
    assert cases
    g, results = _run_cases(graph_def, input_names, output_names, cases)
    assert MODELS[name] & {op.type for op in g.get_operations()}  # the graph's own control-flow nodes
    for k, ((_, want), got) in enumerate(zip(cases, results)):
        for j, (a, b) in enumerate(zip(got, want)):
            _check(a, b, "%s case %d output %d (%s)" % (name, k, j, output_names[j]))


@pytest.mark.parametrize("name", sorted(LOWERED))
def test_lowered_graph_is_rebuilt_and_runs_with_tensorflow_results(name):
    graph_def, input_names, output_names, cases = _load(name)
    assert {"Switch", "Merge", "Enter", "Exit", "NextIteration", "LoopCond"} <= _op_types(graph_def)
    g, results = _run_cases(graph_def, input_names, output_names, cases)
    types = {op.type for op in g.get_operations()}
    assert LOWERED[name] <= types and not types & {"Switch", "Merge", "Enter", "Exit", "NextIteration", "LoopCond"}
    for k, ((_, want), got) in enumerate(zip(cases, results)):
        for j, (a, b) in enumerate(zip(got, want)):
            _check(a, b, "%s case %d output %d (%s)" % (name, k, j, output_names[j]))


@pytest.mark.parametrize("name", ["cond", "rnn", "switch_case", "lowered"])
def test_reexported_graph_runs_the_same(name):
    """The imported graph, exported again with its function library, imports and runs the same."""
    graph_def, input_names, output_names, cases = _load(name)
    g, first = _run_cases(graph_def, input_names, output_names, cases)
    exported = g.as_graph_def().SerializeToString()
    _, again = _run_cases(exported, ["tf/" + n for n in input_names], ["tf/" + n for n in output_names], cases)
    for a, b in zip(first, again):
        for x, y in zip(a, b):
            np.testing.assert_array_equal(x, y)
