"""Soak test (nox -s soak): mixes eager ops, tx.function retraces, sessions and checkpoint saves
and restores for a while and checks that the process's resident memory stays flat.

After a warm-up (caches, allocator pools and lazily built kernels fill up), RSS is sampled after
every round; the test fails when the last sample exceeds the post-warm-up baseline by more than
GROWTH_LIMIT_MB. A leak of even a few KB per round shows up over the default 400 rounds.

    python tools/soak.py                 # the full run (minutes)
    python tools/soak.py --rounds 40     # a short smoke run
"""

import argparse
import gc
import os
import resource
import sys
import tempfile

import numpy as np

import tensorflux as tx
from tensorflux._src import safetensors_io as st

GROWTH_LIMIT_MB = 16.0


def rss_mb():
    """Current resident set size in MiB (from /proc; ru_maxrss is only the peak)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() / 2**20


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
    baseline = None
    samples = []
    with tempfile.TemporaryDirectory() as directory:
        for i in range(args.rounds):
            eager_round(rng)
            function_round(i)
            session_round(i, directory)
            gc.collect()
            if i + 1 == warmup:
                baseline = rss_mb()
            if baseline is not None:
                samples.append(rss_mb())
            if (i + 1) % 50 == 0:
                print("round %d: rss %.1f MiB" % (i + 1, rss_mb()), flush=True)
    growth = samples[-1] - baseline
    print("rounds %d, warm-up %d, baseline %.1f MiB, final %.1f MiB, peak %.1f MiB, growth %.1f MiB (limit %.1f)"
          % (args.rounds, warmup, baseline, samples[-1], max(samples), growth, GROWTH_LIMIT_MB))
    if growth > GROWTH_LIMIT_MB:
        print("FAIL: resident memory grew by %.1f MiB after warm-up" % growth)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
