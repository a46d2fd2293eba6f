"""Stopping runs (docs/sessions.md, Note [Cancellation]): a RunOptions deadline, Session.close()
from another thread and Ctrl-C stop a while_loop that never ends, in sessions and in eager
tx.function calls, with the error class and message; the session stays usable after a deadline and
an interrupt. Every wait has a timeout, so a run that cannot be stopped fails the test instead of
hanging it (engine threads are daemons; Ctrl-C cases run in a subprocess)."""

import signal
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

import tensorflux as tx

HANG_S = 120  # generous: only reached when a run cannot be stopped


def _endless_loop():
    """A loop whose condition never becomes false (i counts up from 0 in int64)."""
    return tx.while_loop(lambda i: i >= 0, lambda i: i + 1, [tx.constant(0, tx.int64)])[0]


def _in_thread(fn):
    """Runs fn in a daemon thread; returns (thread, box) where box gets ('ok', value) or ('err', exc)."""
    box = []

    def target():
        try:
            box.append(("ok", fn()))
        except BaseException as e:  # noqa: BLE001 - the test inspects it
            box.append(("err", e))

    t = threading.Thread(target=target, daemon=True)
    t.start()
    return t, box


def _result(thread, box):
    thread.join(HANG_S)
    assert not thread.is_alive(), "the call did not return"
    return box[0]


def test_deadline_stops_an_endless_loop_and_the_session_stays_usable():
    g = tx.Graph()
    with g.as_default():
        endless = _endless_loop()
        finite = tx.while_loop(lambda i: i < 10, lambda i: i + 1, [tx.constant(0)])[0]
    sess = tx.Session(graph=g)
    for _ in range(2):
        kind, err = _result(*_in_thread(lambda: sess.run(endless, options=tx.RunOptions(timeout_in_ms=50))))
        assert kind == "err" and type(err) is tx.errors.DeadlineExceededError
        assert "the run exceeded its deadline of 50 ms (RunOptions.timeout_in_ms)" in str(err)
        assert sess.run(finite) == 10
    # A deadline that is not reached changes nothing; serialized RunOptions work too.
    assert sess.run(finite, options=tx.RunOptions(timeout_in_ms=100000)) == 10
    assert sess.run(finite, options=tx.RunOptions(timeout_in_ms=100000).SerializeToString()) == 10
    with pytest.raises(TypeError, match="options must be a RunOptions"):
        sess.run(finite, options={"timeout_in_ms": 5})
    sess.close()


def test_tensorflow_run_options_are_accepted():
    tf = pytest.importorskip("tensorflow")
    g = tx.Graph()
    with g.as_default():
        endless = _endless_loop()
    with tx.Session(graph=g) as sess:
        kind, err = _result(*_in_thread(lambda: sess.run(endless, options=tf.compat.v1.RunOptions(timeout_in_ms=20))))
    assert kind == "err" and isinstance(err, tx.errors.DeadlineExceededError)
    # TensorFlow raises the same class for the same situation.
    tg = tf.Graph()
    with tg.as_default():
        tend = tf.while_loop(lambda i: i >= 0, lambda i: i + 1, [tf.constant(0, tf.int64)])
        with tf.compat.v1.Session() as tsess:
            with pytest.raises(tf.errors.DeadlineExceededError):
                tsess.run(tend, options=tf.compat.v1.RunOptions(timeout_in_ms=20))


def test_close_from_another_thread_cancels_the_run():
    g = tx.Graph()
    with g.as_default():
        endless = _endless_loop()
    sess = tx.Session(graph=g)
    runs = [_in_thread(lambda: sess.run(endless)) for _ in range(2)]
    time.sleep(0.1)  # let the runs start (they are cancelled the same way if they have not)
    closer = _in_thread(sess.close)
    assert _result(*closer) == ("ok", None)
    for run in runs:
        kind, err = _result(*run)
        assert kind == "err" and type(err) is tx.errors.CancelledError
        assert "the session was closed during the run" in str(err)
    with pytest.raises(RuntimeError, match="closed Session"):
        sess.run(endless)


def test_a_deadline_inside_a_function_call_in_a_session():
    @tx.function
    def spin(x):
        return tx.while_loop(lambda i: i >= 0, lambda i: i + 1, [x])[0]

    g = tx.Graph()
    with g.as_default():
        out = spin(tx.constant(0, tx.int64))
        ok = spin(tx.constant(-1, tx.int64))
    with tx.Session(graph=g) as sess:
        kind, err = _result(*_in_thread(lambda: sess.run(out, options=tx.RunOptions(timeout_in_ms=30))))
        assert kind == "err" and type(err) is tx.errors.DeadlineExceededError
        assert sess.run(ok) == -1


_CTRL_C_PRELUDE = textwrap.dedent("""
    import os, signal, threading
    import tensorflux as tx

    def interrupt_soon():
        threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
""")


def _default_sigint():
    # A suite started in the background inherits SIGINT ignored, and Python then installs no
    # KeyboardInterrupt handler in the child: give it the disposition a terminal gives.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _run_script(body):
    proc = subprocess.run([sys.executable, "-c", _CTRL_C_PRELUDE + textwrap.dedent(body)], capture_output=True,
                          text=True, timeout=HANG_S, preexec_fn=_default_sigint)
    return proc.returncode, proc.stdout, proc.stderr


def test_ctrl_c_interrupts_a_session_run():
    rc, out, err = _run_script("""
        g = tx.Graph()
        with g.as_default():
            endless = tx.while_loop(lambda i: i >= 0, lambda i: i + 1, [tx.constant(0, tx.int64)])[0]
            finite = tx.constant(3) + 4
        sess = tx.Session(graph=g)
        interrupt_soon()
        try:
            sess.run(endless)
        except KeyboardInterrupt:
            print("interrupted")
        print("usable", sess.run(finite))
        # A handler the program installs later (signal.signal replaces ours) is wrapped again.
        import time
        signal.signal(signal.SIGINT, signal.default_int_handler)
        time.sleep(0.1)
        interrupt_soon()
        try:
            sess.run(endless)
        except KeyboardInterrupt:
            print("interrupted again")
    """)
    assert rc == 0, err
    assert out.split("\n")[:3] == ["interrupted", "usable 7", "interrupted again"]


def test_ctrl_c_interrupts_an_eager_function_call():
    rc, out, err = _run_script("""
        @tx.function
        def spin(x):
            return tx.while_loop(lambda i: i >= 0, lambda i: i + 1, [x])[0]

        interrupt_soon()
        try:
            spin(tx.constant(0, tx.int64))
        except KeyboardInterrupt:
            print("interrupted")
        print("usable", int(spin(tx.constant(-5, tx.int64))))
    """)
    assert rc == 0, err
    assert out.split("\n")[:2] == ["interrupted", "usable -5"]


def test_ctrl_c_still_raises_when_no_run_is_going_on():
    rc, out, err = _run_script("""
        import time
        interrupt_soon()
        try:
            time.sleep(60)
        except KeyboardInterrupt:
            print("interrupted")
        print(int(tx.constant(2) * 3))
    """)
    assert rc == 0, err
    assert out.split("\n")[:2] == ["interrupted", "6"]


def test_a_run_that_finishes_is_unaffected_by_the_machinery():
    g = tx.Graph()
    with g.as_default():
        x = tx.placeholder(tx.float32, [None])
        y = x * 2.0
    with tx.Session(graph=g) as sess:
        np.testing.assert_array_equal(sess.run(y, {x: np.arange(3, dtype=np.float32)},
                                               options=tx.RunOptions(timeout_in_ms=60000)), [0, 2, 4])
