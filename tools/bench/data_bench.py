"""Input pipeline benchmarks (issue 20's anchor workload), tensorflux-data next to tf.data, PyTorch's
DataLoader and a NumPy loop in one run:

- map: 100,000 float32[784] vectors, per-element map x*2+1, batch 128, prefetch, one epoch
  (tf.data with AUTOTUNE parallelism; DataLoader with 0 and 2 workers; grain, if installed, read by
  its threads and by 2 worker processes, its batches checked equal to ours; the NumPy loop does the
  same arithmetic on slices, the memory-bandwidth-bound floor). tensorflux-data runs it fused (the map
  is elementwise, so it runs once per batch) and, as a second row, with fusion off (per element).
- shuffle: the same vectors through shuffle(10,000), the same map, batch and prefetch, against
  tf.data and tensorflux-data's Python engine (the native engine off).
- tfrecord: reading 100,000 small records (checksums verified) against tf.data.TFRecordDataset.
- tfrecord+parse: 100,000 small tf.train.Example records (an int64 label, float32[8] features, a
  string tag) read, batched and parsed with parse_example, against the same tf.data pipeline; and
  the same from a GZIP-compressed file.
- text lines: 100,000 lines of a text file, batched, map(strings.length), against tf.data.
- parse_example: the parse alone, the same records in batches of 128 already in memory, parsed by
  parse_example in a tx.function against tf.io.parse_example in a tf.function (µs per record).
- interleave: the same 100,000 records split over 8 TFRecord files, read with
  interleave(num_parallel_calls=AUTOTUNE) against the sequential interleave and tf.data's AUTOTUNE.
- interleave+parse: list_files, interleave(TFRecordDataset) over 8 files, batch, parse_example; and
  the mapped-inner form interleave(lambda f: TFRecordDataset(f).map(parse_single_example)), batch
  (against the Python engine and tf.data).
- loop in a function: `for x in dataset` inside a tx.function (one While op fetching each element
  from the pipeline) over 20,000 scalars, against the same loop in a tf.function (µs per element).
- interleave with I/O waits: 8 sub-datasets of 500 elements whose every read waits 0.5 ms (a Python
  generator sleeping, as a network or cold-disk read would: the wait releases the GIL), the same
  three ways.

    python tools/bench/data_bench.py [name ...]   # only the rows whose function name contains a name
"""

from __future__ import annotations

import gzip
import hashlib
import os
import tempfile
import time

import numpy as np

from eager_bench import _tf_threads
from harness import median_seconds, report
from linalg_bench import cpu_model
from session_bench import _tf

N, DIM, BATCH = 100_000, 784, 128
REPEATS = 3
SHORT_REPEATS = 15  # for the TFRecord rows, whose epochs take tens of milliseconds


def _vectors():
    return np.random.default_rng(0).random((N, DIM), dtype=np.float32)


def _epoch(ds):
    n = 0
    for b in ds:
        n += len(b)
    assert n == N, n
    return n


def _txd_map(x, fused=True):
    import tensorflux_data as txd

    ds = txd.Dataset.from_tensor_slices(x).map(lambda v: v * 2 + 1, num_parallel_calls=txd.AUTOTUNE)
    ds = ds.batch(BATCH).prefetch(txd.AUTOTUNE)
    if not fused:
        o = txd.Options()
        o.experimental_optimization.map_and_batch_fusion = False
        ds = ds.with_options(o)
    return ds


def _torch_loader(x, workers):
    try:
        import torch
        from torch.utils.data import DataLoader, Dataset
    except ImportError:
        return None

    class Vectors(Dataset):
        def __len__(self):
            return N

        def __getitem__(self, i):
            return torch.from_numpy(x[i]) * 2 + 1

    return DataLoader(Vectors(), batch_size=BATCH, num_workers=workers, prefetch_factor=2 if workers else None)


