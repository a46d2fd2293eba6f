"""make_csv_dataset against tf.data.experimental.make_csv_dataset on small files (shuffle=False):
column names from the header, type inference, select_columns, label_name, na_value, defaults,
several files, compression, ignore_errors, repetition; its errors; shuffling, resuming, debug mode."""

import gzip

import numpy as np
import pytest

import tensorflux as tx
import tensorflux_data as txd
from tensorflux_data._make_csv import infer_type

make = txd.experimental.make_csv_dataset
pytestmark = pytest.mark.filterwarnings("ignore:overflow encountered in cast:RuntimeWarning")  # TensorFlow's "1e39"

TYPES = (b"i32,i64,f32,f64,s,empty,mixed,na\n"
         b"1,99999999999,2.5,1e39,ann,,7,NA\n"
         b"-4,,0.25,-2.5,\"b, c\",,x,3\n"
         b",5,,1,,,,4.5\n"
         b"12,-3,1e10,0.5,\"say \"\"hi\"\"\",,2,NA\n"
         b"0,7,-1,2,z,,3,\n")


def _element(e):
    """(feature names, their dtypes and values, label or None) of an element of either library."""
    features, label = e if isinstance(e, tuple) else (e, None)
    out = [(k, v.dtype.name, v.numpy().tolist()) for k, v in features.items()]
    return out, None if label is None else (label.dtype.name, label.numpy().tolist())


def _spec(s):
    features, label = s if isinstance(s, tuple) else (s, None)
    out = [(k, v.dtype.name, v.shape.as_list()) for k, v in features.items()]
    return out, None if label is None else (label.dtype.name, label.shape.as_list())


def _both(pattern, *args, take=None, defaults=None, **kwargs):
    """Both libraries' elements, asserted equal; ``defaults(T)`` builds column_defaults with module T."""
    tf = pytest.importorskip("tensorflow")
    kwargs.setdefault("shuffle", False)
    ours = make(pattern, *args, **kwargs, **({} if defaults is None else {"column_defaults": defaults(tx)}))
    theirs = tf.data.experimental.make_csv_dataset(pattern, *args, **kwargs,
                                                   **({} if defaults is None else {"column_defaults": defaults(tf)}))
    if take is not None:
        ours, theirs = ours.take(take), theirs.take(take)
    assert _spec(ours.element_spec) == _spec(theirs.element_spec)
    got, want = [_element(e) for e in ours], [_element(e) for e in theirs]
    assert got == want
    return got


def test_header_names_and_inferred_types_like_tf(tmp_path):
    path = tmp_path / "t.csv"
    path.write_bytes(TYPES)
    got = _both(str(path), 2, num_epochs=1)
    assert [(k, t) for k, t, _ in got[0][0]] == [("i32", "int32"), ("i64", "int64"), ("f32", "float32"),
                                                  ("f64", "float64"), ("s", "string"), ("empty", "string"),
                                                  ("mixed", "string"), ("na", "string")]
    assert got[0][0][2][2] == [2.5, 0.25] and got[1][0][1][2] == [5, -3]  # a missing int is its default, 0
    _both(str(path), 3, num_epochs=1, na_value="NA")  # now "na" is a float32 column
    for mod in (txd.experimental, pytest.importorskip("tensorflow").data.experimental):
        short = mod.make_csv_dataset(str(path), 2, num_epochs=1, num_rows_for_inference=1, shuffle=False)
        assert short.element_spec["mixed"].dtype.name == "int32"  # after one row "mixed" looks like int32
        with pytest.raises(Exception, match="Field 6 in record (1 )?is not a valid int"):
            list(short)
    assert make(str(path), 2, num_epochs=1, na_value="NA", shuffle=False).element_spec["na"].dtype == tx.float32


def test_select_columns_label_name_and_defaults_like_tf(tmp_path):
    path = tmp_path / "t.csv"
    path.write_bytes(TYPES)
    _both(str(path), 2, num_epochs=1, label_name="s")
    _both(str(path), 4, num_epochs=1, select_columns=["f64", 0, "s"], label_name="f64")
    _both(str(path), 2, num_epochs=1, select_columns=["i32", "f32"], column_defaults=[[7], [1.5]])
    _both(str(path), 2, num_epochs=1, select_columns=[3], defaults=lambda T: [T.float64])  # required
    got = _both(str(path), 5, num_epochs=1, select_columns=["i64", "s"],
                defaults=lambda T: [T.constant([-1], T.int64), ["?"]])
    assert got[0][0] == [("i64", "int64", [99999999999, -1, 5, -3, 7]),
                         ("s", "string", [b"ann", b"b, c", b"?", b'say "hi"', b"z"])]


def test_column_names_without_a_header_several_files_and_parallel_reads_like_tf(tmp_path):
    for i in range(3):
        (tmp_path / ("p%d.csv" % i)).write_bytes(b"".join(b"%d,%d.5,r%d\n" % (i, j, j) for j in range(4 + i)))
    pattern = str(tmp_path / "p*.csv")
    for reads in (None, 1, 2):
        _both(pattern, 3, column_names=["a", "b", "c"], header=False, num_epochs=1, num_parallel_reads=reads,
              label_name="a")
    _both([str(tmp_path / "p2.csv"), str(tmp_path / "p0.csv")], 4, column_names=["a", "b", "c"], header=False,
          num_epochs=2)


def test_repeating_forever_gives_full_batches_like_tf(tmp_path):
    path = tmp_path / "t.csv"
    path.write_bytes(TYPES)
    got = _both(str(path), 3, take=4)
    assert all(len(e[0][0][2]) == 3 for e in got)


