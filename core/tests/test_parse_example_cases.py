"""tx.io.parse_example case by case against TensorFlow: defaults, FixedLenSequenceFeature padding,
VarLen features of every type, merged Features, a scalar `serialized`, an empty batch, long values,
batches large enough to split over threads; and the kernel's error messages, pinned (the fast path
of Note [Fast Example parsing] leaves every error to the reference decoder, whose messages these
are)."""

import re

import numpy as np
import pytest

import tensorflux as tx

pytestmark = pytest.mark.eager

tf = pytest.importorskip("tensorflow")


def F(*values):
    return tf.train.Feature(float_list=tf.train.FloatList(value=values))


def I(*values):  # noqa: E743
    return tf.train.Feature(int64_list=tf.train.Int64List(value=values))


def B(*values):
    return tf.train.Feature(bytes_list=tf.train.BytesList(value=values))


def _example(**features):
    """A serialized Example of Features (F, I, B); None is a Feature that sets no list."""
    f = {key: tf.train.Feature() if v is None else v for key, v in features.items()}
    return tf.train.Example(features=tf.train.Features(feature=f)).SerializeToString()


def _numpy(parsed):
    out = {}
    for key, v in parsed.items():
        if hasattr(v, "indices"):
            out[key] = (v.indices.numpy(), v.values.numpy(), v.dense_shape.numpy())
        else:
            out[key] = (np.asarray(v.numpy()),)
    return out


def _assert_same_as_tf(records, spec, single=False):
    """parse_example (parse_single_example when `single`) gives TensorFlow's values, dtypes and shapes."""
    ours = (tx.io.parse_single_example if single else tx.io.parse_example)(records, spec(tx))
    theirs = (tf.io.parse_single_example if single else tf.io.parse_example)(records, spec(tf))
    ours, theirs = _numpy(ours), _numpy(theirs)
    assert sorted(ours) == sorted(theirs)
    for key in theirs:
        for got, want in zip(ours[key], theirs[key]):
            assert got.shape == want.shape and got.dtype == want.dtype, key
            np.testing.assert_array_equal(got, want, err_msg=key)
    return ours


def test_fixed_features_take_their_defaults_where_missing():
    records = [_example(i=I(4), m=F(1.0, 2.0, 3.0, 4.0), s=B(b"x", b"y" * 30)), _example(), _example(i=I(-5))]

    def spec(m):
        return {"i": m.io.FixedLenFeature([], m.int64, default_value=-1),
                "m": m.io.FixedLenFeature([2, 2], m.float32, default_value=[[9.0, 8.0], [7.0, 6.0]]),
                "s": m.io.FixedLenFeature([2], m.string, default_value=[b"d", b"e" * 25])}

    got = _assert_same_as_tf(records, spec)
    np.testing.assert_array_equal(got["i"][0], [4, -1, -5])
    assert got["s"][0][1].tolist() == [b"d", b"e" * 25]


def test_sequence_features_pad_to_the_longest():
    records = [_example(f=F(1.0, 2.0, 3.0, 4.0), s=B(b"a"), i=I(1, 2, 3)), _example(f=F(5.0, 6.0)), _example(),
               _example(f=F(), s=B(), i=I())]

    def spec(m):
        return {"f": m.io.FixedLenSequenceFeature([2], m.float32, allow_missing=True, default_value=9.0),
                "s": m.io.FixedLenSequenceFeature([], m.string, allow_missing=True, default_value=b"pad"),
                "i": m.io.FixedLenSequenceFeature([], m.int64, allow_missing=True)}

    got = _assert_same_as_tf(records, spec)
    assert got["f"][0].shape == (4, 2, 2)
    assert got["s"][0].tolist() == [[b"a"], [b"pad"], [b"pad"], [b"pad"]]
    # No Example has a row: every output has zero rows.
    got = _assert_same_as_tf([_example(), _example(f=F())], spec)
    assert got["f"][0].shape == (2, 0, 2)


