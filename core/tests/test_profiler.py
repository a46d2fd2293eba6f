"""tx.profiler (Note [Profiler] in csrc/tensorflux/runtime/profiler.cc) and the step stats of function
bodies (Note [Step stats]): a recording profile traces every session run and eager op, the kernels
of the function bodies they run included, into a Chrome trace-event file; a traced Session.run
records the nodes of the functions it calls."""

import gzip
import json

import numpy as np
import pytest

import tensorflux as tx

FULL = tx.RunOptions(trace_level=tx.RunOptions.FULL_TRACE)


def _events(path):
    with gzip.open(path) as f:
        trace = json.load(f)
    return [e for e in trace["traceEvents"] if e["ph"] == "X"], trace["traceEvents"]


@pytest.mark.eager
def test_profile_records_eager_ops_and_function_bodies(tmp_path):
    @tx.function
    def f(x):
        return tx.tanh(x * 2.0 + 1.0) + tx.reduce_sum(x)

    x = tx.constant([1.0, 2.0])
    f(x)  # traced and planned before the profile: the profile shows runs, not tracing
    with tx.profiler.experimental.Profile(str(tmp_path)):
        y = f(x)
        z = tx.constant([1.0]) * 3.0
    np.testing.assert_allclose(y.numpy(), np.tanh(np.array([3.0, 5.0])) + 3.0, rtol=1e-6)
    assert z.numpy().tolist() == [3.0]
    path = tx.profiler.experimental.last_trace_path()
    assert path.startswith(str(tmp_path)) and "/plugins/profile/" in path and path.endswith(".trace.json.gz")
    events, all_events = _events(path)
    names = [e["name"] for e in events]
    # The call, the body's kernels (its elementwise chain as one fused loop) and the eager Mul.
    assert "StatefulPartitionedCall" in names and "Mul" in names
    assert "_FusedElementwise" in names and "Sum" in names
    call = events[names.index("StatefulPartitionedCall")]
    body = events[names.index("Sum")]
    assert call["ts"] <= body["ts"] and body["ts"] + body["dur"] <= call["ts"] + call["dur"] + 1  # spans its body
    for e in events:
        assert e["dur"] >= 0 and e["tid"] > 0 and e["args"]["long_name"].startswith(e["args"]["name"] + " = ")
    assert any(e["ph"] == "M" and e["args"]["name"].endswith("device:CPU:0") for e in all_events)


def test_profile_records_session_runs_beside_run_metadata(tmp_path):
    g = tx.Graph()
    with g.as_default():
        x = tx.compat.v1.placeholder(tx.float32, [3], name="x")
        y = tx.reduce_sum(tx.exp(x, name="e") * 2.0, name="total")
    with tx.compat.v1.Session(graph=g) as sess:
        tx.profiler.experimental.start(str(tmp_path))
        meta = tx.RunMetadata()
        value = sess.run(y, {x: np.zeros(3, np.float32)}, options=FULL, run_metadata=meta)
        tx.profiler.experimental.stop()
        assert value == 6.0
        sess.run(y, {x: np.zeros(3, np.float32)})  # after stop: not recorded anywhere
    events, _ = _events(tx.profiler.experimental.last_trace_path())
    assert {e["args"]["name"] for e in events} == {n.node_name for n in meta.step_stats.dev_stats[0].node_stats}
    assert "total" in {e["args"]["name"] for e in events}


def test_start_twice_and_stop_without_start_raise_and_the_profiler_stays_usable(tmp_path):
    tx.profiler.experimental.start(str(tmp_path))
    with pytest.raises(tx.errors.AlreadyExistsError, match="Another profiler is running"):
        tx.profiler.experimental.start(str(tmp_path))
    tx.profiler.experimental.stop(save=False)
    with pytest.raises(tx.errors.UnavailableError, match="No profiler is running"):
        tx.profiler.experimental.stop()
    with tx.profiler.experimental.Profile(str(tmp_path / "again")):
        pass
    events, _ = _events(tx.profiler.experimental.last_trace_path())
    assert events == []


def _node_names(meta):
    return [n.node_name for n in meta.step_stats.dev_stats[0].node_stats]


def test_traced_session_run_records_the_nodes_of_called_functions():
    @tx.function
    def inner(v):
        return tx.reduce_sum(tx.square(v), name="ssum") + v

    g = tx.Graph()
    with g.as_default():
        x = tx.compat.v1.placeholder(tx.float32, [2], name="x")
        y = tx.identity(inner(x), name="out")
        loop = tx.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * 2.0), [tx.constant(0), x])[1]
    with tx.compat.v1.Session(graph=g) as sess:
        meta = tx.RunMetadata()
        got, looped = sess.run([y, loop], {x: np.array([1.0, 2.0], np.float32)}, options=FULL, run_metadata=meta)
    np.testing.assert_allclose(got, [6.0, 7.0])
    np.testing.assert_allclose(looped, [8.0, 16.0])
    names = _node_names(meta)
    assert "out" in names and "ssum" in names  # a body node, recorded inside its call
    ops = [n.timeline_label.split(" = ")[1].split("(")[0] for n in meta.step_stats.dev_stats[0].node_stats]
    # The loop's condition ran 4 times and its body 3 times, each body once per iteration.
    assert ops.count("Less") == 4
    assert names.index("ssum") < names.index("out")