def test_gzip_delimiters_quotes_and_ignore_errors_like_tf(tmp_path):
    path = tmp_path / "t.csv.gz"
    path.write_bytes(gzip.compress(b"a;b\n1;x\n2;\"y;z\"\n3;w\n"))
    _both(str(path), 2, num_epochs=1, field_delim=";", compression_type="GZIP")
    bad = tmp_path / "bad.csv"
    bad.write_bytes(b"a,b\n1,2\n3,4\nx,5\n6,7\n")
    _both(str(bad), 2, num_epochs=1, ignore_errors=True, column_defaults=[[0], [0]])
    plain = tmp_path / "q.csv"
    plain.write_bytes(b'a|b\n"1|x\n2|"y"\n')
    _both(str(plain), 2, num_epochs=1, field_delim="|", use_quote_delim=False, select_columns=["b"])


def test_type_inference_matches_tensorflows_rules():
    tf = pytest.importorskip("tensorflow")
    from tensorflow.python.data.experimental.ops import readers
    values = ["", "NA", "0", "-7", "2147483647", "2147483648", "-2147483649", "9223372036854775807",
              "9223372036854775808", "1.5", "1e38", "1e39", "1e308", "1e309", "-1e39", "nan", "inf", "-inf", "abc",
              "1_000", " 5", "0x10", "1e-50"]
    types = [None, tx.int32, tx.int64, tx.float32, tx.float64, tx.string]
    tf_types = [None, tf.int32, tf.int64, tf.float32, tf.float64, tf.string]
    with np.errstate(over="ignore"):
        for v in values:
            for ours, theirs in zip(types, tf_types):
                want = readers._infer_type(v, "NA", theirs)
                got = infer_type(v, "NA", ours)
                assert (got and got.name) == (want and want.name), (v, ours)


def test_errors_like_tf(tmp_path):
    tf = pytest.importorskip("tensorflow")
    path = tmp_path / "t.csv"
    path.write_bytes(TYPES)
    cases = [(dict(label_name="nope"), r"label_name must be one of the columns \['i32', .*\], got 'nope'"),
             (dict(select_columns=["i32", "s"], column_defaults=[[0]]),
              "column_defaults has 1 entries but select_columns selects 2 columns"),
             (dict(select_columns=["i32", "zz"]), r"Column 'zz' in select_columns is not one of the columns"),
             (dict(select_columns=[0, 9]), "Column index 9 in select_columns is out of range"),
             (dict(header=False), "needs column_names or header=True"),
             (dict(column_names=["a", "b", "a"]), r"name a column more than once: \['a'\]")]
    for kwargs, message in cases:
        with pytest.raises(ValueError, match=message):
            make(str(path), 2, **kwargs)
        with pytest.raises(ValueError):
            tf.data.experimental.make_csv_dataset(str(path), 2, **kwargs)
    with pytest.raises(ValueError, match="No files match file_pattern"):
        make(str(tmp_path / "none*.csv"), 2)
    empty = tmp_path / "empty.csv"
    empty.write_bytes(b"")
    with pytest.raises(ValueError, match="Failed when reading the header line of .*empty.csv"):
        make(str(empty), 2)
    short = tmp_path / "short.csv"
    short.write_bytes(b"a,b\n1,2\n3\n")
    with pytest.raises(ValueError, match=r"Problem inferring types: .*short\.csv line 3 has 1 fields, expected 2"):
        make(str(short), 2)


def test_column_defaults_of_another_length_is_refused_at_construction(tmp_path):
    # (TensorFlow accepts it here and fails while reading: "Expect 2 fields but have more in record".)
    path = tmp_path / "t.csv"
    path.write_bytes(TYPES)
    with pytest.raises(ValueError, match="column_defaults has 2 entries but there are 8 columns"):
        make(str(path), 2, column_defaults=[[0], [0]])


def test_required_columns_and_bad_fields_are_errors_at_their_record(tmp_path):
    path = tmp_path / "t.csv"
    path.write_bytes(b"a,b\n1,2\n,3\n4,99999999999\n")
    it = iter(make(str(path), 1, column_defaults=[tx.int32, [0]], num_epochs=1, shuffle=False))
    assert int(next(it)["a"][0]) == 1
    with pytest.raises(tx.errors.InvalidArgumentError, match="Field 0 is required but missing in record 1"):
        next(it)
    with pytest.raises(tx.errors.InvalidArgumentError, match="Field 1 in record 2 is not a valid int32: 99999999999"):
        next(it)


def _rows(ds):
    return [tuple(int(v) for v in e["a"]) for e in ds]


def test_shuffle_is_a_seeded_permutation_and_resumes_exactly(tmp_path):
    for i in range(2):
        (tmp_path / ("s%d.csv" % i)).write_bytes(b"a\n" + b"".join(b"%d\n" % (100 * i + j) for j in range(30)))

    def build():
        return make(str(tmp_path / "s*.csv"), 4, num_epochs=2, shuffle_buffer_size=8, shuffle_seed=3)
    batches = _rows(build())
    values = [v for b in batches for v in b]
    assert sorted(values) == sorted([100 * i + j for i in range(2) for j in range(30)] * 2)
    assert values != sorted(values) and _rows(build()) == batches
    it = iter(build())
    head = [tuple(int(v) for v in next(it)["a"]) for _ in range(5)]
    resumed = iter(build())
    resumed.restore(it.save())
    assert head + _rows(resumed) == batches
    with txd.debug_mode():
        assert _rows(build()) == batches
