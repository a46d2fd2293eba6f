"""Writes the seeds and dictionaries of the fuzz targets (csrc/fuzz/targets.h, docs/fuzzing.md):
small valid inputs for each decoder in csrc/fuzz/corpus/<target>/seed-*, and libFuzzer/AFL
dictionaries in csrc/fuzz/dict/<target>.dict (for the protobuf targets: the op, argument and attr
names of the registered ops, which tx_fuzz also reads from the registry at start). Inputs that
fuzzing found are in the same folders (merged with `tx_fuzz TARGET -merge=...`) and are kept. Run
it after changing a seed; the files are checked in.

    python tools/gen_fuzz_corpus.py
"""

import pathlib
import struct
import tempfile

import numpy as np

import tensorflux as tx
from tensorflux._src import safetensors_io as st
from tensorflux.proto import function_pb2, graph_pb2, op_def_pb2, tensor_pb2, types_pb2

FUZZ = pathlib.Path(__file__).resolve().parents[1] / "csrc" / "fuzz"


def _function(name, op="Neg", callee=None):
    f = function_pb2.FunctionDef()
    f.signature.name = name
    a = f.signature.input_arg.add()
    a.name, a.type = "x", types_pb2.DT_FLOAT
    o = f.signature.output_arg.add()
    o.name, o.type = "y", types_pb2.DT_FLOAT
    n = f.node_def.add()
    n.input.append("x")
    if callee:
        _call(n, "call", callee)
        f.ret["y"] = "call:output:0"
    else:
        n.name, n.op = "body", op
        n.attr["T"].type = types_pb2.DT_FLOAT
        f.ret["y"] = "body:y:0"
    return f


def _call(node, name, function):
    node.name, node.op = name, "PartitionedCall"
    node.attr["f"].func.name = function
    node.attr["Tin"].list.type.append(types_pb2.DT_FLOAT)
    node.attr["Tout"].list.type.append(types_pb2.DT_FLOAT)


def graphdefs():
    with tx.Graph().as_default() as g:
        x = tx.placeholder(tx.float32, [None, 3], name="x")
        w = tx.constant(np.arange(6, dtype=np.float32).reshape(3, 2), name="w")
        y = tx.nn.relu(tx.matmul(x, w) + tx.constant([0.5, -0.5]), name="y")
        tx.reduce_sum(y, axis=1, name="s")
        tx.where(tx.greater(y, 0.0), name="w_idx")
    yield "model", g.as_graph_def().SerializeToString()
    gd = graph_pb2.GraphDef()
    gd.library.function.extend([_function("outer", callee="inner"), _function("inner")])
    p = gd.node.add()
    p.name, p.op = "p", "Placeholder"
    p.attr["dtype"].type = types_pb2.DT_FLOAT
    c = gd.node.add()
    c.input.append("p")
    _call(c, "c", "outer")
    yield "function_call", gd.SerializeToString()


def _nd(gd, name, op, inputs=(), **attrs):
    """Adds a NodeDef; attrs: T/dtype as DataType ints, strings, bools, ints, or TensorProtos."""
    n = gd.node.add(name=name, op=op)
    n.input.extend(inputs)
    for k, v in attrs.items():
        if k in ("T", "dtype"):
            n.attr[k].type = v
        elif isinstance(v, bool):
            n.attr[k].b = v
        elif isinstance(v, str):
            n.attr[k].s = v.encode()
        elif isinstance(v, int):
            n.attr[k].i = v
        else:
            n.attr[k].tensor.CopyFrom(v)


def _scalar(value, dtype=types_pb2.DT_INT32):
    t = tensor_pb2.TensorProto(dtype=dtype)
    (t.int_val if dtype == types_pb2.DT_INT32 else t.float_val).append(value)
    return t


