"""Step stats of traced Session runs (Note [Step stats] in csrc/tensorflux/runtime/step_stats.cc):
RunOptions(trace_level=FULL_TRACE) fills RunMetadata.step_stats with one NodeExecStats per kernel
run, in TensorFlow's format (its RunMetadata parses them and its timeline module reads them)."""

import numpy as np
import pytest

import tensorflux as tx

FULL = tx.RunOptions(trace_level=tx.RunOptions.FULL_TRACE)


def _graph():
    g = tx.Graph()
    with g.as_default():
        x = tx.compat.v1.placeholder(tx.float32, [2, 5, 5, 8], name="x")
        w = tx.constant(np.ones((3, 3, 8, 16), np.float32), name="w")
        b = tx.constant(np.ones(16, np.float32), name="b")
        y = tx.nn.relu(tx.nn.bias_add(tx.nn.conv2d(x, w, 1, "SAME"), b), name="act")
        total = tx.reduce_sum(tx.math.square(y, name="sq"), name="total")
    return g, x, total


def test_traced_run_records_every_kernel_with_outputs():
    g, x, total = _graph()
    with tx.compat.v1.Session(graph=g) as sess:
        meta = tx.RunMetadata()
        value = sess.run(total, {x: np.ones((2, 5, 5, 8), np.float32)}, options=FULL, run_metadata=meta)
    assert value > 0
    (dev,) = meta.step_stats.dev_stats
    assert dev.device.endswith("device:CPU:0")
    stats = {n.node_name: n for n in dev.node_stats}
    assert {"act", "sq", "total", "w", "b"} <= set(stats)
    # The conv chain ran as one fused kernel, labelled with its members and inputs.
    assert stats["act"].timeline_label == "act = _FusedConv2D(Conv2D, BiasAdd, Relu)(x, w, b)"
    assert stats["sq"].timeline_label == "sq = Square(act)"
    (out,) = stats["act"].output
    assert out.tensor_description.dtype == tx.float32.as_datatype_enum
    assert [d.size for d in out.tensor_description.shape.dim] == [2, 5, 5, 16]
    assert out.tensor_description.allocation_description.requested_bytes == 2 * 5 * 5 * 16 * 4
    for n in dev.node_stats:
        assert n.all_start_micros > 0 and n.all_start_nanos // 1000 == n.all_start_micros
        assert n.op_end_rel_nanos >= 0 and n.thread_id > 0
    starts = [stats[k].all_start_nanos for k in ("act", "sq", "total")]
    assert starts == sorted(starts)  # dataflow order


def test_untraced_runs_leave_run_metadata_empty():
    g, x, total = _graph()
    with tx.compat.v1.Session(graph=g) as sess:
        meta = tx.RunMetadata()
        sess.run(total, {x: np.ones((2, 5, 5, 8), np.float32)}, run_metadata=meta)
        sess.run(total, {x: np.ones((2, 5, 5, 8), np.float32)}, options=tx.RunOptions(), run_metadata=meta)
        assert not meta.HasField("step_stats")
        sess.run(total, {x: np.ones((2, 5, 5, 8), np.float32)}, options=FULL)  # no run_metadata: nothing to fill


def test_tensorflow_reads_the_step_stats():
    tf = pytest.importorskip("tensorflow")
    from tensorflow.python.client import timeline
    g, x, total = _graph()
    with tx.compat.v1.Session(graph=g) as sess:
        meta = tf.compat.v1.RunMetadata()  # TensorFlow's message is filled directly
        sess.run(total, {x: np.ones((2, 5, 5, 8), np.float32)},
                 options=tf.compat.v1.RunOptions(trace_level=tf.compat.v1.RunOptions.FULL_TRACE), run_metadata=meta)
    names = {n.node_name for n in meta.step_stats.dev_stats[0].node_stats}
    assert {"act", "total"} <= names
    trace = timeline.Timeline(meta.step_stats).generate_chrome_trace_format()
    assert '"name": "_FusedConv2D(Conv2D, BiasAdd, Relu)"' in trace or "_FusedConv2D" in trace


def test_failing_traced_run_raises_and_the_session_stays_usable():
    g = tx.Graph()
    with g.as_default():
        idx = tx.compat.v1.placeholder(tx.int32, [1])
        out = tx.gather(tx.constant([1.0, 2.0]), idx, name="pick")
    with tx.compat.v1.Session(graph=g) as sess:
        with pytest.raises(tx.errors.InvalidArgumentError, match=r"\[pick\]"):
            sess.run(out, {idx: [5]}, options=FULL, run_metadata=tx.RunMetadata())
        meta = tx.RunMetadata()
        assert sess.run(out, {idx: [1]}, options=FULL, run_metadata=meta)[0] == 2.0
        assert "pick" in {n.node_name for n in meta.step_stats.dev_stats[0].node_stats}
