"""``tx.keras.mixed_precision``: dtype policies (float32, float64, mixed_float16, mixed_bfloat16)."""

from tensorflux._src.keras.dtype_policy import DTypePolicy, Policy, global_policy, set_global_policy
from tensorflux._src.module_getattr import module_getattr as _module_getattr

dtype_policy, set_dtype_policy = global_policy, set_global_policy

__all__ = ["DTypePolicy", "Policy", "dtype_policy", "global_policy", "set_dtype_policy", "set_global_policy"]

__getattr__ = _module_getattr(__name__)
