"""tx.strings and tx.io against Python's own str/bytes/re/base64 on random inputs, and against
TensorFlow (skipped without it): hash buckets on hundreds of strings, regexes on thousands of
pattern/text/rewrite combinations, and the public functions' results."""

import base64
import random
import re

import numpy as np
import pytest

import tensorflux as tx

pytestmark = pytest.mark.eager

_ALPHABET = "ab c\t\nXYZ,-_0123456789\u00e9\u00df\u03a3\u0416"


def _random_texts(n, seed, max_len=12):
    rng = random.Random(seed)
    return ["".join(rng.choice(_ALPHABET) for _ in range(rng.randrange(max_len))) for _ in range(n)]


def _random_bytes(n, seed):
    rng = random.Random(seed)
    sizes = list(range(70)) + [127, 128, 129, 255, 256, 1000, 4097]
    return [bytes(rng.getrandbits(8) for _ in range(rng.choice(sizes))) for _ in range(n)]


TEXTS = _random_texts(300, 1)
DATA = [t.encode() for t in TEXTS]


def test_against_python_bytes_and_str():
    x = tx.constant(TEXTS)
    assert tx.strings.length(x).numpy().tolist() == [len(d) for d in DATA]
    assert tx.strings.length(x, unit="UTF8_CHAR").numpy().tolist() == [len(t) for t in TEXTS]
    assert tx.strings.strip(x).numpy().tolist() == [d.strip(b" \t\n\v\f\r") for d in DATA]
    assert tx.strings.upper(x).numpy().tolist() == [d.upper() for d in DATA]  # ASCII only, like bytes.upper
    assert tx.strings.lower(x, encoding="utf-8").numpy().tolist() == [t.lower().encode() for t in TEXTS]
    assert tx.strings.upper(x, encoding="utf-8").numpy().tolist() == [t.upper().encode() for t in TEXTS]
    assert tx.strings.join([x, "|", x]).numpy().tolist() == [d + b"|" + d for d in DATA]
    nonempty = [t for t in TEXTS if t]
    assert tx.strings.substr(nonempty, 1, 3, unit="UTF8_CHAR").numpy().tolist() == [t[1:4].encode()
                                                                                      for t in nonempty]
    assert tx.strings.substr(nonempty, -1, 5).numpy().tolist() == [t.encode()[-1:] for t in nonempty]
    for t in TEXTS[:60]:
        assert tx.strings.split(t).numpy().tolist() == t.encode().split()
        assert tx.strings.split(t, sep=",").numpy().tolist() == t.encode().split(b",")
        assert tx.strings.split(t, sep=",", maxsplit=1).numpy().tolist() == t.encode().split(b",", 1)
    assert tx.io.encode_base64(DATA).numpy().tolist() == [base64.urlsafe_b64encode(d).rstrip(b"=") for d in DATA]
    assert tx.io.encode_base64(DATA, pad=True).numpy().tolist() == [base64.urlsafe_b64encode(d) for d in DATA]
    assert tx.io.decode_base64(tx.io.encode_base64(DATA)).numpy().tolist() == DATA


def test_whitespace_split_matches_python_bytes_split():
    for d in [t.encode() for t in _random_texts(200, 7)]:
        assert tx.strings.split(d).numpy().tolist() == d.split()
        assert tx.strings.split(d, maxsplit=1).numpy().tolist() == d.split(None, 1)


def test_numbers_round_trip_through_text():
    rng = np.random.default_rng(3)
    floats = rng.standard_normal(200) * 10.0 ** rng.integers(-8, 8, 200)
    text = tx.strings.as_string(floats, precision=17, scientific=True)
    assert text.numpy().tolist() == [("%.17e" % v).encode() for v in floats]
    np.testing.assert_array_equal(tx.strings.to_number(text, out_type=tx.float64).numpy(), floats)
    ints = rng.integers(-2 ** 62, 2 ** 62, 200)
    assert tx.strings.to_number(tx.strings.as_string(ints), out_type=tx.int64).numpy().tolist() == ints.tolist()
    assert tx.strings.as_string(ints, width=25, fill="0").numpy().tolist() == [("%025d" % v).encode() for v in ints]


