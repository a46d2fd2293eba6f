"""Profiling (``tx.profiler``): ``tx.profiler.experimental.start/stop/Profile`` record what the
engine runs and write it as a Chrome trace-event file (TensorFlow's ``tf.profiler``)."""

from tensorflux.profiler import experimental

__all__ = ["experimental"]