def _affine(v):
    """The anchor's per-element map for grain (a module function: its worker processes pickle it)."""
    return v * 2 + 1


def _grain_map(x, workers):
    """The anchor in grain: MapDataset.source over the array, map, batch, then to_iter_dataset with
    ReadOptions' defaults (threads reading and a prefetch buffer) and, with ``workers``, mp_prefetch
    over that many processes; None (with the reason printed) when grain is not installed."""
    try:
        import grain
    except ImportError as e:
        print("    grain: not installed (%s)" % e)
        return None
    if workers:
        from absl import flags
        if not flags.FLAGS.is_parsed():  # grain's worker start reads an absl flag, unparsed outside absl.app
            flags.FLAGS.mark_as_parsed()
    ds = grain.MapDataset.source(x).map(_affine).batch(BATCH).to_iter_dataset(grain.ReadOptions())
    return ds.mp_prefetch(grain.MultiprocessingOptions(num_workers=workers)) if workers else ds


def _closing_epoch(ds):
    """``_epoch`` over one iterator of ``ds``, closed after (grain's worker processes end with it)."""
    it = iter(ds)
    try:
        return _epoch(it)
    finally:
        getattr(it, "close", lambda: None)()


def _digest(batches):
    """A hash of an epoch's batches, in order (their float32 bytes)."""
    h = hashlib.blake2b()
    for b in batches:
        h.update(np.ascontiguousarray(b, np.float32).tobytes())
    return h.hexdigest()


def _grain_rows(x, theirs):
    """Adds the grain rows to ``theirs``: threads, and 2 worker processes; the threads' batches are
    checked equal to tensorflux-data's first."""
    for workers, name in ((0, "grain threads (ReadOptions defaults)"), (2, "grain mp_prefetch 2 workers")):
        ds = _grain_map(x, workers)
        theirs[name] = None
        if ds is None:
            continue
        if not workers:
            want = _digest(b.numpy() for b in _txd_map(x))
            got = _digest(iter(ds))
            assert got == want, "grain's batches differ from tensorflux-data's"
        theirs[name] = median_seconds(lambda ds=ds: _closing_epoch(ds), repeats=1, warmup=0)


def bench_map_batch_prefetch():
    """The anchor: elements per second of one epoch (reported as seconds per epoch)."""
    x = _vectors()
    ours = median_seconds(lambda: _epoch(_txd_map(x)), repeats=REPEATS, warmup=1)
    theirs = {"tensorflux-data per element (fusion off)": median_seconds(lambda: _epoch(_txd_map(x, False)),
                                                                        repeats=1, warmup=0)}
    tf = _tf()
    if tf is not None:
        _tf_threads(tf)
        ds = tf.data.Dataset.from_tensor_slices(x).map(lambda v: v * 2 + 1, num_parallel_calls=tf.data.AUTOTUNE)
        ds = ds.batch(BATCH).prefetch(tf.data.AUTOTUNE)
        theirs["tf.data AUTOTUNE"] = median_seconds(lambda: _epoch(ds), repeats=REPEATS, warmup=1)
    else:
        theirs["tf.data AUTOTUNE"] = None
    for workers in (0, 2):
        loader = _torch_loader(x, workers)
        theirs["torch DataLoader %d workers" % workers] = None if loader is None else median_seconds(
            lambda loader=loader: _epoch(loader), repeats=1, warmup=0)
    _grain_rows(x, theirs)
    theirs["numpy loop (same arithmetic on slices)"] = median_seconds(
        lambda: [x[i:i + BATCH] * 2 + 1 for i in range(0, N, BATCH)], repeats=REPEATS)
    row = report(f"data: map x*2+1, batch {BATCH}, prefetch ({N:,} float32[{DIM}], one epoch)", "s", 1.0, ours, theirs)
    print(f"    tensorflux-data: {N / ours:,.0f} elements/s")
    return row


SHUFFLE_BUFFER = 10_000


