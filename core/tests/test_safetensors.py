"""Safetensors checkpoint files: round trips for every dtype, metadata, interop with the
`safetensors` package (when installed), every rejected corruption, and atomic saves."""

import json
import os
import struct
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tensorflux as tx
from tensorflux._src import lib as _lib
from tensorflux._src import safetensors_io as st

try:
    import ml_dtypes
except ImportError:
    ml_dtypes = None

try:
    import safetensors.numpy as ref
except ImportError:
    ref = None

needs_ref = pytest.mark.skipif(ref is None, reason="the safetensors package is not installed")

NUMPY_DTYPES = [np.float64, np.float32, np.float16, np.complex64, np.int64, np.int32, np.int16, np.int8, np.uint64,
                np.uint32, np.uint16, np.uint8, np.bool_]
SHAPES = [(2, 3), (), (0,), (0, 4), (1, 1, 5)]


def _all_dtypes():
    out = [np.dtype(d) for d in NUMPY_DTYPES]
    if ml_dtypes is not None:
        out.append(np.dtype(ml_dtypes.bfloat16))
    return out


def _sample(dtype, shape, seed=0):
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    if dtype == np.bool_:
        values = rng.integers(0, 2, n) == 1
    elif dtype.kind == "c":
        values = rng.standard_normal(n) + 1j * rng.standard_normal(n)
    elif dtype.kind in "iu":
        info = np.iinfo(dtype)
        values = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    else:
        values = rng.standard_normal(n) * 100
    return np.asarray(values).astype(dtype).reshape(shape)


def _same(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def _raw_file(path, header, data=b""):
    """Writes a file with `header` (a str or dict) and `data`, returning its path as a str."""
    text = header if isinstance(header, str) else json.dumps(header)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text.encode())) + text.encode() + data)
    return str(path)


@pytest.mark.parametrize("dtype", _all_dtypes(), ids=str)
def test_round_trip_every_dtype_and_shape(tmp_path, dtype):
    tensors = {"t%d" % i: _sample(dtype, shape, i) for i, shape in enumerate(SHAPES)}
    st.save_file(tensors, tmp_path / "x.safetensors")
    back = st.load_file(tmp_path / "x.safetensors")
    assert set(back) == set(tensors)
    for name, value in tensors.items():
        assert isinstance(back[name], np.ndarray)
        assert _same(back[name], value), name
    back["t0"][...] = back["t0"][::-1]  # loaded arrays own writable memory


def test_round_trip_mixed_file_keeps_reference_order(tmp_path):
    tensors = {"b": np.ones(3, np.float32), "a": np.zeros(2, np.int8), "c": np.eye(2), "s": np.float32(7)}
    path = str(tmp_path / "m.safetensors")
    st.save_file(tensors, path)
    back = st.load_file(path)
    assert list(back) == ["c", "b", "s", "a"]  # larger element types first, then by name
    assert back["s"].shape == () and back["s"] == 7
    for k, v in tensors.items():
        assert _same(back[k], np.asarray(v))


def test_non_contiguous_and_big_endian_inputs(tmp_path):
    base = np.arange(24, dtype=np.float32).reshape(4, 6)
    tensors = {"strided": base[::2, 1::2], "fortran": np.asfortranarray(base), "be": base.astype(">i4"),
               "list": [[1.5, 2.5]]}
    st.save_file(tensors, tmp_path / "x.safetensors")
    back = st.load_file(tmp_path / "x.safetensors")
    np.testing.assert_array_equal(back["strided"], base[::2, 1::2])
    np.testing.assert_array_equal(back["fortran"], base)
    assert back["be"].dtype == np.int32 and back["be"].dtype.isnative
    np.testing.assert_array_equal(back["be"], base.astype(np.int32))
    assert back["list"].dtype == np.float64 and back["list"].tolist() == [[1.5, 2.5]]


