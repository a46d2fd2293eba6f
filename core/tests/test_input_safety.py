"""Input safety (issue 16): non-canonical bool bytes from every entry point read as 0/1, bounded
function nesting and deep chains, thread exhaustion, FIFO and killed checkpoint saves."""

import json
import os
import signal
import socket
import struct
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tensorflux as tx
from tensorflux._src import safetensors_io as st
from tensorflux.proto import graph_pb2, types_pb2

# Bytes 0, 1, 2, 255 viewed as bool: NumPy reads the last three as True.
RAW = np.array([0, 1, 2, 255], np.uint8)
TRUTH = np.array([False, True, True, True])
# A bound for the subprocesses below: a regression hangs (blocks in open, deadlocks) rather than fails.
HANG_GUARD_S = 120


def _raw_bools():
    return RAW.copy().view(np.bool_)


def _assert_canonical(a, expected=TRUTH):
    a = np.asarray(a)
    assert a.dtype == np.bool_
    np.testing.assert_array_equal(a.view(np.uint8), np.asarray(expected).astype(np.uint8))


# ---- Note [Canonical bool]: feeds, eager inputs, Const attrs, TensorProto, safetensors ----

def test_fed_bool_view_is_read_as_canonical():
    with tx.Graph().as_default():
        p = tx.placeholder(tx.bool, [4])
        ops = (tx.where(p), tx.logical_not(p), tx.equal(p, True), tx.identity(p))
        fed = _raw_bools()
        with tx.Session() as sess:
            where, lnot, eq, ident = sess.run(ops, {p: fed})
    np.testing.assert_array_equal(where, [[1], [2], [3]])
    _assert_canonical(lnot, ~TRUTH)
    _assert_canonical(eq, TRUTH)
    _assert_canonical(ident, TRUTH)
    np.testing.assert_array_equal(fed.view(np.uint8), RAW)  # the caller's memory is not written


@pytest.mark.eager
def test_eager_bool_input_is_read_as_canonical():
    x = tx.constant(_raw_bools())
    np.testing.assert_array_equal(tx.where(x).numpy(), [[1], [2], [3]])
    _assert_canonical(tx.logical_not(x).numpy(), ~TRUTH)
    _assert_canonical(tx.equal(x, True).numpy(), TRUTH)
    _assert_canonical(x.numpy(), TRUTH)


def test_graph_const_bool_attr_is_canonical():
    with tx.Graph().as_default():
        c = tx.constant(_raw_bools())
        with tx.Session() as sess:
            lnot, where = sess.run((tx.logical_not(c), tx.where(c)))
    _assert_canonical(lnot, ~TRUTH)
    np.testing.assert_array_equal(where, [[1], [2], [3]])


def test_tensor_proto_bool_content_is_decoded_canonical():
    gd = graph_pb2.GraphDef()
    n = gd.node.add()
    n.name, n.op = "c", "Const"
    n.attr["dtype"].type = types_pb2.DT_BOOL
    t = n.attr["value"].tensor
    t.dtype = types_pb2.DT_BOOL
    t.tensor_shape.dim.add().size = 4
    t.tensor_content = RAW.tobytes()
    with tx.Graph().as_default():
        (c,) = tx.import_graph_def(gd, return_elements=["c:0"], name="")
        with tx.Session() as sess:
            value, lnot = sess.run((c, tx.logical_not(c)))
    _assert_canonical(value, TRUTH)
    _assert_canonical(lnot, ~TRUTH)


def test_safetensors_bool_bytes_are_loaded_canonical(tmp_path):
    path = tmp_path / "b.safetensors"
    header = json.dumps({"m": {"dtype": "BOOL", "shape": [4], "data_offsets": [0, 4]}}).encode()
    path.write_bytes(struct.pack("<Q", len(header)) + header + RAW.tobytes())
    _assert_canonical(st.load_file(path)["m"], TRUTH)


def test_saving_a_bool_view_writes_canonical_bytes(tmp_path):
    path = tmp_path / "b.safetensors"
    st.save_file({"m": _raw_bools()}, path)
    assert path.read_bytes()[-4:] == bytes([0, 1, 1, 1])


