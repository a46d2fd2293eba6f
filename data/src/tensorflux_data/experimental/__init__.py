"""tf.data.experimental's names that tensorflux-data has (the cardinality constants, AUTOTUNE,
`enable_debug_mode`, `CsvDataset`, `make_csv_dataset`), `stats` (per-node counters of a running pipeline) and
memory-mapped sources, `from_npy` and `from_safetensors`.

>>> import tensorflux_data as txd
>>> txd.experimental.INFINITE_CARDINALITY, txd.experimental.UNKNOWN_CARDINALITY
(-1, -2)
"""

from tensorflux_data._options import AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, debug_mode
from tensorflux_data._arrays import from_npy, from_safetensors
from tensorflux_data._csv import CsvDataset
from tensorflux_data._make_csv import make_csv_dataset
from tensorflux_data._stats import stats


def enable_debug_mode():
    """Debug mode from now on in this thread (tf.data.experimental.enable_debug_mode's name)."""
    debug_mode(True)


__all__ = ["AUTOTUNE", "CsvDataset", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "enable_debug_mode", "from_npy",
           "from_safetensors", "make_csv_dataset", "stats"]
