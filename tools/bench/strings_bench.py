"""String benchmarks: the string ops on 100,000 short strings, eagerly, next to the same
TensorFlow functions in one run (TensorFlow's regex ops run on RE2, ours on the engine's Pike VM,
docs/strings.md). Times are per call; the inputs are made once per framework.

    python tools/bench/strings_bench.py
"""

from __future__ import annotations

import random

from eager_bench import _tf_threads
from harness import median_seconds, report
from linalg_bench import cpu_model
from session_bench import _tf

N = 100_000
REPEATS = 7


def _texts():
    rng = random.Random(0)
    words = ["alpha", "Beta", "gamma42", "delta", "e-mail@host.com", "2024-01-31", "  padded  ", "ÉTÉ"]
    return [" ".join(rng.choice(words) for _ in range(rng.randrange(1, 5))) for _ in range(N)]


_TABLES = {}


def _table_lookup(m, x):
    """StaticHashTable.lookup of every string in a table of the first 1,000 texts (made once per framework)."""
    table = _TABLES.get(m.__name__)
    if table is None:
        vocab = sorted(set(_texts()[:1000]))
        table = _TABLES[m.__name__] = m.lookup.StaticHashTable(
            m.lookup.KeyValueTensorInitializer(vocab, list(range(len(vocab))), value_dtype=m.int64), -1)
    return table.lookup(x)


# (title, function of a framework module and its input tensor)
CASES = [
    ("regex_replace (\\d+)-(\\d+) -> \\2/\\1", lambda m, x: m.strings.regex_replace(x, r"(\d+)-(\d+)", r"\2/\1")),
    ("regex_full_match [a-z]+( [a-z]+)*", lambda m, x: m.strings.regex_full_match(x, r"[a-z]+( [a-z]+)*")),
    ("to_hash_bucket_fast 1000", lambda m, x: m.strings.to_hash_bucket_fast(x, 1000)),
    ("split on whitespace", lambda m, x: m.strings.split(x).values if m.__name__ == "tensorflux"
     else m.strings.split(x).flat_values),
    ("lower", lambda m, x: m.strings.lower(x)),
    ("join with a suffix", lambda m, x: m.strings.join([x, "!"])),
    ("length in UTF-8 characters", lambda m, x: m.strings.length(x, unit="UTF8_CHAR")),
    ("StaticHashTable lookup (1,000-text vocabulary)", _table_lookup),
]


def _bench(title, fn):
    import tensorflux as tx

    texts = _texts()
    x = tx.constant(texts)
    fn(tx, x)
    ours = median_seconds(lambda: fn(tx, x), repeats=REPEATS)
    theirs = {"tensorflow eager": None}
    tf = _tf()
    if tf is not None:
        _tf_threads(tf)
        y = tf.constant(texts)
        fn(tf, y)
        theirs["tensorflow eager"] = median_seconds(lambda: fn(tf, y), repeats=REPEATS)
    return report(f"strings: {title} ({N:,} strings)", "ms", 1e3, ours, theirs)


def _make(title, fn):
    def bench():
        return _bench(title, fn)

    bench.__name__ = "bench_strings_" + title.split()[0]
    return bench


ALL = [_make(title, fn) for title, fn in CASES]


if __name__ == "__main__":
    print("CPU:", cpu_model())
    for b in ALL:
        b()
