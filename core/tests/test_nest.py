"""tx.nest: flattening order, packing, structure checks and paths, against tf.nest when installed."""

import collections

import numpy as np
import pytest

import tensorflux as tx

pytestmark = pytest.mark.eager

Point = collections.namedtuple("Point", ["x", "y"])

STRUCTURES = [
    1,
    None,
    "leaf string",
    [1, [2, 3], (4,)],
    {"b": 1, "a": [2, 3], "c": {"z": 4, "y": 5}},
    collections.OrderedDict([("z", 1), ("a", 2)]),
    Point(x=[1, 2], y={"k": 3}),
    (),
    [],
    {},
    ([], {"a": ()}, [None]),
    {"x": np.arange(3), "s": {1, 2}},
]


@pytest.mark.parametrize("s", STRUCTURES, ids=range(len(STRUCTURES)))
def test_flatten_and_pack_round_trip(s):
    flat = tx.nest.flatten(s)
    packed = tx.nest.pack_sequence_as(s, flat)
    assert tx.nest.flatten(packed) == flat if not any(isinstance(v, np.ndarray) for v in flat) else True
    assert type(packed) is type(s)
    tx.nest.assert_same_structure(s, packed)


def test_dict_order_is_sorted_and_pack_keeps_insertion_order():
    d = {"b": 1, "a": 2, "c": 3}
    assert tx.nest.flatten(d) == [2, 1, 3]
    packed = tx.nest.pack_sequence_as(d, ["A", "B", "C"])
    assert packed == {"a": "A", "b": "B", "c": "C"}
    assert list(packed) == ["b", "a", "c"]
    od = collections.OrderedDict([("z", 1), ("a", 2)])
    assert tx.nest.flatten(od) == [2, 1]
    assert isinstance(tx.nest.pack_sequence_as(od, [5, 6]), collections.OrderedDict)
    dd = collections.defaultdict(list, {"q": 1, "p": 2})
    out = tx.nest.pack_sequence_as(dd, [10, 20])
    assert isinstance(out, collections.defaultdict) and out["p"] == 10 and out["q"] == 20 and out["new"] == []


def test_namedtuple_rebuilt_with_its_class():
    p = tx.nest.map_structure(lambda v: v * 10, Point(1, (2, 3)))
    assert p == Point(10, (20, 30)) and type(p) is Point


def test_map_structure_several_structures():
    out = tx.nest.map_structure(lambda a, b: a + b, {"x": [1, 2], "y": 3}, {"x": [10, 20], "y": 30})
    assert out == {"x": [11, 22], "y": 33}
    with pytest.raises(ValueError, match="same nested structure"):
        tx.nest.map_structure(lambda a, b: a, [1, 2], [1, 2, 3])
    with pytest.raises(TypeError, match="same sequence type"):
        tx.nest.map_structure(lambda a, b: a, [1, 2], (1, 2))
    assert tx.nest.map_structure(lambda a, b: a, [1, 2], (1, 2), check_types=False) == [1, 2]
    with pytest.raises(ValueError, match="Only valid keyword"):
        tx.nest.map_structure(lambda a: a, [1], bogus=True)


def test_assert_same_structure_errors():
    tx.nest.assert_same_structure([1, (2, 3)], ["a", ("b", "c")])
    with pytest.raises(ValueError, match="same nested structure"):
        tx.nest.assert_same_structure([1, 2], [1, [2]])
    with pytest.raises(ValueError, match="same set of keys"):
        tx.nest.assert_same_structure({"a": 1}, {"b": 1})
    Other = collections.namedtuple("Point", ["x", "y"])
    tx.nest.assert_same_structure(Point(1, 2), Other(3, 4))  # same name and fields: one type


def test_pack_count_mismatch():
    with pytest.raises(ValueError, match="Structure had 3 atoms, but flat_sequence had 2 items"):
        tx.nest.pack_sequence_as([1, [2, 3]], [1, 2])
    assert tx.nest.pack_sequence_as(5, [7]) == 7
    with pytest.raises(ValueError):
        tx.nest.pack_sequence_as(5, [7, 8])


def test_is_nested():
    assert tx.nest.is_nested([]) and tx.nest.is_nested({}) and tx.nest.is_nested(Point(1, 2))
    assert not tx.nest.is_nested("abc") and not tx.nest.is_nested(np.zeros(3)) and not tx.nest.is_nested({1, 2})
    assert not tx.nest.is_nested(tx.constant([1, 2]))


def test_paths():
    s = {"b": [1, {"c": 2}], "a": Point(3, 4)}
    assert tx.nest.flatten_with_paths(s) == [(("a", "x"), 3), (("a", "y"), 4), (("b", 0), 1), (("b", 1, "c"), 2)]
    assert tx.nest.flatten_with_joined_string_paths(s) == [("a/x", 3), ("a/y", 4), ("b/0", 1), ("b/1/c", 2)]
    assert tx.nest.flatten_with_joined_string_paths([5], separator=".") == [("0", 5)]


def test_tensors_are_leaves():
    t = tx.constant([1.0, 2.0])
    assert tx.nest.flatten({"t": t, "l": [t]})[0] is t


def test_matches_tf_nest():
    pytest.importorskip("tensorflow")
    from tensorflow.python.util import nest as tf_nest  # has the path helpers tf.nest lacks

    class tf:  # noqa: N801 - tf.nest, with the private module's extra helpers
        nest = tf_nest

    for s in STRUCTURES[:11]:
        assert tx.nest.flatten(s) == tf.nest.flatten(s)
        assert tx.nest.is_nested(s) == tf.nest.is_nested(s)
        assert [p for p, _ in tx.nest.flatten_with_joined_string_paths(s)] == \
            [p for p, _ in tf.nest.flatten_with_joined_string_paths(s)]
        flat = list(range(len(tf.nest.flatten(s))))
        assert tx.nest.pack_sequence_as(s, flat) == tf.nest.pack_sequence_as(s, flat)
    for a, b in [([1, 2], [1, [2]]), ({"a": 1}, {"b": 1}), ((1, 2), [1, 2])]:
        with pytest.raises(Exception) as theirs:
            tf.nest.assert_same_structure(a, b)
        with pytest.raises(type(theirs.value)):
            tx.nest.assert_same_structure(a, b)
