"""Conformance entries: the lookup-table ops HashTableV2, MutableHashTableV2, LookupTableFindV2,
LookupTableImportV2, InitializeTableV2, LookupTableInsertV2, LookupTableRemoveV2,
LookupTableSizeV2 and LookupTableExportV2.

A table handle cannot be a generic input, so every entry builds its own graph (the `build` hook):
a table is made, filled, changed by the steps the sample names (in order, through control
dependencies) and read by the fetches it names. The expected outputs come from a Python dict
that follows TensorFlow's rules (Note [Lookup tables] in kernels/cpu/lookup_table.cc); export
order is unspecified, so exports are compared sorted. cross_check is off because TensorFlow's
tables need its own graph state; test_lookup.py compares the tx.lookup classes with tf.lookup.
"""

from __future__ import annotations

import numpy as np

import tensorflux as tx
from tensorflux._src.generated import gen_ops

from conformance.harness import ErrorSample, OpEntry, Sample


def _s(*words):
    return np.array([w.encode() for w in words], dtype=object)


def _build(sample: Sample):
    """The table of sample.inputs, filled, changed step by step, and the fetched outputs."""
    p = sample.inputs
    keys, values = np.asarray(p["keys"]), np.asarray(p["values"])
    key_dtype = tx.as_dtype(p.get("key_dtype", keys.dtype))
    value_dtype = tx.as_dtype(p.get("value_dtype", values.dtype))
    make = gen_ops.mutable_hash_table_v2 if p.get("mutable") else gen_ops.hash_table_v2
    h = make(key_dtype=key_dtype, value_dtype=value_dtype)
    last = None

    def step(fn):
        nonlocal last
        with tx.control_dependencies([last] if last is not None else []):
            out = fn()
        last = out if isinstance(out, tx.Operation) else (out[0] if isinstance(out, tuple) else out).op
        return out

    steps = ([] if p.get("fill") is False else [(p.get("fill_op", "import"), keys, values)]) + list(p.get("steps", []))
    for kind, *args in steps:
        k = tx.constant(args[0])
        if kind == "import":
            step(lambda: gen_ops.lookup_table_import_v2(h, k, tx.constant(args[1])))
        elif kind == "initialize":
            step(lambda: gen_ops.initialize_table_v2(h, k, tx.constant(args[1])))
        elif kind == "insert":
            step(lambda: gen_ops.lookup_table_insert_v2(h, k, tx.constant(args[1])))
        else:
            step(lambda: gen_ops.lookup_table_remove_v2(h, k))
    out = []
    for fetch in p["fetch"]:
        if fetch == "size":
            out.append(step(lambda: gen_ops.lookup_table_size_v2(h)))
        elif fetch == "export":
            out.extend(step(lambda: gen_ops.lookup_table_export_v2(h, Tkeys=key_dtype, Tvalues=value_dtype)))
        else:
            _, find, default = fetch
            out.append(step(lambda: gen_ops.lookup_table_find_v2(h, tx.constant(find), tx.constant(default))))
    return out, {}


def _expected(sample: Sample):
    """The outputs by TensorFlow's rules, from a dict."""
    p = sample.inputs
    mutable = bool(p.get("mutable"))
    table, filled = {}, False
    steps = ([] if p.get("fill") is False else [(p.get("fill_op", "import"), p["keys"], p["values"])]) + list(
        p.get("steps", []))
    for kind, *args in steps:
        keys = np.asarray(args[0]).reshape(-1).tolist()
        if kind in ("import", "initialize") and not mutable:
            if not filled:
                table, filled = dict(zip(keys, np.asarray(args[1]).reshape(-1).tolist())), True
        elif kind == "import":
            table = dict(zip(keys, np.asarray(args[1]).reshape(-1).tolist()))
        elif kind == "insert":
            table.update(zip(keys, np.asarray(args[1]).reshape(-1).tolist()))
        else:
            for key in keys:
                table.pop(key, None)
    out = []
    for fetch in p["fetch"]:
        if fetch == "size":
            out.append(np.int64(len(table)))
        elif fetch == "export":
            out.append(sorted(table.items()))
        else:
            _, find, default = fetch
            find, default = np.asarray(find), np.asarray(default)
            # A hash table reads default_value's first element; a mutable one each key's own.
            per_key = mutable and default.ndim > 0
            flat_default = default.reshape(-1)
            got = [table.get(k, flat_default[i] if per_key else flat_default[0]) for i, k in
                   enumerate(find.reshape(-1).tolist())]
            out.append(np.array(got, dtype=default.dtype).reshape(find.shape))
    return out


