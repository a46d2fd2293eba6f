"""tx.io.parse_example / parse_single_example and tx.train.Example against TensorFlow: random
batches of Examples parse to the same tensors; bad records and bad feature descriptions give
TensorFlow's errors; the op-level table is the conformance entry's."""

import numpy as np
import pytest

import tensorflux as tx

pytestmark = pytest.mark.eager

tf = pytest.importorskip("tensorflow")


def _random_examples(rng, n):
    """n serialized Examples: x float[3] always, n int64 0..4 values, w string 0..3 values,
    s float rows of 2 (0..3 rows), maybe an id."""
    out = []
    for _ in range(n):
        f = {"x": tf.train.Feature(float_list=tf.train.FloatList(value=rng.normal(size=3).tolist())),
             "n": tf.train.Feature(int64_list=tf.train.Int64List(
                 value=rng.integers(-2**62, 2**62, size=rng.integers(0, 5)).tolist())),
             "w": tf.train.Feature(bytes_list=tf.train.BytesList(
                 value=[bytes(rng.integers(0, 256, size=rng.integers(0, 30)).astype(np.uint8))
                        for _ in range(rng.integers(0, 4))])),
             "s": tf.train.Feature(float_list=tf.train.FloatList(value=rng.normal(size=2 * rng.integers(0, 4))))}
        if rng.random() < 0.5:
            f["id"] = tf.train.Feature(int64_list=tf.train.Int64List(value=[int(rng.integers(0, 100))]))
        out.append(tf.train.Example(features=tf.train.Features(feature=f)).SerializeToString())
    return out


def _features(m):
    return {"x": m.io.FixedLenFeature([3], m.float32), "n": m.io.VarLenFeature(m.int64),
            "w": m.io.VarLenFeature(m.string), "id": m.io.FixedLenFeature([], m.int64, default_value=-1),
            "s": m.io.FixedLenSequenceFeature([2], m.float32, allow_missing=True, default_value=9.0)}


def _assert_same(ours, theirs):
    assert sorted(ours) == sorted(theirs)
    for key, want in theirs.items():
        got = ours[key]
        if isinstance(want, tf.SparseTensor):
            assert isinstance(got, tx.SparseTensor)
            for a, b in [(got.indices, want.indices), (got.values, want.values), (got.dense_shape, want.dense_shape)]:
                np.testing.assert_array_equal(a.numpy(), b.numpy())
        else:
            assert got.shape == tuple(want.shape) and got.dtype.name == want.dtype.name
            np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("seed", range(5))
def test_random_batches_match_tensorflow(seed):
    records = _random_examples(np.random.default_rng(seed), 1 + seed * 3)
    _assert_same(tx.io.parse_example(records, _features(tx)), tf.io.parse_example(records, _features(tf)))
    _assert_same(tx.io.parse_single_example(records[0], _features(tx)),
                 tf.io.parse_single_example(records[0], _features(tf)))


def test_our_example_messages_are_tensorflows():
    ours = tx.train.Example(features=tx.train.Features(feature={
        "x": tx.train.Feature(float_list=tx.train.FloatList(value=[1.0, 2.5])),
        "w": tx.train.Feature(bytes_list=tx.train.BytesList(value=[b"a"]))}))
    theirs = tf.train.Example.FromString(ours.SerializeToString())
    assert list(theirs.features.feature["x"].float_list.value) == [1.0, 2.5]
    assert tx.train.Example.FromString(theirs.SerializeToString()) == ours


def test_unpacked_lists_and_repeated_keys_parse_as_protobuf_says():
    # A float list written unpacked (wire type 5) and a key given twice (the later entry wins).
    def entry(key, feature):
        body = b"\x0a" + bytes([len(key)]) + key + b"\x12" + bytes([len(feature)]) + feature
        return b"\x0a" + bytes([len(body)]) + body
    unpacked = b"\x12\x0a" + b"\x0d" + np.float32(1.5).tobytes() + b"\x0d" + np.float32(-2).tobytes()
    first = b"\x12\x06\x0a\x04" + np.float32(7).tobytes()
    record = b"\x0a" + bytes([len(entry(b"x", first) + entry(b"x", unpacked))]) + entry(b"x", first) + entry(
        b"x", unpacked)
    spec = {"x": tf.io.VarLenFeature(tf.float32)}
    want = tf.io.parse_single_example(record, spec)["x"].values.numpy()
    got = tx.io.parse_single_example(record, {"x": tx.io.VarLenFeature(tx.float32)})["x"].values.numpy()
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got, [1.5, -2.0])


def test_an_empty_packed_list_parses_as_no_values():
    # Feature{float_list{value: <packed, 0 bytes>}}: once a copy from a null buffer (UBSan).
    record = b"\x0a\x0b\x0a\x09\x0a\x01f\x12\x04\x12\x02\x0a\x00"
    got = tx.io.parse_single_example(record, {"f": tx.io.VarLenFeature(tx.float32)})["f"]
    want = tf.io.parse_single_example(record, {"f": tf.io.VarLenFeature(tf.float32)})["f"]
    assert got.values.numpy().size == 0 and want.values.numpy().size == 0


def test_graph_mode_and_names_in_errors():
    records = _random_examples(np.random.default_rng(9), 3)
    with tx.Graph().as_default():
        serialized = tx.placeholder(tx.string, [None])
        parsed = tx.io.parse_example(serialized, {"x": tx.io.FixedLenFeature([3], tx.float32)},
                                     example_names=["first", "second", "third"])
        assert parsed["x"].shape.as_list() == [None, 3]
        with tx.Session() as sess:
            assert sess.run(parsed["x"], {serialized: np.array(records, object)}).shape == (3, 3)
            with pytest.raises(tx.errors.InvalidArgumentError, match="Name: second, Key: x, Index: 1"):
                short = tf.train.Example(features=tf.train.Features(feature={"x": tf.train.Feature(
                    float_list=tf.train.FloatList(value=[1.0]))})).SerializeToString()
                bad = [records[0], short, records[2]]
                sess.run(parsed["x"], {serialized: np.array(bad, object)})
            assert sess.run(parsed["x"], {serialized: np.array(records, object)}).shape == (3, 3)


def test_bad_feature_descriptions():
    with pytest.raises(ValueError, match="requires allow_missing to be True"):
        tx.io.parse_example([b""], {"s": tx.io.FixedLenSequenceFeature([], tx.float32)})
    with pytest.raises(ValueError, match="dtype int32 is not supported"):
        tx.io.parse_example([b""], {"s": tx.io.VarLenFeature(tx.int32)})
    with pytest.raises(ValueError, match="default_value has 1 values; shape"):
        tx.io.parse_example([b""], {"s": tx.io.FixedLenFeature([2], tx.float32, default_value=[1.0])})
    with pytest.raises(ValueError, match="must be a scalar"):
        tx.io.parse_single_example([b"", b""], {"s": tx.io.VarLenFeature(tx.float32)})
    with pytest.raises(tx.errors.InvalidArgumentError, match="Could not parse example input"):
        tx.io.parse_example([b"\x0a\x05\x01"], {"s": tx.io.VarLenFeature(tx.float32)})
