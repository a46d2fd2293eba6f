"""tensorflux-data (``import tensorflux_data as txd``): input pipelines for Tensorflux with
tf.data's API — deterministic by default, resumable (iterator state), debuggable (`debug_mode`) —
built only on tensorflux's public API. ``tx.data`` is this package when it is installed.

>>> import tensorflux_data as txd
>>> [int(x) for x in txd.Dataset.range(4).map(lambda x: x + 1)]
[1, 2, 3, 4]
"""

import importlib.metadata as _metadata

import tensorflux as _tx

from tensorflux_data import _compat

__version__ = _metadata.version(_compat.DISTRIBUTION)

_compat.check_core_version(_tx.__version__, _compat.declared_core_range())

# The modules that define Dataset's node classes are imported after the core check, on purpose.
from tensorflux_data import experimental, io  # noqa: E402
from tensorflux_data._batch import DatasetSpec  # noqa: E402
from tensorflux_data._dataset import Dataset  # noqa: E402
from tensorflux_data._files import TextLineDataset, TFRecordDataset, list_files  # noqa: E402
from tensorflux_data._iterator import Iterator  # noqa: E402
from tensorflux_data._options import (AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY,  # noqa: E402
                                      OptimizationOptions, Options, ThreadingOptions, debug_mode)

__all__ = ["AUTOTUNE", "Dataset", "DatasetSpec", "INFINITE_CARDINALITY", "Iterator", "OptimizationOptions", "Options",
           "ThreadingOptions",
           "TFRecordDataset", "TextLineDataset", "UNKNOWN_CARDINALITY", "debug_mode", "experimental", "io",
           "list_files"]