def lowered_control_flow():
    """Hand-written lowered (TF1) control flow, which import rebuilds into While/If: a counting loop
    whose body holds a cond (Switch/Merge) on the loop counter's parity."""
    i32, f32, b = types_pb2.DT_INT32, types_pb2.DT_FLOAT, types_pb2.DT_BOOL
    gd = graph_pb2.GraphDef()
    _nd(gd, "x", "Placeholder", dtype=f32)
    _nd(gd, "zero", "Const", dtype=i32, value=_scalar(0))
    _nd(gd, "limit", "Const", dtype=i32, value=_scalar(4))
    for k, (src, t) in enumerate([("zero", i32), ("x", f32)]):
        _nd(gd, "w/Enter_%d" % k, "Enter", [src], T=t, frame_name="w")
        _nd(gd, "w/Merge_%d" % k, "Merge", ["w/Enter_%d" % k, "w/Next_%d" % k], T=t, N=2)
    _nd(gd, "w/limit", "Enter", ["limit"], T=i32, frame_name="w", is_constant=True)
    _nd(gd, "w/Less", "Less", ["w/Merge_0", "w/limit"], T=i32)
    _nd(gd, "w/LoopCond", "LoopCond", ["w/Less"])
    for k, t in enumerate([i32, f32]):
        _nd(gd, "w/Switch_%d" % k, "Switch", ["w/Merge_%d" % k, "w/LoopCond"], T=t)
        _nd(gd, "w/Identity_%d" % k, "Identity", ["w/Switch_%d:1" % k], T=t)
        _nd(gd, "w/Exit_%d" % k, "Exit", ["w/Switch_%d" % k], T=t)
    _nd(gd, "w/one", "Const", ["^w/Identity_0"], dtype=i32, value=_scalar(1))
    _nd(gd, "w/add", "AddV2", ["w/Identity_0", "w/one"], T=i32)
    _nd(gd, "w/mod", "FloorMod", ["w/Identity_0", "w/one"], T=i32)
    _nd(gd, "w/even", "Equal", ["w/mod", "w/one"], T=i32)
    _nd(gd, "w/c/Switch", "Switch", ["w/Identity_1", "w/even"], T=f32)
    _nd(gd, "w/c/two", "Const", ["^w/Identity_0"], dtype=f32, value=_scalar(2.0, f32))
    _nd(gd, "w/c/mul", "Mul", ["w/c/Switch:1", "w/c/two"], T=f32)
    _nd(gd, "w/c/neg", "Neg", ["w/c/Switch:0"], T=f32)
    _nd(gd, "w/c/Merge", "Merge", ["w/c/neg", "w/c/mul"], T=f32, N=2)
    _nd(gd, "w/Next_0", "NextIteration", ["w/add"], T=i32)
    _nd(gd, "w/Next_1", "NextIteration", ["w/c/Merge"], T=f32)
    _nd(gd, "y", "Identity", ["w/Exit_1"], T=f32)
    yield "lowered_while_cond", gd.SerializeToString()
    gd = graph_pb2.GraphDef()  # a cond over a _SwitchN (lowered Case) with three branches
    _nd(gd, "x", "Placeholder", dtype=f32)
    _nd(gd, "i", "Placeholder", dtype=i32)
    _nd(gd, "c/SwitchN", "_SwitchN", ["x", "i"], T=f32, num_outs=3)
    _nd(gd, "c/b0", "Neg", ["c/SwitchN:0"], T=f32)
    _nd(gd, "c/b1", "Square", ["c/SwitchN:1"], T=f32)
    _nd(gd, "c/b2", "Identity", ["c/SwitchN:2"], T=f32)
    _nd(gd, "c/Merge", "Merge", ["c/b0", "c/b1", "c/b2"], T=f32, N=3)
    _nd(gd, "p", "Placeholder", dtype=b)
    yield "lowered_case", gd.SerializeToString()


def functiondefs():
    yield "neg", _function("neg").SerializeToString()
    yield "square", _function("square", op="Square").SerializeToString()