def test_metadata(tmp_path):
    meta = {"format": "np", "quote\"back\\slash": "line\nbreak\ttab\x01", "unicodé": "ünï 😀", "empty": ""}
    path = tmp_path / "m.safetensors"
    st.save_file({"w": np.ones(2)}, path, metadata=meta)
    assert st.load_metadata(path) == meta
    assert st.load_file(path)["w"].tolist() == [1.0, 1.0]
    st.save_file({"w": np.ones(2)}, path)
    assert st.load_metadata(path) == {}
    st.save_file({}, path, metadata={"only": "metadata"})
    assert st.load_file(path) == {} and st.load_metadata(path) == {"only": "metadata"}


def test_save_argument_errors(tmp_path):
    path = tmp_path / "x.safetensors"
    with pytest.raises(TypeError, match="tensor names must be str"):
        st.save_file({1: np.ones(1)}, path)
    with pytest.raises(TypeError, match="metadata keys and values must be str"):
        st.save_file({"a": np.ones(1)}, path, metadata={"k": 1})
    with pytest.raises(TypeError, match="must be a mapping"):
        st.save_file([np.ones(1)], path)
    with pytest.raises(TypeError, match="'s' has type string, which the safetensors format cannot hold"):
        st.save_file({"s": np.array(["ab"])}, path)
    with pytest.raises(TypeError, match="'o': arrays of dtype object"):
        st.save_file({"o": np.array([None])}, path)
    with pytest.raises(ValueError, match="NUL"):
        st.save_file({"a\0b": np.ones(1)}, path)
    with pytest.raises(tx.errors.InvalidArgumentError, match="tensor #0 has an empty name"):
        st.save_file({"": np.ones(1)}, path)
    with pytest.raises(tx.errors.InvalidArgumentError, match="reserved"):
        st.save_file({"__metadata__": np.ones(1)}, path)
    with pytest.raises(tx.errors.InvalidArgumentError, match="'c' has type complex128, which the safetensors format"):
        st.save_file({"c": np.ones(1, np.complex128)}, path)
    with pytest.raises(tx.errors.NotFoundError, match="no/such/dir"):
        st.save_file({"a": np.ones(1)}, tmp_path / "no" / "such" / "dir" / "x.safetensors")
    assert not path.exists()


def _leftover_temporaries(directory):
    return [p.name for p in directory.iterdir() if ".tmp-" in p.name]


def test_failed_save_leaves_the_old_file_intact(tmp_path):
    path = tmp_path / "ckpt.safetensors"
    st.save_file({"w": np.arange(4.0)}, path, metadata={"step": "1"})
    before = path.read_bytes()
    f32 = (int(tx.float32.as_datatype_enum), np.ones(2, np.float32))
    # A duplicate name (possible through the C API, not with a dict) fails before any write.
    with pytest.raises(tx.errors.InvalidArgumentError, match="duplicate tensor name 'a'"):
        _lib.c.save_safetensors(os.fsencode(path), ["a", "a"], [f32, f32], [])
    with pytest.raises(tx.errors.InvalidArgumentError):
        st.save_file({"w": np.ones(1, np.complex128)}, path)
    # A rename that fails after the data was written removes the temporary file.
    (tmp_path / "a_dir").mkdir()
    with pytest.raises(tx.errors.OpError, match="a_dir"):
        st.save_file({"w": np.ones(3)}, tmp_path / "a_dir")
    assert path.read_bytes() == before
    assert _leftover_temporaries(tmp_path) == []
    # Overwriting succeeds and replaces the content.
    st.save_file({"v": np.zeros(2, np.int8)}, path)
    assert list(st.load_file(path)) == ["v"]


_LIMITED_SAVE = textwrap.dedent("""
    import resource, signal, sys
    import numpy as np
    from tensorflux._src import safetensors_io as st
    # Ignored (Python's default), writes past the limit fail with EFBIG; SIG_DFL kills the process.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN if sys.argv[2] == "ignore" else signal.SIG_DFL)
    resource.setrlimit(resource.RLIMIT_FSIZE, (4096, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))
    try:
        st.save_file({"big": np.ones(100_000, np.float32)}, sys.argv[1])
    except Exception as e:
        print(type(e).__name__, e)
        sys.exit(3)
""")