def _shuffle_map(D, x, autotune, options=None):
    ds = D.from_tensor_slices(x).shuffle(SHUFFLE_BUFFER, seed=1).map(lambda v: v * 2 + 1, num_parallel_calls=autotune)
    ds = ds.batch(BATCH).prefetch(autotune)
    return ds if options is None else ds.with_options(options)


def bench_shuffle_map_batch():
    """The common training pipeline: shuffle, map, batch, prefetch (seconds per epoch)."""
    import tensorflux_data as txd

    x = _vectors()
    ours = median_seconds(lambda: _epoch(_shuffle_map(txd.Dataset, x, txd.AUTOTUNE)), repeats=REPEATS, warmup=1)
    python_only = txd.Options()
    python_only.experimental_optimization.native_engine = False
    theirs = {"tensorflux-data Python engine": median_seconds(
        lambda: _epoch(_shuffle_map(txd.Dataset, x, txd.AUTOTUNE, python_only)), repeats=1, warmup=0)}
    tf = _tf()
    theirs["tf.data AUTOTUNE"] = None
    if tf is not None:
        _tf_threads(tf)
        ds = _shuffle_map(tf.data.Dataset, x, tf.data.AUTOTUNE)
        theirs["tf.data AUTOTUNE"] = median_seconds(lambda: _epoch(ds), repeats=REPEATS, warmup=1)
    row = report(f"data: shuffle {SHUFFLE_BUFFER:,}, map x*2+1, batch {BATCH}, prefetch ({N:,} float32[{DIM}], "
                 "one epoch)", "s", 1.0, ours, theirs)
    print(f"    tensorflux-data: {N / ours:,.0f} elements/s")
    return row


def bench_tfrecord_read():
    import tensorflux_data as txd

    path = os.path.join(tempfile.mkdtemp(), "bench.tfrecord")
    with txd.io.TFRecordWriter(path) as w:
        for i in range(N):
            w.write(b"record %08d " % i + b"x" * 40)

    def read_ours():
        return sum(1 for _ in txd.TFRecordDataset(path).batch(BATCH))

    ours = median_seconds(read_ours, repeats=SHORT_REPEATS, warmup=1)
    theirs = {"tf.data": None}
    tf = _tf()
    if tf is not None:
        ds = tf.data.TFRecordDataset(path).batch(BATCH)
        theirs["tf.data"] = median_seconds(lambda: sum(1 for _ in ds), repeats=SHORT_REPEATS, warmup=1)
    return report(f"data: TFRecord read, batch {BATCH} ({N:,} records of 53 bytes)", "s", 1.0, ours, theirs)


def _example_records(*paths):
    """Writes N small tf.train.Example records (tx.train.Example, TensorFlow's wire format), record i
    to paths[i % len(paths)]."""
    import tensorflux as tx
    import tensorflux_data as txd

    rng = np.random.default_rng(1)
    writers = [txd.io.TFRecordWriter(path) for path in paths]
    for i in range(N):
        writers[i % len(paths)].write(tx.train.Example(features=tx.train.Features(feature={
            "label": tx.train.Feature(int64_list=tx.train.Int64List(value=[i % 10])),
            "x": tx.train.Feature(float_list=tx.train.FloatList(value=rng.random(8).tolist())),
            "tag": tx.train.Feature(bytes_list=tx.train.BytesList(value=[b"tag%d" % (i % 7)]))}))
            .SerializeToString())
    for w in writers:
        w.close()


def _example_spec(m):
    """The features of _example_records for module ``m`` (tx or tf)."""
    return {"label": m.io.FixedLenFeature([], m.int64), "x": m.io.FixedLenFeature([8], m.float32),
            "tag": m.io.FixedLenFeature([], m.string)}


