"""Lowered (TensorFlow 1) control flow that is not valid, written node by node as GraphDefs: import
fails with an error naming the node and leaves the graph as it was; the valid hand-written loop
and cond import and run. Lowered ops built directly into a graph fail when run, naming the node."""

import numpy as np
import pytest

import tensorflux as tx
from lowered_graphs import BOOL, FLOAT, INT, G, counting_loop, lowered_case, simple_cond, typ

def _run(g, fetch, feeds):
    with tx.Graph().as_default() as graph:
        tx.import_graph_def(g.bytes(), name="")
        with tx.Session() as s:
            return graph, s.run(fetch, feeds)


def test_hand_written_loop_and_cond_run():
    graph, v = _run(counting_loop(), "w/Exit:0", {"x:0": 1})
    assert v == 5
    assert "StatelessWhile" in {op.type for op in graph.get_operations()}
    assert _run(counting_loop(), "w/Exit:0", {"x:0": 9})[1] == 9
    _, (a, i) = _run(simple_cond(), ["c/Merge:0", "c/index:0"], {"x:0": 3.0, "p:0": True})
    assert (a, i) == (6.0, 1)  # value_index: the position of the Merge input that had the value
    _, (a, i) = _run(simple_cond(), ["c/Merge:0", "c/index:0"], {"x:0": 3.0, "p:0": False})
    assert (a, i) == (2.0, 0)


def _fails(g, error, match):
    with tx.Graph().as_default() as graph:
        before = tx.constant(1.0, name="before")
        with pytest.raises(error, match=match):
            tx.import_graph_def(g.bytes(), name="")
        assert graph.get_operations() == [before.op]  # all or nothing
        with tx.Session() as s:  # the graph stays usable
            assert s.run(before) == 1.0


def test_loop_frame_without_exit():
    _fails(counting_loop().drop("w/Exit"), tx.errors.InvalidArgumentError,
           r"^\[w/Enter\] while loop frame 'w' has no Exit node")


def test_mismatched_loop_merge_inputs():
    g = counting_loop()
    g.node("w/Merge").input[:] = ["w/Enter", "w/NextIteration", "limit"]
    g.node("w/Merge").attr["N"].i = 3
    _fails(g, tx.errors.InvalidArgumentError, r"^\[w/Merge\] mismatched Merge inputs: a Merge of while loop frame 'w' "
                                              r"must join one Enter of the frame and one NextIteration")


def test_cond_merge_without_data_inputs():
    """Found by the graphdef fuzzer: a Merge left with only a control input indexed an empty list."""
    g = simple_cond()
    g.node("c/Merge").input[:] = ["^x"]
    g.node("c/Merge").attr["N"].i = 0
    _fails(g, tx.errors.InvalidArgumentError, r"^\[c/Merge\] Merge has no data inputs")


def test_mismatched_cond_merge_inputs():
    g = simple_cond()
    g.node("c/Merge").input[:] = ["c/mul", "x"]  # one branch and an unconditional value: both may exist
    _fails(g, tx.errors.InvalidArgumentError,
           r"^\[c/Merge\] mismatched Merge inputs: they do not come from the branches of one cond \('c/mul' exists "
           r"when p selects branch 1; 'x' exists always\)")
    g = simple_cond().add("q", "Placeholder", dtype=typ(BOOL)).add("c/Switch_q", "Switch", ["x", "q"], T=typ(FLOAT))
    g.node("c/Merge").input[:] = ["c/Switch_q:0", "c/mul"]  # branches of two different predicates
    _fails(g, tx.errors.InvalidArgumentError, r"^\[c/Merge\] mismatched Merge inputs")


def test_branch_reading_a_switch_output_that_does_not_exist():
    """Found by the graphdef fuzzer: a node reading output 4 of a 3-way _SwitchN indexed past the
    cond's branch list (heap overflow under ASan)."""
    g = lowered_case()
    g.node("c/b0").input[:] = ["c/SwitchN:4"]
    _fails(g, tx.errors.InvalidArgumentError,
           r"^\[c/b0\] is in branch 4 of the cond on 'i', which has 3 branches \(it reads a switch output")