@pytest.mark.parametrize("mode", ["ignore", "crash"])
def test_failure_or_crash_mid_write_keeps_the_old_file(tmp_path, mode):
    # RLIMIT_FSIZE makes the write fail part-way: with SIGXFSZ ignored the save reports EFBIG and
    # cleans up; with the default action the process is killed mid-write, like a crash.
    path = tmp_path / "ckpt.safetensors"
    st.save_file({"w": np.arange(10.0)}, path)
    before = path.read_bytes()
    out = subprocess.run([sys.executable, "-c", _LIMITED_SAVE, str(path), mode], capture_output=True, text=True)
    if mode == "ignore":
        assert out.returncode == 3, out.stdout + out.stderr
        assert "OutOfRangeError" in out.stdout and ".tmp-" in out.stdout and "File too large" in out.stdout
        assert _leftover_temporaries(tmp_path) == []
    else:
        assert out.returncode < 0, out.stdout + out.stderr  # killed by SIGXFSZ
        assert len(_leftover_temporaries(tmp_path)) == 1  # the partial write went to a temporary file
    assert path.read_bytes() == before
    np.testing.assert_array_equal(st.load_file(path)["w"], np.arange(10.0))


GOOD = {"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}
DATA = np.arange(2, dtype=np.float32).tobytes()


@pytest.mark.parametrize("header,data,error,match", [
    (GOOD, DATA[:5], tx.errors.DataLossError, r"'a' \(bytes \[0, 8\)\) runs past the end of the 5-byte data"),
    (GOOD, DATA + b"junk", tx.errors.DataLossError, "4 trailing bytes after the last tensor"),
    (json.dumps(GOOD) + " x", DATA, tx.errors.DataLossError, r"trailing garbage"),
    ('{"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},}', DATA, tx.errors.DataLossError,
     "malformed JSON header at byte 61: expected a string"),
    ('{"a": {"dtype": "F32" "shape": [2]}}', DATA, tx.errors.DataLossError, "malformed JSON header.*expected '}'"),
    ("not json", DATA, tx.errors.DataLossError, "malformed JSON header at byte 0: expected '{'"),
    ({"a": {"dtype": "Q7", "shape": [2], "data_offsets": [0, 8]}}, DATA, tx.errors.DataLossError,
     "tensor 'a' has unknown dtype \"Q7\""),
    ({"a": {"dtype": "F8_E4M3", "shape": [8], "data_offsets": [0, 8]}}, DATA, tx.errors.UnimplementedError,
     "dtype F8_E4M3, which Tensorflux cannot store"),
    ({"a": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}}, DATA, tx.errors.DataLossError,
     r"shape \[3\] needs 3 \* 4 bytes but its data_offsets \[0, 8\] hold 8"),
    ({"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}, "b": {"dtype": "F32", "shape": [1],
                                                                       "data_offsets": [2, 6]}},
     DATA, tx.errors.DataLossError, r"tensor 'b' \(bytes \[2, 6\)\) overlaps tensor 'a'"),
    ({"a": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}}, DATA, tx.errors.DataLossError,
     r"bytes \[0, 4\) of the data buffer belong to no tensor"),
    ({"a": {"dtype": "F32", "shape": [2], "data_offsets": [8, 16]}}, DATA, tx.errors.DataLossError,
     "belong to no tensor"),
    ({"a": {"dtype": "F32", "shape": [2], "data_offsets": [8, 0]}}, DATA, tx.errors.DataLossError,
     "end before they begin"),
    ({"a": {"dtype": "F32", "shape": [-2], "data_offsets": [0, 8]}}, DATA, tx.errors.DataLossError, "non-negative"),
    ({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8], "extra": 1}}, DATA, tx.errors.DataLossError,
     "unknown field \"extra\""),
    ({"a": {"dtype": "F32", "shape": [2]}}, DATA, tx.errors.DataLossError, "lacks \"data_offsets\""),
    ('{"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}, '
     '"a": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}}', DATA, tx.errors.DataLossError,
     "duplicate tensor name 'a'"),
    ({"__metadata__": {"k": 3}}, b"", tx.errors.DataLossError, "metadata value of \"k\" must be a string"),
])
def test_corrupt_files_are_rejected(tmp_path, header, data, error, match):
    path = _raw_file(tmp_path / "bad.safetensors", header, data)
    with pytest.raises(error, match=match) as info:
        st.load_file(path)
    assert path in str(info.value)
    with pytest.raises(error):  # the header is checked in full even when only metadata is wanted
        st.load_metadata(path)


