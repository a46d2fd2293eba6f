"""Conformance entries: the string ops (StringJoin, StringSplitV2, StringLength, Substr,
StringStrip, StringLower, StringUpper, ReduceJoin, StringToNumber, AsString, the hash buckets,
base64 and DecodeRaw). References are Python's own bytes/str operations; hash buckets are golden
values TensorFlow 2.21 computed for the samples. None of these ops has a gradient."""

import base64
import numpy as np

from conformance.harness import ErrorSample, OpEntry, Sample


def S(*values):
    """An object array of bytes (str values UTF-8 encoded), shaped like the nesting of `values`."""
    arr = np.array(values, dtype=object)
    return np.vectorize(lambda v: v.encode() if isinstance(v, str) else v, otypes=[object])(arr) if arr.size else arr


def scalar(v):
    out = np.empty((), dtype=object)
    out[()] = v.encode() if isinstance(v, str) else v
    return out


def _map(fn, out_dtype=object):
    """A reference applying fn to each element of the first input (inputs come before attrs)."""
    def ref(*args, **kwargs):
        x = args[0] if args else next(iter(kwargs.values()))
        flat = [fn(v) for v in x.reshape(-1).tolist()]
        return np.array(flat, dtype=out_dtype).reshape(x.shape) if flat else np.zeros(x.shape, out_dtype)
    return ref


WORDS = S("hello", "", " spaced  out ", "h\u00e9llo w\u00f6rld", "x" * 40, "tab\tnew\nline", "a\x00b")
GRID = S(["ab", "cde"], ["", "f"])

# --- joining and splitting ---------------------------------------------------------------


def _join_ref(inputs, separator=""):
    arrays = [np.asarray(a, dtype=object) for a in inputs]
    shape = np.broadcast_shapes(*[a.shape for a in arrays]) if arrays else ()
    out = np.empty(shape, dtype=object)
    b = [np.broadcast_to(a, shape) for a in arrays]
    sep = separator.encode() if isinstance(separator, str) else separator
    for idx in np.ndindex(shape):
        out[idx] = sep.join(a[idx] for a in b)
    return out


def _split_ref(input, sep, maxsplit=-1):  # noqa: A002
    sep = sep[()] if isinstance(sep, np.ndarray) else sep
    pieces = [s.split(sep or None, maxsplit) for s in input.tolist()]
    indices = [[i, j] for i, p in enumerate(pieces) for j in range(len(p))]
    values = [v for p in pieces for v in p]
    return (np.array(indices, np.int64).reshape(-1, 2), np.array(values, dtype=object),
            np.array([len(pieces), max([len(p) for p in pieces] + [0])], np.int64))


def _reduce_join_ref(inputs, reduction_indices, keep_dims=False, separator=""):
    axes = [int(a) % inputs.ndim for a in np.atleast_1d(reduction_indices)]
    kept = [d for d in range(inputs.ndim) if d not in axes]
    moved = np.transpose(inputs, kept + axes[::-1])  # first listed axis varies fastest
    rows = moved.reshape([inputs.shape[d] for d in kept] + [-1])
    out = np.empty(rows.shape[:-1], dtype=object)
    for idx in np.ndindex(out.shape):
        out[idx] = separator.encode().join(rows[idx].tolist())
    if keep_dims:
        out = out.reshape([1 if d in axes else inputs.shape[d] for d in range(inputs.ndim)])
    return out


# --- measuring and slicing -----------------------------------------------------------------


def _chars(s):
    return sum(1 for b in s if b & 0xC0 != 0x80)


def _substr_one(s, pos, length, unit):
    if unit == "UTF8_CHAR":
        chars = s.decode("utf-8")  # the samples are valid UTF-8: Python's str slicing is the reference
        size = len(chars)
    else:
        chars, size = s, len(s)
    pos = pos + size if pos < 0 else pos
    end = size if length < 0 else min(size, pos + length)
    piece = chars[pos:end]
    return piece.encode() if unit == "UTF8_CHAR" else piece


def _substr_ref(input, pos, len, unit="BYTE"):  # noqa: A002
    shape = np.broadcast_shapes(input.shape, pos.shape)
    s, p, n = (np.broadcast_to(a, shape) for a in (input, pos, len))
    out = np.empty(shape, dtype=object)
    for idx in np.ndindex(shape):
        out[idx] = _substr_one(s[idx], int(p[idx]), int(n[idx]), unit)
    return out


# --- conversions -------------------------------------------------------------------------


