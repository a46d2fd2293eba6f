"""Training utilities (``tx.train.*``): checkpoints in the safetensors format."""

from tensorflux._src.checkpoint import Checkpoint
from tensorflux._src.checkpoint_management import CheckpointManager, latest_checkpoint
from tensorflux._src.safetensors_io import load_file as load_safetensors
from tensorflux._src.safetensors_io import load_metadata as load_safetensors_metadata
from tensorflux._src.safetensors_io import save_file as save_safetensors

__all__ = ["Checkpoint", "CheckpointManager", "latest_checkpoint", "load_safetensors", "load_safetensors_metadata",
           "save_safetensors"]

from tensorflux._src.module_getattr import module_getattr as _module_getattr

__getattr__ = _module_getattr(__name__)
