"""Training utilities (``tx.train.*``): checkpoints in the safetensors format, and the
tf.train.Example record messages (protobuf classes wire-compatible with TensorFlow's)."""

from tensorflux._src.checkpoint import Checkpoint
from tensorflux._src.checkpoint_management import CheckpointManager, latest_checkpoint
from tensorflux._src.safetensors_io import load_file as load_safetensors
from tensorflux._src.safetensors_io import load_metadata as load_safetensors_metadata
from tensorflux._src.safetensors_io import save_file as save_safetensors

__all__ = ["Checkpoint", "CheckpointManager", "latest_checkpoint", "load_safetensors", "load_safetensors_metadata",
           "save_safetensors"]

from tensorflux._src.module_getattr import module_getattr as _module_getattr

# The Example messages load on first use, keeping protobuf out of `import tensorflux` (as tx.GraphDef).
_EXAMPLE_MESSAGES = ["BytesList", "Example", "Feature", "FeatureList", "FeatureLists", "Features", "FloatList",
                     "Int64List", "SequenceExample"]
__all__ += _EXAMPLE_MESSAGES  # tf.train.Example and its parts (tx.io.parse_example reads them)
_missing = _module_getattr(__name__)


def __getattr__(name):
    if name in _EXAMPLE_MESSAGES:
        from tensorflux.proto import example_pb2

        value = getattr(example_pb2, name)
        globals()[name] = value
        return value
    return _missing(name)