def _tfrecord_parse_row(compression):
    import tensorflux as tx
    import tensorflux_data as txd

    path = os.path.join(tempfile.mkdtemp(), "examples.tfrecord")
    _example_records(path)
    if compression:
        with open(path, "rb") as f:
            raw = f.read()
        with open(path, "wb") as f:
            f.write(gzip.compress(raw, mtime=0))

    ds = txd.TFRecordDataset(path, compression).batch(BATCH).map(
        lambda r: tx.io.parse_example(r, _example_spec(tx))).prefetch(txd.AUTOTUNE)
    ours = median_seconds(lambda: sum(len(b["label"]) for b in ds), repeats=SHORT_REPEATS, warmup=1)
    theirs = {"tf.data": None}
    tf = _tf()
    if tf is not None:
        tds = tf.data.TFRecordDataset(path, compression).batch(BATCH).map(
            lambda r: tf.io.parse_example(r, _example_spec(tf)))
        tds = tds.prefetch(tf.data.AUTOTUNE)
        theirs["tf.data"] = median_seconds(lambda: sum(len(b["label"]) for b in tds), repeats=SHORT_REPEATS, warmup=1)
    what = "GZIP TFRecord" if compression else "TFRecord"
    row = report(f"data: {what} read + parse_example, batch {BATCH} ({N:,} Examples)", "s", 1.0, ours, theirs)
    print(f"    tensorflux-data: {N / ours:,.0f} records/s")
    return row


def bench_tfrecord_parse():
    return _tfrecord_parse_row("")


def bench_tfrecord_gzip_parse():
    return _tfrecord_parse_row("GZIP")


def bench_text_lines():
    import tensorflux as tx
    import tensorflux_data as txd

    path = os.path.join(tempfile.mkdtemp(), "lines.txt")
    with open(path, "wb") as f:
        f.writelines(b"line %d of the text, with some words %d\n" % (i, i * 7) for i in range(N))
    ds = txd.TextLineDataset(path).batch(BATCH).map(tx.strings.length).prefetch(txd.AUTOTUNE)
    ours = median_seconds(lambda: sum(len(b) for b in ds), repeats=SHORT_REPEATS, warmup=1)
    theirs = {"tf.data": None}
    tf = _tf()
    if tf is not None:
        tds = tf.data.TextLineDataset(path).batch(BATCH).map(tf.strings.length).prefetch(tf.data.AUTOTUNE)
        theirs["tf.data"] = median_seconds(lambda: sum(len(b) for b in tds), repeats=SHORT_REPEATS, warmup=1)
    return report(f"data: TextLineDataset, batch {BATCH}, map(strings.length) ({N:,} lines)", "s", 1.0, ours, theirs)


def bench_parse_example():
    import tensorflux as tx

    rng = np.random.default_rng(1)
    records = [tx.train.Example(features=tx.train.Features(feature={
        "label": tx.train.Feature(int64_list=tx.train.Int64List(value=[i % 10])),
        "x": tx.train.Feature(float_list=tx.train.FloatList(value=rng.random(8).tolist())),
        "tag": tx.train.Feature(bytes_list=tx.train.BytesList(value=[b"tag%d" % (i % 7)]))})).SerializeToString()
        for i in range(N)]
    batches = [np.array(records[i:i + BATCH], dtype=object) for i in range(0, N, BATCH)]

    def epoch(parse, inputs):
        for b in inputs:
            parse(b)

    inputs = [tx.constant(b) for b in batches]
    parse = tx.function(lambda r: tx.io.parse_example(r, _example_spec(tx)))
    ours = median_seconds(lambda: epoch(parse, inputs), repeats=REPEATS, warmup=1) / N
    theirs = {"tf.function(tf.io.parse_example)": None}
    tf = _tf()
    if tf is not None:
        tf_inputs = [tf.constant(b) for b in batches]
        tf_parse = tf.function(lambda r: tf.io.parse_example(r, _example_spec(tf)))
        theirs["tf.function(tf.io.parse_example)"] = median_seconds(
            lambda: epoch(tf_parse, tf_inputs), repeats=REPEATS, warmup=1) / N
    return report(f"data: parse_example in a function, batches of {BATCH} in memory ({N:,} Examples of "
                  f"{int(np.mean([len(r) for r in records]))} bytes), per Example", "µs", 1e6, ours, theirs)