def _as_string_ref(input, precision=-1, scientific=False, shortest=False, width=-1, fill=""):
    fmt = "%" + fill + (str(width) if width > -1 else "")
    kind = input.dtype.kind
    if kind == "f":
        fmt += ("." + str(precision) if precision > -1 else "") + ("g" if shortest else "e" if scientific else "f")
    elif kind in "iu":
        fmt += "d"
    if kind == "b":
        return _map(lambda v: b"true" if v else b"false")(input)
    return _map(lambda v: (fmt % float(v) if kind == "f" else fmt % int(v)).encode())(input)


def _number(dtype):
    def parse(s):
        text = s.decode().strip()
        return float(text) if np.dtype(dtype).kind == "f" else int(text)
    return lambda string_tensor, out_type=None: _map(parse, dtype)(string_tensor)


_HASH_INPUTS = S("", "a", "hello world", b"\xff\x00\xfe", "h\u00e9llo", "x" * 17, "y" * 33, "z" * 64,
                 "0123456789" * 13)
_GOLDEN = {  # TensorFlow 2.21's buckets for _HASH_INPUTS
    ("StringToHashBucketFast", 1000003): [377723, 291400, 234754, 635153, 553072, 200771, 904239, 375874, 795399],
    ("StringToHashBucketFast", 7): [6, 5, 0, 5, 0, 6, 0, 1, 6],
    ("StringToHashBucket", 1000003): [598820, 789371, 168296, 840406, 435528, 302459, 346136, 128061, 210858],
    ("StringToHashBucketStrong", 1000003): [267843, 356706, 128140, 948644, 500864, 635416, 127462, 872599, 981957],
}


def _hash_entry(op, input_name, buckets, attrs=None):
    samples = [Sample({input_name: _HASH_INPUTS}, {"num_buckets": n, **(attrs or {})}, note=f"{n} buckets")
               for (o, n) in _GOLDEN if o == op]
    samples.append(Sample({input_name: S(["a", "b"], ["", "c"])[:0]}, {"num_buckets": 5, **(attrs or {})},
                          note="empty"))

    def ref(num_buckets, key=None, **inputs):
        x = next(iter(inputs.values()))
        if x.size == 0:
            return np.zeros(x.shape, np.int64)
        return np.array(_GOLDEN[(op, num_buckets)], np.int64)

    return OpEntry(op, samples, ref=ref)


def _b64_encode(pad):
    return _map(lambda v: base64.urlsafe_b64encode(v) if pad else base64.urlsafe_b64encode(v).rstrip(b"="))


def _decode_raw_ref(bytes, out_type, little_endian=True):  # noqa: A002
    dt = np.dtype(out_type.as_numpy_dtype).newbyteorder("<" if little_endian else ">")
    rows = [np.frombuffer(b, dtype=dt) for b in bytes.reshape(-1).tolist()]
    width = len(bytes.reshape(-1)[0]) // dt.itemsize if bytes.size else 0
    out = np.array(rows).reshape(bytes.shape + (width,)) if rows else np.zeros(bytes.shape + (0,), dt)
    return out.astype(dt.newbyteorder("="))