def test_varlen_features_of_every_type():
    records = [_example(f=F(1.5, -2.0), i=I(2**62, -(2**63)), s=B(b"", b"z" * 40)), _example(f=F(), i=I(7)),
               _example(s=B(b"only")), _example(f=None, i=None, s=None)]

    def spec(m):
        return {"f": m.io.VarLenFeature(m.float32), "i": m.io.VarLenFeature(m.int64), "s": m.io.VarLenFeature(m.string)}

    got = _assert_same_as_tf(records, spec)
    np.testing.assert_array_equal(got["i"][1], [2**62, -(2**63), 7])


def test_features_messages_merge_and_later_entries_win():
    # Two serialized Examples concatenated are one Example: their Features merge, key by key.
    records = [_example(a=F(1.0), b=I(2)) + _example(a=F(5.0, 6.0), c=B(b"c")), _example(b=I(3)) + _example()]

    def spec(m):
        return {"a": m.io.VarLenFeature(m.float32), "b": m.io.FixedLenFeature([], m.int64, default_value=0),
                "c": m.io.FixedLenFeature([], m.string, default_value=b"-")}

    got = _assert_same_as_tf(records, spec)
    np.testing.assert_array_equal(got["a"][1], [5.0, 6.0])


def _all_kinds(m):
    return {"x": m.io.FixedLenFeature([3], m.float32), "n": m.io.VarLenFeature(m.int64),
            "w": m.io.VarLenFeature(m.string), "id": m.io.FixedLenFeature([], m.int64, default_value=-1),
            "s": m.io.FixedLenSequenceFeature([2], m.float32, allow_missing=True, default_value=9.0),
            "t": m.io.FixedLenFeature([], m.string, default_value=b"t")}


def test_a_scalar_serialized_and_an_empty_batch():
    record = _example(x=F(1.0, 2.0, 3.0), n=I(4, 5), w=B(b"w"), s=F(1.0, 2.0))
    got = _assert_same_as_tf(record, _all_kinds, single=True)
    np.testing.assert_array_equal(got["n"][0], [[0], [1]])
    got = _assert_same_as_tf(np.array([], dtype=object), _all_kinds)
    assert got["x"][0].shape == (0, 3) and got["s"][0].shape == (0, 0, 2)


def _random_records(rng, n):
    """n Examples of _all_kinds with long and short values (multi-byte lengths, 10-byte varints)."""
    out = []
    for _ in range(n):
        long = rng.random() < 0.2
        f = {"x": F(*rng.normal(size=3).astype(np.float32).tolist()),
             "n": I(*rng.integers(-2**63, 2**63 - 1, size=rng.integers(0, 60 if long else 4), dtype=np.int64).tolist()),
             "w": B(*[bytes(rng.integers(0, 256, size=rng.integers(0, 200 if long else 10)).astype(np.uint8))
                      for _ in range(rng.integers(0, 4))]),
             "s": F(*rng.normal(size=2 * rng.integers(0, 40 if long else 3)).astype(np.float32).tolist())}
        for key in ("n", "w", "s"):
            if rng.random() < 0.2:
                del f[key]
        if rng.random() < 0.5:
            f["id"] = I(int(rng.integers(-100, 100)))
        if rng.random() < 0.5:
            f["t"] = B(b"tag%d" % rng.integers(0, 1000))
        out.append(_example(**f))
    return out


@pytest.mark.parametrize("n", [1, 37, 3000])
def test_random_batches_small_and_large(n):
    # 3000 Examples of ~100+ bytes split over the intra-op threads.
    records = _random_records(np.random.default_rng(n), n)
    _assert_same_as_tf(records, _all_kinds)


def _spec(**features):
    return lambda m: {key: make(m) for key, make in features.items()}