def test_regex_against_python_re():
    cases = [(r"[a-c]+", "<\\0>"), (r"(\d+)", "[\\1]"), (r"\s+", " "), (r"(\w)(\w)", "\\2\\1"), ("Z|Y", "")]
    x = tx.constant(TEXTS)
    for pattern, rewrite in cases:
        want = [re.sub(pattern, rewrite.replace("\\0", "\\g<0>"), d.decode("latin-1"), flags=re.ASCII).encode(
            "latin-1") for d in DATA]
        assert tx.strings.regex_replace(x, pattern, rewrite).numpy().tolist() == want, pattern
        first = [re.sub(pattern, rewrite.replace("\\0", "\\g<0>"), d.decode("latin-1"), count=1,
                        flags=re.ASCII).encode("latin-1") for d in DATA]
        assert tx.strings.regex_replace(x, pattern, rewrite, replace_global=False).numpy().tolist() == first
        full = [re.fullmatch(pattern, t, flags=re.ASCII) is not None for t in TEXTS]
        assert tx.strings.regex_full_match(x, pattern).numpy().tolist() == full
        assert tx.strings.regex_full_match(x, tx.constant(pattern)).numpy().tolist() == full


def test_bad_input_errors():
    with pytest.raises(tx.errors.InvalidArgumentError,
                       match="StringToNumberOp could not correctly convert string: abc"):
        tx.strings.to_number("abc")
    with pytest.raises(tx.errors.InvalidArgumentError, match=r"Invalid pattern: a\(, error: missing \): a\("):
        tx.strings.regex_replace("x", "a(", "")
    with pytest.raises(tx.errors.InvalidArgumentError, match=r"Invalid pattern: \\p\{Greek\}"):
        tx.strings.regex_full_match("x", tx.constant(r"\p{Greek}"))
    with pytest.raises(tx.errors.InvalidArgumentError, match=r"pos 7 out of range for string b'hello' at index 0"):
        tx.strings.substr("hello", 7, 1)
    with pytest.raises(tx.errors.InvalidArgumentError, match="pos 9 out of range for string at index 1"):
        tx.strings.substr(["h\u00e9llo", "ab"], [0, 9], [1, 1], unit="UTF8_CHAR")
    with pytest.raises(tx.errors.NotFoundError, match="no/such/file"):
        tx.io.read_file("/no/such/file")
    # The context stays usable.
    assert tx.strings.length("ok").numpy() == 2


def test_graph_mode_errors_name_the_node():
    g = tx.Graph()
    with g.as_default():
        s = tx.placeholder(tx.string, [None])
        n = tx.strings.to_number(s, name="parse")
        r = tx.strings.regex_replace(s, tx.constant("("), "x", name="replace")
    with tx.Session(graph=g) as sess:
        with pytest.raises(tx.errors.InvalidArgumentError, match=r"\[parse\] StringToNumberOp could not correctly"):
            sess.run(n, {s: ["1", "abc"]})
        with pytest.raises(tx.errors.InvalidArgumentError, match=r"\[replace\] Invalid pattern: \("):
            sess.run(r, {s: ["a"]})
        assert sess.run(n, {s: ["1", "2.5"]}).tolist() == [1.0, 2.5]


# --- TensorFlow --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tf():
    return pytest.importorskip("tensorflow")


def test_hash_buckets_equal_tensorflow(tf):
    data = _random_bytes(400, 11) + DATA
    for buckets in (1, 7, 1000, 2 ** 31 - 1, 2 ** 62 + 3):
        assert (tx.strings.to_hash_bucket_fast(data, buckets).numpy().tolist()
                == tf.strings.to_hash_bucket_fast(data, buckets).numpy().tolist())
        assert (tx.strings.to_hash_bucket(data, buckets).numpy().tolist()
                == tf.strings.to_hash_bucket(data, buckets).numpy().tolist())
        assert (tx.strings.to_hash_bucket_strong(data, buckets, [3, 2 ** 50]).numpy().tolist()
                == tf.strings.to_hash_bucket_strong(data, buckets, [3, 2 ** 50]).numpy().tolist())