def _entries():
    import tensorflux as tx

    return [
        OpEntry("StringJoin", [
            Sample({"inputs": [S("a", "b"), S("x", "y")]}, note="two vectors"),
            Sample({"inputs": [scalar("pre"), GRID, scalar("post")]}, {"separator": "-"}, note="scalars broadcast"),
            Sample({"inputs": [scalar("a"), scalar("b")]}, {"separator": ", "}, note="scalars"),
            Sample({"inputs": [S("only")]}, note="one input"),
        ], ref=_join_ref, errors=[ErrorSample({"inputs": [S("a", "b"), S("x", "y", "z")]},
                                              match="Input shapes do not match")]),
        OpEntry("StringSplitV2", [
            Sample({"input": S("a b  c", "", " x "), "sep": scalar("")}, note="whitespace"),
            Sample({"input": S("a,b,,c", "", ",x,"), "sep": scalar(",")}, note="comma"),
            Sample({"input": S("a<>b<>c"), "sep": scalar("<>")}, {"maxsplit": 1}, note="maxsplit"),
            Sample({"input": S("a b  c d"), "sep": scalar("")}, {"maxsplit": 2}, note="whitespace maxsplit"),
            Sample({"input": S("x")[:0], "sep": scalar(",")}, note="empty"),
        ], ref=_split_ref, errors=[ErrorSample({"input": GRID, "sep": scalar("")}, match="must be"),
                                   ErrorSample({"input": S("a"), "sep": S(",")}, match="sep")]),
        OpEntry("StringLength", [
            Sample({"input": WORDS}, note="bytes"),
            Sample({"input": WORDS}, {"unit": "UTF8_CHAR"}, note="characters"),
            Sample({"input": GRID}, note="2-D"),
        ], ref=lambda input, unit="BYTE": _map(_chars if unit == "UTF8_CHAR" else len, np.int32)(input)),
        OpEntry("Substr", [
            Sample({"input": S("hello", "world", "x"), "pos": np.array([1, -3, 1], np.int32),
                    "len": np.array([2, 5, -1], np.int32)}, note="elementwise"),
            Sample({"input": GRID, "pos": np.array(0, np.int64), "len": np.array(1, np.int64)}, note="scalar pos"),
            Sample({"input": S(["abc", "def"], ["ghi", "jkl"]), "pos": np.array([0, 1], np.int32),
                    "len": np.array([1, 2], np.int32)}, note="broadcast"),
            Sample({"input": S("h\u00e9llo", "\u00e9t\u00e9"), "pos": np.array([1, -2], np.int32),
                    "len": np.array([2, 1], np.int32)}, {"unit": "UTF8_CHAR"}, note="UTF-8"),
        ], ref=_substr_ref, errors=[
            ErrorSample({"input": scalar("hello"), "pos": np.array(10, np.int32), "len": np.array(2, np.int32)},
                        match=r"pos 10 out of range for string b'hello' at index 0", when="runtime"),
            ErrorSample({"input": scalar("hello"), "pos": np.array(-6, np.int32), "len": np.array(2, np.int32)},
                        match=r"pos -6 out of range", when="runtime"),
            ErrorSample({"input": S("a", "b"), "pos": np.array([0, 1], np.int32), "len": np.array([1], np.int32)},
                        match="pos and len")]),
        OpEntry("StringStrip", [Sample({"input": WORDS}), Sample({"input": S(" \t\v\f\r\n ")}, note="all space")],
                ref=_map(lambda v: v.strip(b" \t\n\v\f\r"))),
        OpEntry("StringLower", [
            Sample({"input": S("HeLLo", "\u00c0B", "ABC def")}, note="ASCII"),
            Sample({"input": S("\u00c0\u00c9 ABC", "\u0391\u0392\u0393", "\u0416\u0416")}, {"encoding": "utf-8"},
                   note="UTF-8"),
        ], ref=lambda input, encoding="": _map(
            lambda v: v.decode().lower().encode() if encoding else v.lower())(input)),
        OpEntry("StringUpper", [
            Sample({"input": S("HeLLo", "\u00e0b", "abc DEF")}, note="ASCII"),
            Sample({"input": S("\u00e0\u00e9 abc \u00df", "\u03b1\u03b2\u03b3", "\u0436")}, {"encoding": "utf-8"},
                   note="UTF-8"),
        ], ref=lambda input, encoding="": _map(
            lambda v: v.decode().upper().encode() if encoding else v.upper())(input)),
        OpEntry("ReduceJoin", [
            Sample({"inputs": GRID, "reduction_indices": np.array([1], np.int32)}, {"separator": ","}, note="axis 1"),
            Sample({"inputs": GRID, "reduction_indices": np.array([0, 1], np.int32)}, note="first axis fastest"),
            Sample({"inputs": GRID, "reduction_indices": np.array([1, 0], np.int32)}, note="row-major"),
            Sample({"inputs": GRID, "reduction_indices": np.array([-1], np.int32)}, {"keep_dims": True},
                   note="keep_dims"),
            Sample({"inputs": GRID, "reduction_indices": np.zeros((0,), np.int32)}, note="no axes"),
            Sample({"inputs": S("x")[:0].reshape(0, 2), "reduction_indices": np.array([0], np.int32)}, note="empty"),
        ], ref=_reduce_join_ref, errors=[
            ErrorSample({"inputs": GRID, "reduction_indices": np.array([2], np.int32)}, match="reduction dimension 2",
                        error=tx.errors.OpError),
            ErrorSample({"inputs": GRID, "reduction_indices": np.array([0, 0], np.int32)},
                        match="Duplicate reduction dimension 0", when="runtime")]),
        OpEntry("StringToNumber", [
            Sample({"string_tensor": S("1.5", " -2 ", "1e3", "inf")}, note="float32"),
            Sample({"string_tensor": S("0.1", "-3.25e-2")}, {"out_type": tx.float64}, note="float64"),
            Sample({"string_tensor": S("12", "-7", "+3", " 5 ")}, {"out_type": tx.int32}, note="int32"),
            Sample({"string_tensor": S("9223372036854775807")}, {"out_type": tx.int64}, note="int64"),
            Sample({"string_tensor": S("4294967295")}, {"out_type": tx.uint32}, note="uint32"),
            Sample({"string_tensor": S("18446744073709551615")}, {"out_type": tx.uint64}, note="uint64"),
        ], ref=lambda string_tensor, out_type=tx.float32: _number(out_type.as_numpy_dtype)(string_tensor),
            errors=[ErrorSample({"string_tensor": S("abc")},
                                match="StringToNumberOp could not correctly convert string: abc", when="runtime"),
                    ErrorSample({"string_tensor": S("1.5")}, {"out_type": tx.int32},
                                match="could not correctly convert string: 1.5", when="runtime"),
                    ErrorSample({"string_tensor": S("99999999999")}, {"out_type": tx.int32},
                                match="could not correctly convert", when="runtime"),
                    ErrorSample({"string_tensor": S("-1")}, {"out_type": tx.uint64},
                                match="could not correctly convert", when="runtime")]),
        OpEntry("AsString", [
            Sample({"input": np.array([1.5, -2.25, 1e10], np.float32)}, note="float"),
            Sample({"input": np.array([1.5, 2.25], np.float64)}, {"precision": 3, "width": 8, "fill": "0"},
                   note="width and fill"),
            Sample({"input": np.array([3.5, 1e-5], np.float64)}, {"scientific": True, "precision": 2}, note="e"),
            Sample({"input": np.array([1 / 3, 1e20], np.float64)}, {"shortest": True}, note="g"),
            Sample({"input": np.array([-5, 7], np.int32)}, {"width": 4, "fill": "-"}, note="left"),
            Sample({"input": np.array([2 ** 40], np.int64)}, note="int64"),
            Sample({"input": np.array([3, 250], np.uint8)}, {"width": 3}, note="uint8"),
            Sample({"input": np.array([True, False])}, note="bool"),
        ], ref=_as_string_ref, errors=[
            ErrorSample({"input": np.array([1.5], np.float32)}, {"fill": "x"}, match="Fill argument not supported",
                        when="runtime"),
            ErrorSample({"input": np.array([1], np.int32)}, {"precision": 2},
                        match="precision not supported for datatype int32", when="runtime"),
            ErrorSample({"input": np.array([1.0], np.float32)}, {"scientific": True, "shortest": True},
                        match="Cannot select both", when="runtime")]),
        _hash_entry("StringToHashBucketFast", "input", (1000003, 7)),
        _hash_entry("StringToHashBucket", "string_tensor", (1000003,)),
        _hash_entry("StringToHashBucketStrong", "input", (1000003,), {"key": [7, 2 ** 40]}),
        OpEntry("EncodeBase64", [Sample({"input": WORDS}), Sample({"input": WORDS}, {"pad": True}, note="pad")],
                ref=lambda input, pad=False: _b64_encode(pad)(input)),
        OpEntry("DecodeBase64", [
            Sample({"input": S("aGVsbG8_Pg", "aGVsbG8_Pg==", "aGk=", "", "-_w")}),
        ], ref=_map(lambda v: base64.urlsafe_b64decode(v + b"=" * (-len(v) % 4))), errors=[
            ErrorSample({"input": S("a")}, match="Base64 string length cannot be 1 modulo 4", when="runtime"),
            ErrorSample({"input": S("+/")}, match="Invalid character found in base64", when="runtime")]),
        OpEntry("DecodeRaw", [
            Sample({"bytes": S(b"\x01\x00\x02\x00", b"\x03\x00\x04\x00")}, {"out_type": tx.int16}, note="int16"),
            Sample({"bytes": S(b"\x01\x00\x02\x00")}, {"out_type": tx.int16, "little_endian": False}, note="big"),
            Sample({"bytes": S(np.arange(4, dtype=np.float32).tobytes())}, {"out_type": tx.float32}, note="float"),
            Sample({"bytes": S(["ab", "cd"], ["ef", "gh"])}, {"out_type": tx.uint8}, note="2-D"),
        ], ref=_decode_raw_ref, errors=[
            ErrorSample({"bytes": S(b"\x01\x00\x02", b"\x03\x00\x04\x00")}, {"out_type": tx.int16},
                        match="same size", when="runtime"),
            ErrorSample({"bytes": S(b"\x01\x00\x02")}, {"out_type": tx.int16}, match="not a multiple of 2",
                        when="runtime")]),
    ]


ENTRIES = _entries()