def test_bad_header_lengths(tmp_path):
    path = tmp_path / "bad.safetensors"
    for content, match in [(b"", "holds 0 bytes, fewer than the 8-byte header length"),
                           (b"\x02\0\0", "holds 3 bytes"),
                           (struct.pack("<Q", 100_000_001) + b"{}", "header length 100000001 exceeds the limit"),
                           (struct.pack("<Q", 2**64 - 1), "exceeds the limit of 100000000 bytes"),
                           (struct.pack("<Q", 64) + b"{}", "header length 64 runs past the end of the 10-byte file")]:
        path.write_bytes(content)
        with pytest.raises(tx.errors.DataLossError, match=match):
            st.load_file(path)


def test_every_truncation_is_rejected(tmp_path):
    good = tmp_path / "good.safetensors"
    st.save_file({"w": np.arange(6, dtype=np.float32), "b": np.ones(2, np.int64)}, good, {"k": "v"})
    content = good.read_bytes()
    bad = tmp_path / "bad.safetensors"
    for n in range(len(content)):
        bad.write_bytes(content[:n])
        with pytest.raises(tx.errors.DataLossError, match="bad.safetensors"):
            st.load_file(bad)


def test_missing_file(tmp_path):
    with pytest.raises(tx.errors.NotFoundError, match="nope.safetensors"):
        st.load_file(tmp_path / "nope.safetensors")
    with pytest.raises(tx.errors.FailedPreconditionError, match="not a regular file"):
        st.load_file(tmp_path)


@needs_ref
@pytest.mark.parametrize("dtype", _all_dtypes(), ids=str)
def test_interop_with_the_safetensors_package(tmp_path, dtype):
    tensors = {"t%d" % i: _sample(dtype, shape, i + 10) for i, shape in enumerate(SHAPES)}
    ours, theirs = tmp_path / "ours.safetensors", tmp_path / "theirs.safetensors"
    st.save_file(tensors, ours, metadata={"origin": "tensorflux"})
    ref.save_file(tensors, str(theirs), metadata={"origin": "tensorflux"})
    assert ours.read_bytes() == theirs.read_bytes()
    for got in (ref.load_file(str(ours)), st.load_file(theirs)):
        assert set(got) == set(tensors)
        for name, value in tensors.items():
            assert _same(np.asarray(got[name]), value), name


@needs_ref
def test_reference_reads_mixed_files_we_write_and_vice_versa(tmp_path):
    tensors = {"emb": np.ones((3, 2), np.float16), "step": np.array(5, np.int64), "m": np.zeros(4, np.bool_),
               "w": np.linspace(0, 1, 6).reshape(2, 3), "u": np.arange(3, dtype=np.uint32)}
    ours, theirs = tmp_path / "ours.safetensors", tmp_path / "theirs.safetensors"
    st.save_file(tensors, ours)
    ref.save_file(tensors, str(theirs))
    assert ours.read_bytes() == theirs.read_bytes()  # same order, offsets and padding
    back = st.load_file(theirs)
    assert all(_same(back[k], np.asarray(v)) for k, v in tensors.items())
    from safetensors import safe_open
    with safe_open(str(ours), framework="numpy") as f:
        assert sorted(f.keys()) == sorted(tensors)
        np.testing.assert_array_equal(f.get_tensor("w"), tensors["w"])
