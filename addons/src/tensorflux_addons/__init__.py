"""tensorflux-addons (``import tensorflux_addons as txa``): experimental optimizers for Tensorflux,
built only on its public Python API and, for fused kernels, its public plugin ABI.

>>> import tensorflux_addons as txa
>>> sorted(txa.optimizers.__all__)
['Lion', 'lion', 'scale_by_lion']
"""

import importlib.metadata as _metadata

import tensorflux as _tx

from tensorflux_addons import _compat

__version__ = _metadata.version(_compat.DISTRIBUTION)

_compat.check_core_version(_tx.__version__, _compat.declared_core_range())

from tensorflux_addons import optimizers  # noqa: E402 (after the core check, on purpose)

__all__ = ["optimizers"]