def bench_interleave_files():
    import tensorflux_data as txd

    files = 8
    folder = tempfile.mkdtemp()
    paths = [os.path.join(folder, "part%d.tfrecord" % k) for k in range(files)]
    for k, path in enumerate(paths):
        with txd.io.TFRecordWriter(path) as w:
            for i in range(k, N, files):
                w.write(b"record %08d " % i + b"x" * 40)

    def epoch(D, reader, parallel):
        ds = D.from_tensor_slices(paths).interleave(reader, cycle_length=files, num_parallel_calls=parallel)
        return sum(len(b) for b in ds.batch(BATCH))

    ours = median_seconds(lambda: epoch(txd.Dataset, txd.TFRecordDataset, txd.AUTOTUNE), repeats=REPEATS, warmup=1)
    theirs = {"tensorflux-data sequential interleave": median_seconds(
        lambda: epoch(txd.Dataset, txd.TFRecordDataset, None), repeats=REPEATS, warmup=1), "tf.data AUTOTUNE": None}
    tf = _tf()
    if tf is not None:
        theirs["tf.data AUTOTUNE"] = median_seconds(
            lambda: epoch(tf.data.Dataset, tf.data.TFRecordDataset, tf.data.AUTOTUNE), repeats=REPEATS, warmup=1)
    return report(f"data: interleave over {files} TFRecord files, num_parallel_calls=AUTOTUNE, batch {BATCH} "
                  f"({N:,} records)", "s", 1.0, ours, theirs)


INTERLEAVE_FILES = 8


def _records_epoch(ds):
    n = sum(len(b["label"]) for b in ds)
    assert n == N, n
    return n


def _interleave_parse_row(inner, title):
    """The row of list_files -> interleave(inner(TFRecordDataset(f), m)) over INTERLEAVE_FILES files of
    Examples, AUTOTUNE, -> batch (``inner`` parses inside or returns raw records, and the batches are then
    parsed): the native engine against the Python engine and tf.data."""
    import tensorflux as tx
    import tensorflux_data as txd

    folder = tempfile.mkdtemp()
    _example_records(*(os.path.join(folder, "part%d.tfrecord" % k) for k in range(INTERLEAVE_FILES)))
    pattern = os.path.join(folder, "part*.tfrecord")

    def pipeline(D, m, records, options=None):
        ds = D.list_files(pattern, shuffle=False).interleave(lambda f: inner(records(f), m),
                                                             cycle_length=INTERLEAVE_FILES,
                                                             num_parallel_calls=m.data.AUTOTUNE).batch(BATCH)
        if isinstance(ds.element_spec, dict):  # parsed inside
            return ds if options is None else ds.with_options(options)
        ds = ds.map(lambda r: m.io.parse_example(r, _example_spec(m)))
        return ds if options is None else ds.with_options(options)

    python_only = txd.Options()
    python_only.experimental_optimization.native_engine = False
    ours = median_seconds(lambda: _records_epoch(pipeline(txd.Dataset, tx, txd.TFRecordDataset)), repeats=REPEATS,
                          warmup=1)
    theirs = {"tensorflux-data Python engine": median_seconds(
        lambda: _records_epoch(pipeline(txd.Dataset, tx, txd.TFRecordDataset, python_only)), repeats=1, warmup=0),
        "tf.data": None}
    tf = _tf()
    if tf is not None:
        theirs["tf.data"] = median_seconds(
            lambda: _records_epoch(pipeline(tf.data.Dataset, tf, tf.data.TFRecordDataset)), repeats=REPEATS,
            warmup=1)
    return report(f"data: list_files, {title} ({INTERLEAVE_FILES} files, num_parallel_calls=AUTOTUNE, batch {BATCH}, "
                  f"{N:,} Examples)", "s", 1.0, ours, theirs)


