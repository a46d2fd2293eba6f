"""The add-on's worker threads: parallel map and parallel interleave run their work here (a traced
function's body runs in the engine with the GIL released, so workers overlap)."""

# Note [Nested work]: a parallel interleave's workers read sub-datasets that may hold a parallel map
# (or a prefetch whose thread feeds one). If that map queued its work on the pool while every worker
# was busy reading, waiting for that same map, the pipeline would deadlock. So work submitted from a
# thread that is itself doing the add-on's background work (a pool worker, a thread started by one,
# or a consumer thread inside `working()`) runs at once in that thread: nested stages are sequential
# inside the task that reads them, and the parallelism is the outer one. A parallel interleave reads
# its sub-datasets only that way (its consumer, when it reads one itself, inside `working()`), so no
# sub-dataset ever has work queued that a busy worker waits for. Results and their order do not
# change.

import concurrent.futures
import contextlib
import threading

from tensorflux_data import _options

_lock = threading.Lock()
_pools = {}
_local = threading.local()


def _mark_worker():
    _local.worker = True


def in_worker():
    """Whether the calling thread does the add-on's background work (Note [Nested work])."""
    return getattr(_local, "worker", False)


@contextlib.contextmanager
def working():
    """Marks the calling thread as doing the add-on's background work for the block (Note [Nested work])."""
    previous = in_worker()
    _local.worker = True
    try:
        yield
    finally:
        _local.worker = previous


def pool(size=0):
    """The shared executor with ``size`` workers (0: one per CPU), created on first use."""
    size = size or _options.default_parallelism()
    with _lock:
        p = _pools.get(size)
        if p is None:
            p = _pools[size] = concurrent.futures.ThreadPoolExecutor(size, thread_name_prefix="txd-worker",
                                                                     initializer=_mark_worker)
        return p


def submit(executor, fn, *args):
    """A Future of ``fn(*args)`` run on ``executor``'s workers, or run at once in the calling thread
    when that thread is itself a worker (Note [Nested work])."""
    if not in_worker():
        return executor.submit(fn, *args)
    f = concurrent.futures.Future()
    try:
        f.set_result(fn(*args))
    except Exception as e:  # delivered through the Future, as the executor would
        f.set_exception(e)
    return f


def start_thread(target, name):
    """A started daemon thread running ``target``; a worker's thread starts a worker (Note [Nested work])."""
    inherit = in_worker()

    def run():
        _local.worker = inherit
        target()

    t = threading.Thread(target=run, name=name, daemon=True)
    t.start()
    return t
