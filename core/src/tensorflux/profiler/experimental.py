"""``tx.profiler.experimental``: start/stop/Profile (TensorFlow's ``tf.profiler.experimental``)."""

from tensorflux._src.profiler import Profile, ProfilerOptions, last_trace_path, start, stop

__all__ = ["Profile", "ProfilerOptions", "last_trace_path", "start", "stop"]
