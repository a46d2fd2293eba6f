"""Default object names ("dense", "dense_1", ...), unique per process until `clear_session`, as in
Keras."""

import collections
import re
import threading

_lock = threading.Lock()
_counts = collections.defaultdict(int)
_CAMEL = re.compile(r"((?<=[a-z0-9])[A-Z]|(?!^)[A-Z](?=[a-z]))")


def to_snake_case(name):
    """``"Conv2DTranspose"`` -> ``"conv2d_transpose"`` (Keras's rule)."""
    out = _CAMEL.sub(r"_\1", name).lower()
    return out if not out.startswith("_") else "private" + out


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
