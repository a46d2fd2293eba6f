"""Soak test (nox -s soak): mixes eager ops, tx.function retraces, sessions and checkpoint saves
and restores for a while and checks that the process's resident memory stays flat.

After a warm-up (caches, allocator pools and lazily built kernels fill up), three measures are
sampled after every round: RSS, the bytes glibc's malloc has handed out and not got back (mallinfo2;
exact, unlike RSS, which allocator pools and fragmentation blur) and the number of objects the
Python garbage collector tracks. The test fails when, after warm-up, RSS grows by more than
RSS_LIMIT_MB, malloc'd bytes by more than HEAP_LIMIT_KB per round on average, or the object count
by more than OBJECTS_LIMIT in all. A leak of a few hundred bytes per round shows up in the heap
measure over the default 400 rounds (the last two leaks found this way: AutoGraph's conversion
cache keeping every converted function, and eager VarHandleOp kernels cached per variable).

    python tools/soak.py                 # the full run (minutes)
    python tools/soak.py --rounds 40     # a short smoke run
"""

import argparse
import ctypes
import gc
import os
import resource
import sys
import tempfile

import numpy as np

import tensorflux as tx
from tensorflux._src import safetensors_io as st

RSS_LIMIT_MB = 8.0
HEAP_LIMIT_KB = 0.5  # per round, after warm-up
OBJECTS_LIMIT = 100


def rss_mb():
    """Current resident set size in MiB (from /proc; ru_maxrss is only the peak)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() / 2**20


class _MallInfo2(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in
                ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks",
                 "keepcost")]


def heap_kb():
    """Bytes (KiB) glibc's malloc has handed out and not got back, or None without glibc 2.33+."""
    try:
        mallinfo2 = ctypes.CDLL(None).mallinfo2
    except (OSError, AttributeError):
        return None
    mallinfo2.restype = _MallInfo2
    m = mallinfo2()
    return (m.uordblks + m.hblkhd) / 1024


def eager_round(rng):
    x = tx.constant(rng.standard_normal((32, 16)).astype(np.float32))
    w = tx.Variable(rng.standard_normal((16, 8)).astype(np.float32))
    with tx.GradientTape() as tape:
        y = tx.reduce_sum(tx.nn.relu(tx.matmul(x, w)))
    g = tape.gradient(y, w)
    mask = tx.greater(x, 0.0)
    tx.where(mask).numpy()
    return float(y.numpy()) + float(tx.reduce_sum(g).numpy())


def function_round(i):
    @tx.function
    def f(a, b):
        return tx.reduce_sum(a * b) + tx.cast(tx.shape(a)[0], tx.float32)

    total = 0.0
    for n in (1 + i % 5, 7, 1 + i % 5):  # a new function object each round, retraced per shape
        a = tx.constant(np.ones((n, 3), np.float32))
        total += float(f(a, a).numpy())
    return total


def session_round(i, directory):
    with tx.Graph().as_default():
        x = tx.placeholder(tx.float32, [None, 4])
        v = tx.Variable(np.full((4, 2), 0.5, np.float32))
        y = tx.matmul(x, v)
        with tx.Session() as sess:
            sess.run(tx.global_variables_initializer())
            out = sess.run(y, {x: np.ones((3, 4), np.float32)})
    path = os.path.join(directory, "ckpt.safetensors")
    st.save_file({"out": out, "step": np.array(i, np.int64), "mask": out > 0}, path)
    back = st.load_file(path)
    assert int(back["step"]) == i
    return float(out.sum())


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rounds", type=int, default=int(os.environ.get("TX_SOAK_ROUNDS", "400")))
    p.add_argument("--warmup", type=int, default=None, help="rounds before the baseline (default: a fifth)")
    args = p.parse_args(argv)
    warmup = args.warmup if args.warmup is not None else max(5, args.rounds // 5)
    rng = np.random.default_rng(0)
    samples = []  # (rss MiB, heap KiB, objects) after each round from the end of warm-up on
    with tempfile.TemporaryDirectory() as directory:
        for i in range(args.rounds):
            eager_round(rng)
            function_round(i)
            session_round(i, directory)
            gc.collect()
            if i + 1 >= warmup:
                samples.append((rss_mb(), heap_kb(), len(gc.get_objects())))
            if (i + 1) % 50 == 0:
                print("round %d: rss %.1f MiB" % (i + 1, rss_mb()), flush=True)
    (rss0, heap0, objects0), (rss1, heap1, objects1) = samples[0], samples[-1]
    rounds = len(samples) - 1
    print("rounds %d, warm-up %d: rss %.1f -> %.1f MiB (peak %.1f, limit +%.1f); python objects %d -> %d (limit +%d)"
          % (args.rounds, warmup, rss0, rss1, max(s[0] for s in samples), RSS_LIMIT_MB, objects0, objects1,
             OBJECTS_LIMIT))
    failures = []
    if rss1 - rss0 > RSS_LIMIT_MB:
        failures.append("resident memory grew by %.1f MiB after warm-up" % (rss1 - rss0))
    if objects1 - objects0 > OBJECTS_LIMIT:
        failures.append("%d more Python objects after warm-up" % (objects1 - objects0))
    if heap0 is not None and rounds > 0:
        per_round = (heap1 - heap0) / rounds
        print("malloc'd bytes: %.0f -> %.0f KiB, %+.3f KiB per round (limit %.1f)"
              % (heap0, heap1, per_round, HEAP_LIMIT_KB))
        if per_round > HEAP_LIMIT_KB:
            failures.append("malloc'd memory grew by %.2f KiB per round after warm-up" % per_round)
    for f in failures:
        print("FAIL: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