# ---- Bounded function nesting; deep chains of ordinary nodes ----

def _function_chain(depth):
    """A GraphDef whose library holds f0 .. f{depth-1}, each calling the next (the last negates)."""
    gd = graph_pb2.GraphDef()
    for i in range(depth):
        f = gd.library.function.add()
        f.signature.name = "f%d" % i
        a = f.signature.input_arg.add()
        a.name, a.type = "x", types_pb2.DT_FLOAT
        o = f.signature.output_arg.add()
        o.name, o.type = "y", types_pb2.DT_FLOAT
        n = f.node_def.add()
        n.input.append("x")
        if i + 1 < depth:
            _call(n, "call", "f%d" % (i + 1))
            f.ret["y"] = "call:output:0"
        else:
            n.name, n.op = "neg", "Neg"
            n.attr["T"].type = types_pb2.DT_FLOAT
            f.ret["y"] = "neg:y:0"
    x = gd.node.add()
    x.name, x.op = "x", "Placeholder"
    x.attr["dtype"].type = types_pb2.DT_FLOAT
    c = gd.node.add()
    c.input.append("x")
    _call(c, "c", "f0")
    return gd


def _call(node, name, function):
    """Makes `node` a PartitionedCall of `function` (float -> float)."""
    node.name, node.op = name, "PartitionedCall"
    node.attr["f"].func.name = function
    node.attr["Tin"].list.type.append(types_pb2.DT_FLOAT)
    node.attr["Tout"].list.type.append(types_pb2.DT_FLOAT)


def test_deeply_nested_function_calls_are_an_error():
    gd = _function_chain(2000)
    assert len(gd.SerializeToString()) > 200_000
    with tx.Graph().as_default():
        with pytest.raises(tx.errors.InvalidArgumentError,
                           match=r"\[c\] function calls are nested deeper than the limit of 100: "
                                 r"f0 -> f1 -> f2 -> .* \(101 functions\)") as info:
            tx.import_graph_def(gd, name="")
    assert len(str(info.value)) < 2000  # the chain is abbreviated


def test_nesting_is_bounded_when_inner_bodies_were_cached_first():
    # Calls of f149, f148, ... f0 in that order: each instantiation finds its callee's body cached,
    # so the bound must come from the bodies' recorded nesting, not from the instantiation stack.
    gd = _function_chain(150)
    del gd.node[-1]
    for i in reversed(range(150)):
        c = gd.node.add()
        c.input.append("x")
        _call(c, "c%d" % i, "f%d" % i)
    with tx.Graph().as_default():
        with pytest.raises(tx.errors.InvalidArgumentError,
                           match=r"\[c49\] function calls are nested deeper than the limit of 100: "
                                 r"f49 -> f50 -> f51 -> f52 -> f53 -> f54 -> \.\.\. \(101 functions\)"):
            tx.import_graph_def(gd, name="")


def test_moderately_nested_function_calls_run():
    with tx.Graph().as_default():
        x, c = tx.import_graph_def(_function_chain(20), return_elements=["x:0", "c:0"], name="")
        with tx.Session() as sess:
            np.testing.assert_array_equal(sess.run(c, {x: np.array([1.0, -2.0], np.float32)}), [-1.0, 2.0])


def test_100k_node_chain_imports_runs_and_differentiates():
    depth = 100_000
    gd = graph_pb2.GraphDef()
    x = gd.node.add()
    x.name, x.op = "x", "Placeholder"
    x.attr["dtype"].type = types_pb2.DT_FLOAT
    prev = "x"
    for i in range(depth):
        n = gd.node.add()
        n.name, n.op = "n%d" % i, "Neg"
        n.attr["T"].type = types_pb2.DT_FLOAT
        n.input.append(prev)
        prev = n.name
    with tx.Graph().as_default():
        xt, yt = tx.import_graph_def(gd, return_elements=["x:0", prev + ":0"], name="")
        (g,) = tx.gradients(yt, [xt])
        with tx.Session() as sess:
            y, dx = sess.run((yt, g), {xt: np.array([3.0], np.float32)})
    np.testing.assert_array_equal(y, [3.0])  # an even number of negations
    np.testing.assert_array_equal(dx, [1.0])