# (records, feature spec, our message (a regex), TensorFlow's: the same message, another error, or none)
_ERRORS = [
    ([_example(a=I(1))], _spec(a=lambda m: m.io.FixedLenFeature([], m.float32)),
     r"^Name: <unknown>, Key: a, Index: 0\.  Data types don't match\. Data type: int64 but expected type: float$",
     "same"),
    ([_example(a=F(1.0)), _example()], _spec(a=lambda m: m.io.FixedLenFeature([], m.float32)),
     r"^Name: <unknown>, Feature: a \(data type: float\) is required but could not be found\.$", "same"),
    ([_example(a=F(1.0, 2.0))], _spec(a=lambda m: m.io.FixedLenFeature([], m.float32)),
     r"^Name: <unknown>, Key: a, Index: 0\.  Number of float values != expected\.  Values size: 2 but output "
     r"shape: \[\]$", "same"),
    ([_example(a=F(1.0, 2.0)), _example(a=F(1.0, 2.0, 3.0))],
     _spec(a=lambda m: m.io.FixedLenSequenceFeature([2], m.float32, allow_missing=True)),
     r"^Name: <unknown>, Key: a, Index: 1\.  Number of float values is not a multiple of stride length\. Saw 3 "
     r"values but output shape is: \[\?,2\]$", "same"),
    ([_example(a=F(1.0)), b"\x0a\x05\x01"], _spec(a=lambda m: m.io.VarLenFeature(m.float32)),
     r"^Could not parse example input, value: '\\x0a\\x05\\x01' \(Name: <unknown>, index 1\): "
     r"length-delimited field of 5 bytes exceeds the 1 bytes remaining$", "another"),
    ([_example(a=I(1))], _spec(a=lambda m: m.io.VarLenFeature(m.float32)),
     r"^Name: <unknown>, Key: a, Index: 0\.  Data types don't match\. Expected type: float, Actual type: int64$",
     "same"),
    # An int64 varint of 11 bytes.
    ([b"\x0a\x15\x0a\x13\x0a\x01i\x12\x0e\x1a\x0c\x08" + b"\xff" * 10 + b"\x01"],
     _spec(i=lambda m: m.io.VarLenFeature(m.int64)),
     r"^Name: <unknown>, Key: i, Index: 0\.  Could not parse the feature: varint overflows 64 bits at byte 10$",
     "another"),
]


@pytest.mark.parametrize("records, spec, message, tf_error", _ERRORS)
def test_error_messages(records, spec, message, tf_error):
    if tf_error != "none":
        with pytest.raises(tf.errors.InvalidArgumentError) as theirs:
            tf.io.parse_example(records, spec(tf))
    with pytest.raises(tx.errors.InvalidArgumentError) as ours:
        tx.io.parse_example(records, spec(tx))
    ours = ours.value.message if hasattr(ours.value, "message") else str(ours.value)
    ours = re.sub(r" \[Op:ParseExampleV2\]$", "", ours)
    assert re.search(message, ours), ours
    if tf_error == "same":
        assert ours in str(theirs.value)


def test_a_large_batch_names_its_first_bad_example():
    records = [_example(a=F(1.0))] * 3000
    records[2100], records[2900] = _example(a=I(1)), b"\x0a\x05\x01"
    names = ["r%d" % i for i in range(3000)]
    spec = {"a": tx.io.VarLenFeature(tx.float32)}
    with pytest.raises(tx.errors.InvalidArgumentError, match="Name: r2100, Key: a, Index: 2100.  Data types"):
        tx.io.parse_example(records, spec, example_names=names)
    records[2100] = _example(a=F(2.0))
    got = tx.io.parse_example(records[:2900], spec)["a"]
    assert got.values.numpy()[2100] == 2.0 and got.dense_shape.numpy().tolist() == [2900, 1]


def _record(*entries):
    """A serialized Example of raw map entries (key, Feature bytes), in order, keys repeated at will."""
    def field(number, payload):
        return bytes([number << 3 | 2, len(payload)]) + payload
    return field(1, b"".join(field(1, field(1, key) + field(2, feature)) for key, feature in entries))


_NO_LIST = b""
_ONE = F(1.0).SerializeToString()
_TWO = F(2.0).SerializeToString()