_PATTERNS = [r"", r"a*", r"a*?", r"(a|ab)(c|bcd)(d*)", r"^a", r"a$", r"(?m)^b", r"\bfoo\b", r"\B", r"\d+", r"\W+",
             r"[^a-c]+", r"[[:alpha:]]+", r"x{1,3}", r"(x{2,3}){2}", "(?i)stra\u00dfe", "(?i)\u03c3", r".", r"(?s).",
             r"\x{e9}", r"\Q.*\E+", r"(?U)a+", r"(a*)*", r"(|a)+", r"(?P<x>a)(?P<y>b)?", r"(?i)k", r"[\x00-\x{10FFFF}]",
             r"(a)|(b)", r"((a)|b)+", r"(a+?)(a+)"]
_TEXTS = [b"", b"a", b"aaa", b"abcd", b"foo bar foo", b"a\nb\na", b"xxxxx", "STRASSE stra\u00dfe".encode(),
          "\u03c3\u03b1\u03c2 \u03a3".encode(), b"a\xffb", b"\xc3", "a\u00e9".encode(), b"KELVIN k \xe2\x84\xaa",
          b"12 ab_c 3"]
_REWRITES = [b"-", b"<\\0>", b"\\1", b"[\\1|\\2]", b"\\\\", b"\\q", b"\\2"]


def test_regex_equals_tensorflows_re2(tf):
    texts = tx.constant(_TEXTS)
    for pattern in _PATTERNS:
        assert (tx.strings.regex_full_match(texts, pattern).numpy().tolist()
                == tf.strings.regex_full_match(_TEXTS, pattern).numpy().tolist()), pattern
        for rewrite in _REWRITES:
            for glob in (True, False):
                ours = tx.strings.regex_replace(texts, pattern, rewrite, replace_global=glob).numpy().tolist()
                theirs = tf.strings.regex_replace(_TEXTS, pattern, rewrite, replace_global=glob).numpy().tolist()
                assert ours == theirs, (pattern, rewrite, glob)


def test_public_functions_equal_tensorflow(tf):
    grid = [["a b", "", "c,d"], ["e", "f g h", "i"]]
    pairs = [
        (lambda m: m.strings.join([grid, "!"], separator="-"), None),
        (lambda m: m.strings.reduce_join(grid, axis=0, separator="/"), None),
        (lambda m: m.strings.reduce_join(grid, keepdims=True), None),
        (lambda m: m.strings.as_string([1.25, -3.5], precision=1, width=7, fill="0"), None),
        (lambda m: m.strings.as_string(np.array([7, 300], np.int64), width=5), None),
        (lambda m: m.strings.to_number(["1.5", "-2e3"], out_type=m.float64), None),
        (lambda m: m.strings.format("a={} b={}", [m.constant([[1, 2], [3, 4]]), m.constant("s")]), None),
        (lambda m: m.strings.length(grid, unit="UTF8_CHAR"), None),
        (lambda m: m.strings.substr(grid, 0, 1), None),
        (lambda m: m.strings.bytes_split("h\u00e9"), None),
        (lambda m: m.strings.split("  a b "), None),
        (lambda m: m.io.decode_raw([b"\x01\x02\x03\x04"], m.int32, little_endian=False), None),
        (lambda m: m.io.decode_base64(m.io.encode_base64(["data?", ""], pad=True)), None),
    ]
    for fn, _ in pairs:
        ours, theirs = fn(tx), fn(tf)
        np.testing.assert_array_equal(np.asarray(ours.numpy()), np.asarray(theirs.numpy()))
    for value in (grid, [["a b", "c"], ["", "d e f"]], ["x y", "", "z"]):
        ours, theirs = tx.strings.split(value), tf.strings.split(value).to_sparse()
        for a, b in zip(ours, (theirs.indices, theirs.values, theirs.dense_shape)):
            np.testing.assert_array_equal(a.numpy(), b.numpy())
        ours, theirs = tx.strings.bytes_split(value), tf.strings.bytes_split(value).to_sparse()
        for a, b in zip(ours, (theirs.indices, theirs.values, theirs.dense_shape)):
            np.testing.assert_array_equal(a.numpy(), b.numpy())
