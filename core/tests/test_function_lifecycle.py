"""tx.function lifecycle (docs/eager.md): discarded functions leave the eager context's library
(Note [Freeing context functions]), retracing keeps a bounded cache with TensorFlow's retracing
warning, reduce_retracing generalizes shapes, and concurrent first calls of one signature trace
once. Memory is measured in a subprocess (RSS) and through the engine's function count."""

import gc
import logging
import subprocess
import sys
import textwrap
import threading
import weakref

import numpy as np
import pytest

import tensorflux as tx
from tensorflux._src import lib

pytestmark = pytest.mark.eager

HANG_S = 300


def _num_functions():
    return lib.c.eager_num_functions()


def test_discarded_functions_leave_the_library():
    gc.collect()
    before = _num_functions()
    for k in range(50):
        f = tx.function(lambda x, k=k: x * float(k) + 1.0)
        assert float(f(tx.constant(2.0))) == 2.0 * k + 1.0
        name = f.get_concrete_function(tx.constant(2.0)).function_def.signature.name
        assert lib.c.eager_has_function(name)
        del f
    gc.collect()
    assert not lib.c.eager_has_function(name)
    assert _num_functions() - before <= 1  # the last call's op may still be being released


def test_a_function_called_by_a_live_function_stays():
    inner = tx.function(lambda x: x * 3.0)
    assert float(inner(tx.constant(2.0))) == 6.0  # eagerly: inner's function is in the context

    @tx.function
    def outer(x):
        return inner(x) + 1.0

    assert float(outer(tx.constant(2.0))) == 7.0
    name = inner.get_concrete_function(tx.constant(2.0)).function_def.signature.name
    inner._concrete.clear()  # inner's own trace is gone; outer still calls it
    gc.collect()
    assert lib.c.eager_has_function(name)
    lib.c.eager_clear_caches()  # outer's call kernel is rebuilt from the library
    assert float(outer(tx.constant(2.0))) == 7.0


def test_a_tape_keeps_the_functions_it_differentiates():
    x = tx.Variable(3.0)
    with tx.GradientTape() as tape:
        y = tx.function(lambda: x * x)()
    gc.collect()  # the tx.function object is gone; the tape still needs its engine function
    assert float(tape.gradient(y, x)) == 6.0


def test_gradient_functions_of_discarded_functions_are_freed():
    gc.collect()
    before = _num_functions()
    x = tx.constant(2.0)
    for k in range(1, 21):
        f = tx.function(lambda v, k=k: v * v * float(k))
        with tx.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        assert float(tape.gradient(y, x)) == 4.0 * k  # generates "<f>_grad_<hash>" in the context
        del f, tape, y
    gc.collect()
    assert _num_functions() - before <= 2


def test_retracing_is_bounded_and_warns(caplog):
    traces = []

    @tx.function
    def f(x):
        traces.append(x.shape)
        return x + 1.0

    gc.collect()
    before = _num_functions()
    with caplog.at_level(logging.WARNING, logger="tensorflux"):
        for n in range(1, 81):
            f(tx.zeros([n]))
    gc.collect()
    assert len(traces) == 80 and f.experimental_get_tracing_count() == 80
    assert len(f._concrete) == 64  # Note [Retracing]: the oldest traces were dropped
    assert _num_functions() - before <= 65  # and their engine functions freed
    warnings = [r.getMessage() for r in caplog.records if "triggered tf.function retracing" in r.getMessage()]
    assert len(warnings) == 2  # at most twice per Python function
    assert warnings[0].startswith("5 out of the last 5 calls to ")
    assert "reduce_retracing=True" in warnings[0]
    # An evicted signature traces again and still computes the right thing.
    np.testing.assert_array_equal(f(tx.zeros([1])).numpy(), [1.0])
    assert len(traces) == 81


def test_no_warning_for_calls_that_do_not_trace(caplog):
    f = tx.function(lambda x: x * 2.0)
    with caplog.at_level(logging.WARNING, logger="tensorflux"):
        for _ in range(20):
            f(tx.constant([1.0, 2.0]))
        for n in range(1, 4):
            f(tx.zeros([n]))
    assert not [r for r in caplog.records if "retracing" in r.getMessage()]


def test_reduce_retracing_generalizes_shapes(caplog):
    traces = []

    @tx.function(reduce_retracing=True)
    def f(x):
        traces.append(x.shape.as_list())
        return tx.reduce_sum(x)

    with caplog.at_level(logging.WARNING, logger="tensorflux"):
        for n in range(1, 30):
            assert float(f(tx.ones([n]))) == n
    assert traces == [[1], [None]]
    assert not [r for r in caplog.records if "retracing" in r.getMessage()]