def test_next_iteration_without_enter():
    g = G().add("x", "Placeholder", dtype=typ(INT)).add("n", "NextIteration", ["x"], T=typ(INT))
    _fails(g, tx.errors.InvalidArgumentError, r"^\[n\] NextIteration is outside any while loop frame \(no Enter")


def test_next_iteration_feeding_no_merge():
    g = counting_loop().add("w/stray", "NextIteration", ["w/add"], T=typ(INT))
    _fails(g, tx.errors.InvalidArgumentError, r"^\[w/stray\] NextIteration of while loop frame 'w' feeds no Merge")


def test_cycle_not_through_next_iteration():
    g = counting_loop()
    g.add("a", "Neg", ["b"], T=typ(INT)).add("b", "Neg", ["a"], T=typ(INT))
    _fails(g, tx.errors.InvalidArgumentError,
           r"^\[[ab]\] graph contains a cycle involving node '[ab]' that does not pass through a NextIteration")


def test_inputs_from_two_frames():
    g = counting_loop().add("bad", "AddV2", ["w/Identity", "w/Exit"], T=typ(INT))  # a loop value and its result
    _fails(g, tx.errors.InvalidArgumentError, r"^\[bad\] has inputs from different frames: 'w/Identity' is in "
                                              r"frame 'w' and 'w/Exit' in frame '\(root\)'")


def test_switch_on_a_predicate_already_taken():
    g = simple_cond().add("again", "Switch", ["c/mul", "p"], T=typ(FLOAT)).add("dead", "Neg", ["again:0"], T=typ(FLOAT))
    _fails(g, tx.errors.InvalidArgumentError, r"^\[dead\] reads output 0 of Switch 'again', which never has a value")


def test_loop_variable_enter_not_constant_without_merge():
    g = counting_loop().add("w/loose", "Enter", ["x"], T=typ(INT), frame_name="w")
    _fails(g, tx.errors.InvalidArgumentError, r"^\[w/loose\] Enter \(is_constant=false\) of while loop frame 'w' "
                                              r"feeds no Merge")


def test_node_in_both_branches():
    g = simple_cond().add("both", "AddV2", ["c/mul", "c/sub"], T=typ(FLOAT))
    _fails(g, tx.errors.InvalidArgumentError, r"^\[both\] has inputs from different branches \(1 and 0\) of the cond "
                                              r"on 'p', so it would never run")


def test_switch_without_merge():
    g = G().add("x", "Placeholder", dtype=typ(FLOAT)).add("p", "Placeholder", dtype=typ(BOOL))
    g.add("s", "Switch", ["x", "p"], T=typ(FLOAT)).add("y", "Neg", ["s:1"], T=typ(FLOAT))
    _fails(g, tx.errors.InvalidArgumentError, r"^\[y\] reads Switch 's', but the branch reaches no Merge")


def test_deep_nesting_is_refused():
    g = G().add("x", "Placeholder", dtype=typ(FLOAT))
    prev, depth = "x", 120
    for k in range(depth):
        g.add("p%d" % k, "Placeholder", dtype=typ(BOOL))
        g.add("s%d" % k, "Switch", [prev, "p%d" % k], T=typ(FLOAT))
        prev = "s%d:1" % k
    for k in reversed(range(depth)):
        g.add("m%d" % k, "Merge", ["s%d:0" % k, prev], T=typ(FLOAT), N=2)
        prev = "m%d" % k
    _fails(g, tx.errors.InvalidArgumentError, r"lowered control flow is nested more than 100 levels deep")


