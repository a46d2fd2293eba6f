"""`tx.profiler`: records what the engine runs (Note [Profiler] in csrc/tensorflux/runtime/profiler.cc)
and writes it as a Chrome trace-event file, as ``tf.profiler.experimental`` does for TensorFlow.

While a profile records, every session run and every eager op of the process is traced: each
kernel (the nodes of tx.function bodies and control-flow branches included) becomes one event
with its node name, op, thread, start, duration and output shapes. The file
``<logdir>/plugins/profile/<run>/<host>.trace.json.gz`` opens in Perfetto (ui.perfetto.dev) and
chrome://tracing.
"""

import os
import threading

from tensorflux._src import lib

_c = lib.c
_lock = threading.Lock()
_state = {"logdir": None, "last_path": None}


class ProfilerOptions:
    """Options of a profile (TensorFlow's ``tf.profiler.experimental.ProfilerOptions``); the engine
    traces every kernel, so the levels are accepted and ignored.

    >>> opts = tx.profiler.experimental.ProfilerOptions(host_tracer_level=2)
    >>> opts.host_tracer_level
    2
    """

    def __init__(self, host_tracer_level=2, python_tracer_level=0, device_tracer_level=1, delay_ms=None):
        self.host_tracer_level = host_tracer_level
        self.python_tracer_level = python_tracer_level
        self.device_tracer_level = device_tracer_level
        self.delay_ms = delay_ms


def start(logdir, options=None):
    """Starts recording a profile that ``stop()`` writes under ``logdir``; raises
    ``tx.errors.AlreadyExistsError`` when a profile is already recording (as TensorFlow does).

    >>> import tempfile
    >>> d = tempfile.mkdtemp()
    >>> tx.profiler.experimental.start(d)
    >>> _ = tx.constant([1.0, 2.0]) * 2.0
    >>> tx.profiler.experimental.stop()
    >>> bool(tx.profiler.experimental.last_trace_path().endswith(".trace.json.gz"))
    True
    """
    from tensorflux._src import errors

    del options  # every kernel is traced (ProfilerOptions)
    with _lock:
        if _state["logdir"] is not None:
            raise errors.AlreadyExistsError(None, None, "Another profiler is running.")
        try:
            _c.profiler_start()
        except errors.FailedPreconditionError as e:
            raise errors.AlreadyExistsError(None, None, "Another profiler is running. (%s)" % e.message) from None
        _state["logdir"] = os.fspath(logdir)


def stop(save=True):
    """Stops the profile ``start()`` began and, with ``save``, writes its trace file (see
    ``last_trace_path``); raises ``tx.errors.UnavailableError`` when no profile is recording."""
    from tensorflux._src import errors

    with _lock:
        logdir = _state["logdir"]
        if logdir is None:
            raise errors.UnavailableError(None, None, "Cannot export profiling results. No profiler is running.")
        _state["logdir"] = None
        trace = _c.profiler_stop()
        if save:
            _state["last_path"] = _write(logdir, trace)


def last_trace_path():
    """The path of the trace file the last ``stop()`` (or ``Profile`` block) wrote, or None."""
    return _state["last_path"]


def _write(logdir, trace):
    import datetime
    import gzip
    import socket

    run = datetime.datetime.now().strftime("%Y_%m_%d_%H_%M_%S")
    folder = os.path.join(logdir, "plugins", "profile", run)
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, socket.gethostname() + ".trace.json.gz")
    tmp = path + ".tmp"
    with gzip.open(tmp, "wb") as f:
        f.write(trace)
    os.replace(tmp, path)
    return path


class Profile:
    """Records a profile for the span of a ``with`` block and writes it under ``logdir``
    (``start`` on entry, ``stop`` on exit).

    >>> import tempfile
    >>> with tx.profiler.experimental.Profile(tempfile.mkdtemp()):
    ...     _ = tx.reduce_sum(tx.ones([4, 4]))
    ...
    >>> import gzip, json
    >>> events = json.load(gzip.open(tx.profiler.experimental.last_trace_path()))["traceEvents"]
    >>> sorted({e["name"] for e in events if e["ph"] == "X"} & {"Fill", "Sum"})
    ['Fill', 'Sum']
    """

    def __init__(self, logdir, options=None):
        self._logdir = logdir
        self._options = options

    def __enter__(self):
        start(self._logdir, self._options)
        return self

    def __exit__(self, exc_type, exc, tb):
        stop()
        return False