def test_retracing_warning_matches_tensorflow(caplog):
    tf = pytest.importorskip("tensorflow")
    tf_log = logging.getLogger("tensorflow")

    @tf.function
    def g(x):
        return x + 1.0

    @tx.function
    def f(x):
        return x + 1.0

    with caplog.at_level(logging.WARNING):
        tf_log.addHandler(caplog.handler)
        try:
            for n in range(1, 8):
                g(tf.zeros([n]))
                f(tx.zeros([n]))
        finally:
            tf_log.removeHandler(caplog.handler)
    records = list({id(r): r for r in caplog.records}.values())  # a record may reach the handler twice
    ours = [r.getMessage() for r in records if r.name == "tensorflux" and "retracing" in r.getMessage()]
    theirs = [r.getMessage() for r in records if r.name == "tensorflow" and "retracing" in r.getMessage()]
    assert len(ours) == len(theirs) == 2
    assert [m.split(" calls to ")[0] for m in ours] == [m.split(" calls to ")[0] for m in theirs]


def test_concurrent_first_calls_trace_once():
    traces = []
    lock = threading.Lock()

    @tx.function
    def f(x):
        with lock:
            traces.append(tuple(x.shape.as_list()))
        return x * 2.0

    n_threads, n_shapes = 8, 25
    barrier = threading.Barrier(n_threads)
    errors = []

    def worker():
        try:
            barrier.wait(timeout=HANG_S)
            for n in range(1, n_shapes + 1):
                np.testing.assert_array_equal(f(tx.ones([n])).numpy(), np.full([n], 2.0, np.float32))
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=worker, daemon=True) for _ in range(n_threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(HANG_S)
        assert not t.is_alive()
    assert not errors, errors[0]
    assert sorted(traces) == [(n,) for n in range(1, n_shapes + 1)]
    assert f.experimental_get_tracing_count() == n_shapes


def test_clear_caches_drops_kernels():
    f = tx.function(lambda x: x + 1.0)
    f(tx.constant(1.0))
    assert lib.c.eager_num_cached_kernels() > 0
    lib.c.eager_clear_caches()
    assert lib.c.eager_num_cached_kernels() == 0
    assert float(f(tx.constant(1.0))) == 2.0  # rebuilt on demand


_RSS_SCRIPT = textwrap.dedent("""
    import gc
    import tensorflux as tx
    from tensorflux._src import lib

    def rss_kib():
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])

    def make_and_drop(n):
        for k in range(n):
            f = tx.function(lambda x, k=k: x * float(k) + 1.0)
            assert float(f(tx.constant(1.0))) == k + 1.0
        gc.collect()

    make_and_drop(500)  # warm-up: allocator pools, op specs, kernel caches of the ops used
    base = rss_kib()
    make_and_drop(3000)
    print(rss_kib() - base, lib.c.eager_num_functions())
""")


def test_rss_of_discarded_functions_is_bounded():
    """3,000 discarded tx.functions (about 26 KiB of engine memory each when they leaked, 75 MiB in
    all) leave RSS within 12 MiB of where it was and the library as it was."""
    proc = subprocess.run([sys.executable, "-c", _RSS_SCRIPT], capture_output=True, text=True, timeout=HANG_S)
    assert proc.returncode == 0, proc.stderr
    growth_kib, live = (int(v) for v in proc.stdout.split())
    assert live <= 1
    assert growth_kib < 12 * 1024, "RSS grew by %d KiB" % growth_kib


def test_converted_python_functions_are_collected():
    """A discarded tx.function's Python function is freed, with its AutoGraph conversion and its
    retracing monitor (Note [Conversion cache lifetime]): the conversion cache kept every converted
    function alive, about 1 KiB per tx.function made in a loop (the soak test's leak)."""
    from tensorflux._src import function as function_module

    refs = []
    for k in range(20):
        def f(x, k=k):
            if x > 0.0:  # a tensor condition: AutoGraph converts this function
                return x * float(k)
            return x

        g = tx.function(f)
        assert float(g(tx.constant(2.0))) == 2.0 * k
        assert f.__dict__["_tx_autograph_cache"][1] is not None  # it was converted
        refs.append(weakref.ref(f))
        del f, g
    gc.collect()
    assert [r() for r in refs] == [None] * 20
    assert not any(getattr(k, "__name__", "") == "f" for k in list(function_module._monitors.keys()))


def test_autograph_cache_is_per_function_not_per_wrapper():
    """functools.wraps copies a converted function's __dict__ (the cache entry) onto a wrapper;
    the wrapper is converted on its own, not given the wrapped function's conversion."""
    import functools

    def inner(x):
        if x > 0.0:
            return x + 1.0
        return x

    @functools.wraps(inner)
    def outer(x):
        if x > 0.0:
            return inner(x) * 10.0
        return x

    assert float(tx.function(inner)(tx.constant(1.0))) == 2.0
    assert float(tx.function(outer)(tx.constant(1.0))) == 20.0


def test_eager_variables_do_not_fill_the_kernel_cache():
    """Every eager Variable creates its resource with a VarHandleOp of a new shared name; those
    kernels are not cached (Note [Eager kernel cache]), so making variables in a loop leaves the
    context's cache as it was (about 4.4 KiB per variable when they were cached)."""
    def make_and_use(k):
        v = tx.Variable(np.full((4,), float(k), np.float32))
        assert float(tx.reduce_sum(v)) == 4.0 * k

    make_and_use(0)  # the kernels of the other ops, cached once
    before = lib.c.eager_num_cached_kernels()
    for k in range(50):
        make_and_use(k)
    gc.collect()
    assert lib.c.eager_num_cached_kernels() == before
