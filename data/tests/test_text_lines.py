"""TextLineDataset on the native engine: lines with "\\n" and "\\r\\n" endings, empty lines and files,
a last line without an ending, lines longer than a read chunk, compressed files, resuming mid-file
and fuzzed contents give the Python engine's lines, and TensorFlow's where it is installed."""

import gzip
import zlib

import pytest

import tensorflux as tx
import tensorflux_data as txd
from pipelines import assert_resumes_natively, native_values, outcomes, python_only

CASES = {
    "plain": b"a\nbb\n\nccc",
    "crlf": b"x\r\ny\r\n\r\nlast\r",
    "trailing_newline": b"one\ntwo\n",
    "empty": b"",
    "newlines": b"\n\n\n",
    "long_line": b"z" * (3 << 20) + b"\nshort\n",
}
COMPRESS = {"": lambda b: b, "GZIP": lambda b: gzip.compress(b, mtime=0), "ZLIB": zlib.compress}


@pytest.mark.parametrize("compression", sorted(COMPRESS))
@pytest.mark.parametrize("case", sorted(CASES))
def test_text_lines_natively_as_the_python_engine_and_tensorflow(tmp_path, case, compression):
    path = str(tmp_path / "lines")
    open(path, "wb").write(COMPRESS[compression](CASES[case]))
    got = native_values(txd.TextLineDataset(path, compression_type=compression).batch(2))
    assert got == native_values(txd.TextLineDataset(path, compression_type=compression).map(lambda x: x), batched=False)
    tf = pytest.importorskip("tensorflow")
    assert got == [r.numpy() for r in tf.data.TextLineDataset(path, compression_type=compression)]


def test_lines_across_files_resume_natively_mid_file(tmp_path):
    paths = []
    for k in range(3):
        paths.append(str(tmp_path / ("f%d" % k)))
        open(paths[-1], "wb").write(b"".join(b"file%d line%d\n" % (k, i) for i in range(250)))

    def build():
        return txd.TextLineDataset(paths).batch(16)
    want = native_values(build())
    assert len(want) == 750
    assert_resumes_natively(build, want, (1, 17, 30))


def test_fuzzed_text_files_give_the_python_enginesnative_values(tmp_path):
    hypothesis = pytest.importorskip("hypothesis")
    st = hypothesis.strategies

    @hypothesis.settings(max_examples=120, deadline=None, derandomize=True)
    @hypothesis.given(st.binary(max_size=300).map(lambda b: b.replace(b"\x00", b"\n").replace(b"\x01", b"\r")),
                      st.sampled_from(sorted(COMPRESS)), st.integers(1, 5))
    def check(data, compression, batch):
        path = str(tmp_path / "fuzz")
        open(path, "wb").write(COMPRESS[compression](data))
        native_values(txd.TextLineDataset(path, compression_type=compression).batch(batch))
    check()


def test_corrupt_compressed_text_gives_the_python_engines_outcomes(tmp_path):
    hypothesis = pytest.importorskip("hypothesis")
    st = hypothesis.strategies
    clean = {c: COMPRESS[c](b"".join(b"line %d\r\n" % i for i in range(400))) for c in ("GZIP", "ZLIB")}

    @hypothesis.settings(max_examples=80, deadline=None, derandomize=True)
    @hypothesis.given(st.sampled_from(["GZIP", "ZLIB"]), st.data())
    def check(compression, draw):
        data = bytearray(clean[compression])
        data[draw.draw(st.integers(0, len(data) - 1))] ^= draw.draw(st.integers(1, 255))
        path = str(tmp_path / "corrupt")
        open(path, "wb").write(bytes(data[:draw.draw(st.integers(0, len(data)))]))
        ds = txd.TextLineDataset(path, compression_type=compression).batch(7)
        assert outcomes(tx.nest, tx.errors.OpError, iter(ds), limit=200) == outcomes(
            tx.nest, tx.errors.OpError, iter(python_only(ds)), limit=200)
    check()