def tensorprotos():
    t = tensor_pb2.TensorProto(dtype=types_pb2.DT_FLOAT)
    t.tensor_shape.dim.add().size = 3
    t.tensor_content = np.array([1, 2, 3], np.float32).tobytes()
    yield "float_content", t.SerializeToString()
    t = tensor_pb2.TensorProto(dtype=types_pb2.DT_INT32, int_val=[7])
    t.tensor_shape.dim.add().size = 4
    yield "int_splat", t.SerializeToString()
    t = tensor_pb2.TensorProto(dtype=types_pb2.DT_BOOL, tensor_content=bytes([0, 1, 2, 255]))
    t.tensor_shape.dim.add().size = 4
    yield "bool_raw", t.SerializeToString()
    t = tensor_pb2.TensorProto(dtype=types_pb2.DT_DOUBLE, double_val=[1.5, -2])
    t.tensor_shape.dim.add().size = 2
    yield "double_vals", t.SerializeToString()
    # Strings: one string_val per element (TensorFlow's form), fewer values than elements (the
    # last repeats), and TensorFlow's packed tensor_content (varint lengths, then the bytes).
    t = tensor_pb2.TensorProto(dtype=types_pb2.DT_STRING, string_val=[b"", b"a", b"\xff\x00 bytes", b"x" * 40])
    t.tensor_shape.dim.add().size = 2
    t.tensor_shape.dim.add().size = 2
    yield "string_vals", t.SerializeToString()
    t = tensor_pb2.TensorProto(dtype=types_pb2.DT_STRING, string_val=[b"rep"])
    t.tensor_shape.dim.add().size = 5
    yield "string_splat", t.SerializeToString()
    t = tensor_pb2.TensorProto(dtype=types_pb2.DT_STRING, tensor_content=b"\x02\x00\x03" + b"abxyz")
    t.tensor_shape.dim.add().size = 3
    yield "string_content", t.SerializeToString()


def safetensors():
    with tempfile.TemporaryDirectory() as d:
        path = pathlib.Path(d) / "s.safetensors"
        st.save_file({"w": np.arange(6, dtype=np.float32).reshape(2, 3), "m": np.array([True, False]),
                      "step": np.array(3, np.int64)}, path, metadata={"k": "v"})
        yield "mixed", path.read_bytes()
        st.save_file({"e": np.zeros((0, 4), np.float16)}, path)
        yield "empty", path.read_bytes()


def tensors():
    # dtype byte, num_dims byte, int64 dims, then a byte choosing an exact (multiple of 3) length.
    yield "float_2x3", struct.pack("<Bbqq", 1, 2, 2, 3) + b"\x00"
    yield "bool_scalar", struct.pack("<Bb", 10, 0) + b"\x00"
    yield "int64_empty", struct.pack("<Bbqq", 9, 2, 0, 5) + b"\x03"


def _quote(word):
    return '"' + "".join(c if 0x20 <= ord(c) < 0x7f and c not in '"\\' else "\\x%02x" % ord(c) for c in word) + '"'


def dictionaries():
    ops = op_def_pb2.OpList.FromString(tx._lib.c.get_all_op_list()).op
    names = set()
    for op in ops:
        names.add(op.name)
        names.update(a.name for a in list(op.input_arg) + list(op.output_arg))
        names.update(a.name for a in op.attr)
    graph = sorted(names) + [":0", ":1", "^", ":output:0", "/device:CPU:0", "_output_shapes", "_class"]
    yield "graphdef", graph
    yield "functiondef", graph
    yield "safetensors", ["__metadata__", "dtype", "shape", "data_offsets", "F64", "F32", "F16", "BF16", "C64",
                          "I64", "I32", "I16", "I8", "U64", "U32", "U16", "U8", "BOOL", '{"', '":', '":{', "[0,",
                          "[]", "},", "18446744073709551615", "-1"]


def main():
    for target, gen in [("graphdef", lambda: [*graphdefs(), *lowered_control_flow()]), ("functiondef", functiondefs),
                        ("tensorproto", tensorprotos), ("safetensors", safetensors), ("tensor", tensors)]:
        d = FUZZ / "corpus" / target
        d.mkdir(parents=True, exist_ok=True)
        for name, data in gen():
            (d / ("seed-" + name)).write_bytes(data)
            print(d / ("seed-" + name), len(data))
    (FUZZ / "dict").mkdir(exist_ok=True)
    for target, words in dictionaries():
        path = FUZZ / "dict" / (target + ".dict")
        path.write_text("# Generated by tools/gen_fuzz_corpus.py: words for mutating %s inputs.\n" % target
                        + "".join(_quote(w) + "\n" for w in words))
        print(path, len(words))


if __name__ == "__main__":
    main()