def bench_interleave_parse():
    return _interleave_parse_row(lambda records, m: records,
                                 "interleave(TFRecordDataset), batch, parse_example")


def bench_interleave_map_parse():
    return _interleave_parse_row(
        lambda records, m: records.map(lambda r: m.io.parse_single_example(r, _example_spec(m))),
        "interleave(TFRecordDataset(f).map(parse_single_example)), batch")


SUBS, PER_SUB, WAIT_S = 8, 500, 0.0005


def _waiting_reads(k):
    """Sub-dataset ``k``'s elements, each after a WAIT_S wait (simulated I/O)."""
    for i in range(PER_SUB):
        time.sleep(WAIT_S)
        yield int(k) * PER_SUB + i


def bench_interleave_io_waits():
    import tensorflux as tx
    import tensorflux_data as txd

    def epoch(D, m, parallel):
        ds = D.range(SUBS).interleave(
            lambda k: D.from_generator(_waiting_reads, output_signature=m.TensorSpec([], m.int64), args=(k,)),
            cycle_length=SUBS, num_parallel_calls=parallel)
        n = sum(len(b) for b in ds.batch(BATCH))
        assert n == SUBS * PER_SUB, n
        return n

    ours = median_seconds(lambda: epoch(txd.Dataset, tx, txd.AUTOTUNE), repeats=REPEATS, warmup=1)
    theirs = {"tensorflux-data sequential interleave": median_seconds(
        lambda: epoch(txd.Dataset, tx, None), repeats=REPEATS, warmup=1), "tf.data AUTOTUNE": None}
    tf = _tf()
    if tf is not None:
        theirs["tf.data AUTOTUNE"] = median_seconds(lambda: epoch(tf.data.Dataset, tf, tf.data.AUTOTUNE),
                                                    repeats=REPEATS, warmup=1)
    return report(f"data: interleave over {SUBS} sub-datasets whose reads wait {WAIT_S * 1e3:g} ms each, "
                  f"num_parallel_calls=AUTOTUNE, batch {BATCH} ({SUBS * PER_SUB:,} elements)", "s", 1.0, ours, theirs)


LOOP_N = 20_000


def _summing_loop(m, ds):
    """A function of framework ``m`` (tensorflux or tensorflow) summing the int64 elements of ``ds``
    with a Python for loop, which its AutoGraph turns into a loop over the dataset."""

    @m.function
    def total():
        s = m.constant(0, m.int64)
        for x in ds:
            s += x
        return s

    return total


def bench_loop_in_function():
    import tensorflux as tx
    import tensorflux_data as txd

    ours = median_seconds(_summing_loop(tx, txd.Dataset.range(LOOP_N)), repeats=REPEATS, warmup=1) / LOOP_N
    theirs = {"tf.function over tf.data": None}
    tf = _tf()
    if tf is not None:
        tf_total = _summing_loop(tf, tf.data.Dataset.range(LOOP_N))
        theirs["tf.function over tf.data"] = median_seconds(tf_total, repeats=REPEATS, warmup=1) / LOOP_N
    return report(f"data: for x in dataset inside a function ({LOOP_N:,} scalars), per element", "µs", 1e6, ours,
                  theirs)


ALL = [bench_map_batch_prefetch, bench_shuffle_map_batch, bench_tfrecord_read, bench_tfrecord_parse,
       bench_tfrecord_gzip_parse, bench_text_lines,
       bench_parse_example, bench_interleave_files, bench_interleave_parse, bench_interleave_map_parse,
       bench_interleave_io_waits, bench_loop_in_function]


if __name__ == "__main__":
    import sys

    print("CPU:", cpu_model())
    for b in ALL:
        if len(sys.argv) < 2 or any(name in b.__name__ for name in sys.argv[1:]):
            b()