def _check(outputs, sample):
    expected = _expected(sample)
    i = 0
    for e in expected:
        if isinstance(e, list):  # an export: keys and values, any order
            keys, values = (np.asarray(o).reshape(-1).tolist() for o in outputs[i:i + 2])
            assert sorted(zip(keys, values)) == e, f"export {sorted(zip(keys, values))} != {e}"
            i += 2
        else:
            np.testing.assert_array_equal(outputs[i], e)
            assert np.asarray(outputs[i]).dtype == e.dtype
            i += 1
    assert i == len(outputs)


_I64 = np.int64
# (keys, values) of each supported kind of table.
_TABLES = [
    (_s("cat", "dog", ""), np.array([3, 7, 0], _I64), (_s("dog", "eel", ""), _I64(-1)), "string to int64"),
    (np.array([5, -2], _I64), np.array([0.5, 1.5], np.float32), (np.array([-2, 9], _I64), np.float32(0)),
     "int64 to float"),
    (np.array([1, 2], np.int32), np.array([0.25, 4.0]), (np.array([[2, 3], [1, 1]], np.int32), np.float64(-1)),
     "int32 to double, 2-D keys"),
    (_s("a", "b" * 40), _s("x" * 30, "y"), (_s("b" * 40, "c"), np.array(b"?", dtype=object)),
     "string to string (long strings)"),
    (np.array([7], _I64), np.array([True]), (np.array([7, 8], _I64), np.bool_(False)), "int64 to bool"),
    (_s("k"), np.array([4], np.int32), (_s("k", "j"), np.int32(-1)), "string to int32"),
]


def _find_samples(mutable):
    return [Sample({"keys": k, "values": v, "mutable": mutable, "fill_op": "insert" if mutable else "import",
                    "fetch": [("find", *f), "size"]}, note=note) for k, v, f, note in _TABLES]


_EMPTY = _s()
_SAMPLES = {
    "HashTableV2": _find_samples(False),
    "MutableHashTableV2": _find_samples(True),
    "LookupTableFindV2": _find_samples(False) + _find_samples(True) + [
        Sample({"keys": _s("a", "b"), "values": np.array([1, 2], _I64),
                "fetch": [("find", _s("b", "z", "y"), np.array([-1, -2, -3], _I64))]},
               note="hash table: default_value's first element for every absent key (TensorFlow's rule)"),
        Sample({"keys": _s("a", "b"), "values": np.array([1, 2], _I64), "mutable": True, "fill_op": "insert",
                "fetch": [("find", _s("b", "z", "y"), np.array([-1, -2, -3], _I64))]},
               note="mutable table: each absent key's own default"),
        Sample({"keys": _s("a"), "values": np.array([1], _I64), "fetch": [("find", _EMPTY, _I64(0))]},
               note="no keys"),
        Sample({"keys": _s("a"), "values": np.array([1], _I64), "fetch": [("find", np.array(b"a", dtype=object),
                                                                            _I64(0))]}, note="scalar key")],
    "LookupTableImportV2": [
        Sample({"keys": _s("a", "b"), "values": np.array([1, 2], _I64),
                "steps": [("import", _s("a", "c"), np.array([5, 6], _I64))], "fetch": ["export", "size"]},
               note="hash table: a second import does nothing"),
        Sample({"keys": _s("a", "b"), "values": np.array([1, 2], _I64), "mutable": True,
                "steps": [("import", _s("c"), np.array([6], _I64))], "fetch": ["export"]},
               note="mutable table: import replaces every entry"),
        Sample({"keys": _s("a", "a"), "values": np.array([1, 1], _I64), "fetch": ["size"]},
               note="a key twice with one value")],
    "InitializeTableV2": [
        Sample({"keys": np.array([3, 1], _I64), "values": _s("three", "one"), "fill_op": "initialize",
                "steps": [("initialize", np.array([9], _I64), _s("nine"))],
                "fetch": [("find", np.array([1, 9], _I64), np.array(b"", dtype=object))]},
               note="filled once")],
    "LookupTableInsertV2": [
        Sample({"keys": _s("a"), "values": np.array([1.0], np.float32), "mutable": True, "fill_op": "insert",
                "steps": [("insert", _s("a", "b", "a"), np.array([2.0, 3.0, 4.0], np.float32))],
                "fetch": ["export"]}, note="later values win"),
        Sample({"keys": np.array([[1, 2]], _I64), "values": np.array([[5, 6]], np.int32), "mutable": True,
                "fill_op": "insert", "fetch": [("find", np.array([2, 3], _I64), np.int32(0))]}, note="2-D")],
    "LookupTableRemoveV2": [
        Sample({"keys": _s("a", "b"), "values": np.array([1, 2], _I64), "mutable": True, "fill_op": "insert",
                "steps": [("remove", _s("a", "zz"))], "fetch": ["export", ("find", _s("a", "b"), _I64(0))]},
               note="absent keys ignored")],
    "LookupTableSizeV2": [
        Sample({"keys": _s("a"), "values": np.array([1], _I64), "fill": False, "fetch": ["size"]},
               note="hash table not yet filled"),
        Sample({"keys": _s("a", "b", "c"), "values": np.array([1, 2, 3], _I64), "fetch": ["size"]})],
    "LookupTableExportV2": [
        Sample({"keys": np.array([4, 2, 8], np.int32), "values": np.array([0.5, 1.0, 2.0]), "fetch": ["export"]}),
        Sample({"keys": _EMPTY, "values": np.array([], _I64), "mutable": True, "fill_op": "insert",
                "fetch": ["export"]}, note="empty")],
}