def test_lowered_ops_built_directly_fail_when_run():
    with tx.Graph().as_default() as g:
        from tensorflux._src.generated import gen_ops

        x = tx.placeholder(tx.float32, [2], name="x")
        f, t = gen_ops.switch(x, tx.constant(True), name="sw")
        assert t.shape.as_list() == [2]
        with tx.Session() as s:
            with pytest.raises(tx.errors.UnimplementedError,
                               match=r"^\[sw\] Switch is lowered \(TensorFlow 1\) "
                                     r"control flow, which runs only once GraphDef import"):
                s.run(t, {x: np.ones(2, np.float32)})
            assert s.run(x * 2.0, {x: np.ones(2, np.float32)}).tolist() == [2.0, 2.0]
        # Exported and imported again, the same graph runs: import rebuilds it (here: a Switch with no Merge
        # and no reader is dropped, so fetching it names the missing node).
        exported = g.as_graph_def().SerializeToString()
    with tx.Graph().as_default():
        with pytest.raises(tx.errors.NotFoundError, match="'sw:1' names no node"):
            tx.import_graph_def(exported, return_elements=["sw:1"], name="")


def testlowered_case_runs():
    for i, want in [(0, -3.0), (1, 9.0), (2, 3.0), (7, 3.0), (-1, 3.0)]:  # out of range: the last branch
        graph, got = _run(lowered_case(), "c/Merge:0", {"x:0": 3.0, "i:0": i})
        assert got == want, i
    assert "StatelessCase" in {op.type for op in graph.get_operations()}


def _mutate(rng, gd):
    """One random structural change: rewire an input, drop a node, or add a control edge."""
    nodes = list(gd.node)
    n = nodes[rng.integers(len(nodes))]
    other = nodes[rng.integers(len(nodes))]
    kind = rng.integers(4)
    if kind == 0 and n.input:
        k = rng.integers(len(n.input))
        n.input[k] = other.name + ("" if rng.integers(2) else ":1")
    elif kind == 1:
        nodes.remove(n)
        del gd.node[:]
        gd.node.extend(nodes)
    elif kind == 2:
        n.input.append("^" + other.name)
    elif n.input:
        del n.input[rng.integers(len(n.input))]


@pytest.mark.parametrize("seed", range(4))
def test_mutated_lowered_graphs_fail_cleanly(seed):
    """Random rewirings of valid lowered graphs import or fail with an error; what imports runs or
    fails with an error (a run that would loop forever is stopped by its deadline)."""
    from tensorflux.proto import config_pb2

    rng = np.random.default_rng(seed)
    makers = [counting_loop, simple_cond, lowered_case]
    options = config_pb2.RunOptions(timeout_in_ms=2000)
    imported = 0
    for _ in range(250):
        g = makers[rng.integers(len(makers))]()
        for _ in range(rng.integers(1, 3)):
            _mutate(rng, g.gd)
        with tx.Graph().as_default() as graph:
            try:
                tx.import_graph_def(g.bytes(), name="")
            except (tx.errors.OpError, ValueError):
                assert graph.get_operations() == []
                continue
            imported += 1
            feeds = {op.outputs[0]: np.zeros([], op.get_attr("dtype").as_numpy_dtype)
                     for op in graph.get_operations() if op.type == "Placeholder"}
            fetches = [op.outputs[0] for op in graph.get_operations() if op.outputs]
            with tx.Session() as s:
                for f in fetches:
                    try:
                        s.run(f, feeds, options=options)
                    except (tx.errors.OpError, ValueError):
                        pass
    assert imported > 0


def test_gradient_of_a_lowered_op_built_directly_is_an_error():
    with tx.Graph().as_default():
        from tensorflux._src.generated import gen_ops

        x = tx.placeholder(tx.float32, [2])
        _, t = gen_ops.switch(x, tx.constant(True))
        with pytest.raises(tx.errors.UnimplementedError,
                           match="no gradient for lowered control flow: import the graph"):
            tx.gradients(tx.reduce_sum(t), [x])
