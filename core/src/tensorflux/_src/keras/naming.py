"""Default object names ("dense", "dense_1", ...), unique per process until `clear_session`, as in
Keras."""

import collections
import re
import threading

_lock = threading.Lock()
_counts = collections.defaultdict(int)


def to_snake_case(name):
    """``"Conv2DTranspose"`` -> ``"conv2d_transpose"``, ``"SimpleRNN"`` -> ``"simple_rnn"`` (Keras's rule).

    >>> from tensorflux._src.keras.naming import to_snake_case
    >>> to_snake_case("BatchNormalization")
    'batch_normalization'
    """
    name = re.sub(r"\W+", "", name)
    name = re.sub("(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub("([a-z])([A-Z])", r"\1_\2", name).lower()


def uniquify(base):
    """``base`` the first time, then ``base_1``, ``base_2``, ... (per process)."""
    with _lock:
        n = _counts[base]
        _counts[base] += 1
    return base if n == 0 else "%s_%d" % (base, n)


def reset():
    """Forgets the names handed out (`tx.keras.backend.clear_session`)."""
    with _lock:
        _counts.clear()
