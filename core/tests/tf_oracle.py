"""Calling TensorFlow as a test oracle on whatever CPU the tests run on.

TensorFlow enables its oneDNN kernels only on some x86 CPUs; elsewhere its portable CPU kernels
reject cases that oneDNN runs (dilated Conv3D and conv backprops, NCHW batch-norm gradients in
inference mode). Such a case says nothing about Tensorflux, so the comparison is skipped there.
"""

from __future__ import annotations

import re

import pytest

CPU_LIMITATION = re.compile(r"CPU implementations? (of \w+ )?(do not yet|currently only) support|"
                            r"only supports? NHWC")


def call(fn, *args, **kwargs):
    """Returns fn(*args, **kwargs) (a TensorFlow computation), skipping the test where TensorFlow's
    CPU kernels on this machine do not implement the case."""
    import tensorflow as tf
    try:
        return fn(*args, **kwargs)
    except (tf.errors.InvalidArgumentError, tf.errors.UnimplementedError) as e:
        if CPU_LIMITATION.search(e.message or ""):
            pytest.skip(f"TensorFlow's CPU kernel on this machine does not run this case: {e.message[:120]}")
        raise