def _packed_floats(nbytes):
    """A Feature whose float_list holds one packed field of `nbytes` bytes (1.0, 2.0, ... then 0x01s)."""
    values = np.arange(1, nbytes // 4 + 1, dtype="<f4").tobytes() + b"\x01" * (nbytes % 4)
    float_list = b"\x0a" + bytes([len(values)]) + values
    return b"\x12" + bytes([len(float_list)]) + float_list


_ODD_RECORDS = {
    "no list": [(b"a", _NO_LIST)],
    "no list after a value": [(b"a", _ONE), (b"a", _NO_LIST)],
    "no list before a value": [(b"a", _NO_LIST), (b"a", _ONE)],
    "two values": [(b"a", _ONE), (b"a", _TWO)],
    "5 packed bytes": [(b"a", _packed_floats(5))],
    "3 packed bytes": [(b"a", _packed_floats(3))],
    "11 packed bytes": [(b"a", _packed_floats(11))],
}

_ODD_SPECS = {
    "fixed with default": _spec(a=lambda m: m.io.FixedLenFeature([1], m.float32, default_value=[7.0])),
    "sequence": _spec(a=lambda m: m.io.FixedLenSequenceFeature([], m.float32, allow_missing=True, default_value=5.0)),
    "varlen": _spec(a=lambda m: m.io.VarLenFeature(m.float32)),
    "required": _spec(a=lambda m: m.io.FixedLenFeature([1], m.float32)),
}


def _parse_or_error(module, records, spec, single):
    try:
        return _numpy((module.io.parse_single_example if single else module.io.parse_example)(records, spec(module)))
    except (tf.errors.InvalidArgumentError, tx.errors.InvalidArgumentError):
        return "error"


@pytest.mark.parametrize("single", [False, True], ids=["batch", "single"])
@pytest.mark.parametrize("spec", _ODD_SPECS.values(), ids=list(_ODD_SPECS))
@pytest.mark.parametrize("entries", _ODD_RECORDS.values(), ids=list(_ODD_RECORDS))
def test_features_that_set_no_list_and_odd_packed_floats(entries, spec, single):
    # A Feature with no list is no entry for a dense feature (TensorFlow skips it; an earlier entry
    # or the default stands), and for a sparse one an empty list in a batch but no entry in the
    # single-Example path; a packed float list of n bytes holds n // 4 values. Batches mix these
    # records with plain ones, so the fast path meets them among Examples it takes.
    record = _record(*entries)
    plain = _record((b"a", _TWO))
    for records in [record] if single else [[record], [plain, record, plain]]:
        theirs, ours = _parse_or_error(tf, records, spec, single), _parse_or_error(tx, records, spec, single)
        if theirs == "error" or ours == "error":
            assert ours == theirs
            continue
        assert sorted(ours) == sorted(theirs)
        for key in theirs:
            for got, want in zip(ours[key], theirs[key]):
                assert got.shape == want.shape and got.dtype == want.dtype, key
                np.testing.assert_array_equal(got, want, err_msg=key)


# A scalar `serialized` takes TensorFlow's single-Example path, whose messages name the key alone.
_SINGLE_ERRORS = [
    (_example(a=I(1)), _spec(a=lambda m: m.io.FixedLenFeature([], m.float32)),
     "Key: a.  Data types don't match. Data type: int64 but expected type: float"),
    (_example(a=I(1)), _spec(a=lambda m: m.io.VarLenFeature(m.float32)),
     "Key: a.  Data types don't match. Expected type: float, Actual type: int64"),
    (_example(), _spec(a=lambda m: m.io.FixedLenFeature([], m.float32)),
     "Feature: a (data type: float) is required but could not be found."),
]


@pytest.mark.parametrize("record, spec, message", _SINGLE_ERRORS)
def test_single_example_error_messages(record, spec, message):
    with pytest.raises(tf.errors.InvalidArgumentError) as theirs:
        tf.io.parse_single_example(record, spec(tf))
    with pytest.raises(tx.errors.InvalidArgumentError) as ours:
        tx.io.parse_single_example(record, spec(tx))
    ours = re.sub(r" \[Op:ParseExampleV2\]$", "", ours.value.message)
    assert ours == message
    assert message in str(theirs.value)