_STR = {"keys": _s("a"), "values": np.array([1], _I64)}
_ERRORS = {
    "HashTableV2": [],
    "MutableHashTableV2": [],
    "LookupTableFindV2": [
        ErrorSample({**_STR, "fill": False, "fetch": [("find", _s("a"), _I64(0))]},
                    error=tx.errors.FailedPreconditionError, match="Table not initialized", when="runtime"),
        ErrorSample({**_STR, "fetch": [("find", _s("a", "b"), np.array([1, 2, 3], _I64))]},
                    match=r"Expected shape \[\] or \[2\] for default value, got \[3\]", when="runtime"),
        ErrorSample({**_STR, "fetch": [("find", np.array([1], np.int32), _I64(0))]},
                    match="HashTable of string to int64, but this op has int32 keys", when="runtime")],
    "LookupTableImportV2": [
        ErrorSample({"keys": _s("a", "a"), "values": np.array([1, 2], _I64), "fetch": ["size"]},
                    error=tx.errors.FailedPreconditionError,
                    match="HashTable has different value for same key. Key a has 1 and trying to add value 2",
                    when="runtime"),
        ErrorSample({"keys": _s("a", "b"), "values": np.array([1], _I64), "fetch": ["size"]},
                    match="Keys and values must have the same size 2 vs 1", when="runtime")],
    "InitializeTableV2": [
        ErrorSample({"keys": np.array([["a", "b"]], dtype=object), "values": np.array([[1, 2]], _I64),
                     "fill_op": "initialize", "fetch": ["size"]},
                    match="keys must be rank 1|Keys must be a vector", when="runtime"),
        ErrorSample({**_STR, "mutable": True, "fill_op": "initialize", "fetch": ["size"]},
                    match="InitializeTableV2 fills a HashTable", when="runtime")],
    "LookupTableInsertV2": [
        ErrorSample({**_STR, "fill_op": "insert", "fetch": ["size"]}, error=tx.errors.UnimplementedError,
                    match="Insert is not supported by a HashTable", when="runtime"),
        ErrorSample({"keys": _s("a", "b"), "values": np.array([1], _I64), "mutable": True, "fill_op": "insert",
                     "fetch": ["size"]}, match=r"Expected shape \[2\] for value, got \[1\]", when="runtime")],
    "LookupTableRemoveV2": [
        ErrorSample({**_STR, "steps": [("remove", _s("a"))], "fetch": ["size"]}, error=tx.errors.UnimplementedError,
                    match="Remove is not supported by a HashTable", when="runtime")],
    "LookupTableSizeV2": [],
    "LookupTableExportV2": [],
}


def _entry(op):
    return OpEntry(op, _SAMPLES[op], check=_check, build=_build, cross_check=False, errors=_ERRORS[op])


ENTRIES = [_entry(op) for op in _SAMPLES]
