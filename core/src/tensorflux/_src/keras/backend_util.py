"""Backend-level helpers of tx.keras: clear_session, floatx, set_random_seed, to_categorical,
normalize, and the PyDataset/Sequence base class for indexable batch sources."""

import random

import numpy as np

from tensorflux._src.keras import naming
from tensorflux._src.keras.dtype_policy import global_policy
from tensorflux._src.random_ops import set_seed


def clear_session():
    """Resets the default layer names ("dense", "dense_1", ... start over), as Keras."""
    naming.reset()


def floatx():
    """The default float dtype name ("float32")."""
    return global_policy().variable_dtype


def epsilon():
    """Keras's fuzz factor, 1e-7."""
    return 1e-7


def image_data_format():
    """The image layout layers default to: "channels_last"."""
    return "channels_last"


def set_random_seed(seed):
    """Seeds Python's, NumPy's and Tensorflux's random generators (tx.random.set_seed)."""
    random.seed(seed)
    np.random.seed(seed)
    set_seed(seed)


def to_categorical(x, num_classes=None):
    """One-hot rows for integer class vectors (a trailing axis of size 1 is dropped).

    >>> tx.keras.utils.to_categorical([0, 2], num_classes=3)
    array([[1., 0., 0.],
           [0., 0., 1.]], dtype=float32)
    """
    x = np.asarray(x, dtype="int64")
    if x.ndim > 1 and x.shape[-1] == 1:
        x = x.reshape(x.shape[:-1])
    if num_classes is None:
        num_classes = int(x.max()) + 1
    if x.size and (x.min() < 0 or x.max() >= num_classes):
        raise ValueError("to_categorical: class ids must be in [0, %d), got range [%d, %d]"
                         % (num_classes, x.min(), x.max()))
    return np.eye(num_classes, dtype=np.float32)[x]


def pad_sequences(sequences, maxlen=None, dtype="int32", padding="pre", truncating="pre", value=0.0):
    """A [len(sequences), maxlen] array of the sequences, padded with ``value`` and truncated at the
    start ("pre") or end ("post"), as Keras.

    >>> tx.keras.utils.pad_sequences([[1, 2], [3, 4, 5]], maxlen=3)
    array([[0, 1, 2],
           [3, 4, 5]], dtype=int32)
    """
    if padding not in ("pre", "post") or truncating not in ("pre", "post"):
        raise ValueError("padding and truncating must be 'pre' or 'post', got %r and %r" % (padding, truncating))
    seqs = [list(s) for s in sequences]
    if maxlen is None:
        maxlen = max((len(s) for s in seqs), default=0)
    out = np.full((len(seqs), maxlen), value, dtype=dtype)
    for i, s in enumerate(seqs):
        if not s:
            continue
        s = s[-maxlen:] if truncating == "pre" else s[:maxlen]
        if padding == "post":
            out[i, :len(s)] = s
        else:
            out[i, maxlen - len(s):] = s
    return out


def normalize(x, axis=-1, order=2):
    """``x`` divided by its ``order``-norm along ``axis`` (NumPy arrays)."""
    x = np.asarray(x, dtype=np.float32)
    norm = np.linalg.norm(x, ord=order, axis=axis, keepdims=True)
    norm[norm == 0] = 1
    return x / norm


class PyDataset:
    """Base class of indexable batch sources: define ``__len__`` (batches per epoch) and
    ``__getitem__(index) -> (x, y[, sample_weight])``; `on_epoch_end` runs after each epoch."""

    def __init__(self, workers=1, use_multiprocessing=False, max_queue_size=10):
        self.workers, self.use_multiprocessing, self.max_queue_size = workers, use_multiprocessing, max_queue_size

    def __len__(self):
        raise NotImplementedError

    def __getitem__(self, index):
        raise NotImplementedError

    @property
    def num_batches(self):
        return len(self)

    def on_epoch_end(self):
        pass


Sequence = PyDataset