# ---- Thread exhaustion: ResourceExhausted, not a hang ----

_MANY_THREADS = textwrap.dedent("""
    import resource, sys
    import numpy as np
    import tensorflux as tx
    # 1 GiB of address space beyond what the process maps now: far fewer than 5000 thread stacks.
    used = int(open("/proc/self/statm").read().split()[0]) * resource.getpagesize()
    resource.setrlimit(resource.RLIMIT_AS, (used + (1 << 30), resource.getrlimit(resource.RLIMIT_AS)[1]))
    try:
        if sys.argv[1] == "session":
            with tx.Graph().as_default():
                tx.constant(1.0)
                tx.Session(config={"intra_op_parallelism_threads": 5000}).close()
        else:
            tx.constant(1.0) + 1.0
    except tx.errors.ResourceExhaustedError as e:
        print("ResourceExhaustedError", e)
        sys.exit(3)
""")


@pytest.mark.parametrize("kind", ["session", "eager"])
def test_too_many_threads_is_resource_exhausted(kind):
    env = dict(os.environ, TX_NUM_THREADS="5000")
    out = subprocess.run([sys.executable, "-c", _MANY_THREADS, kind], capture_output=True, text=True, env=env,
                         timeout=HANG_GUARD_S)
    assert out.returncode == 3, out.stdout + out.stderr
    assert "cannot start worker thread" in out.stdout and "of 4999" in out.stdout


# ---- Checkpoint files: FIFOs, killed saves ----

_READ_FIFO = textwrap.dedent("""
    import sys
    import tensorflux as tx
    from tensorflux._src import safetensors_io as st
    try:
        st.load_file(sys.argv[1])
    except tx.errors.FailedPreconditionError as e:
        print("FailedPreconditionError", e)
        sys.exit(3)
""")


def test_fifo_checkpoint_path_is_rejected_without_blocking(tmp_path):
    fifo = tmp_path / "ckpt.safetensors"
    os.mkfifo(fifo)
    out = subprocess.run([sys.executable, "-c", _READ_FIFO, str(fifo)], capture_output=True, text=True,
                         timeout=HANG_GUARD_S)
    assert out.returncode == 3, out.stdout + out.stderr
    assert "is not a regular file" in out.stdout and str(fifo) in out.stdout


_SLOW_SAVE = textwrap.dedent("""
    import sys
    import numpy as np
    from tensorflux._src import safetensors_io as st
    print("saving", flush=True)
    st.save_file({"big": np.ones(1 << 28, np.uint8)}, sys.argv[1])
""")


def test_save_after_a_killed_save_removes_its_temporary(tmp_path):
    path = tmp_path / "ckpt.safetensors"
    proc = subprocess.Popen([sys.executable, "-c", _SLOW_SAVE, str(path)], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "saving"
        # Wait until the temporary file exists and holds data, then kill the saver mid-write.
        tmp = []
        while not tmp and proc.poll() is None:
            tmp = [p for p in tmp_path.iterdir() if ".tmp-" in p.name and p.stat().st_size > 0]
        assert tmp, "the save finished before it could be killed"
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=HANG_GUARD_S)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == -signal.SIGKILL
    assert [p.name for p in tmp_path.iterdir()] == [tmp[0].name]  # a stale temporary is left
    assert tmp[0].name.startswith("ckpt.safetensors.tmp-%d-" % proc.pid)
    assert tmp[0].name.endswith("@" + socket.gethostname())
    # The next save of the same path removes it; temporaries of a live process (this one) and of
    # another host stay.
    live = tmp_path / ("ckpt.safetensors.tmp-%d-feedface@%s" % (os.getpid(), socket.gethostname()))
    elsewhere = tmp_path / ("ckpt.safetensors.tmp-%d-feedface@another-host" % proc.pid)
    live.write_bytes(b"")
    elsewhere.write_bytes(b"")
    st.save_file({"w": np.arange(3.0)}, path)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["ckpt.safetensors", live.name, elsewhere.name])
    np.testing.assert_array_equal(st.load_file(path)["w"], np.arange(3.0))
