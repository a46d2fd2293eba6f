"""tensorflux-probability (``import tensorflux_probability as txp``): probability distributions,
bijectors, probabilistic Keras layers, MCMC and variational inference on Tensorflux, built only
on its public Python API (TensorFlow Probability's names: ``tfd = txp.distributions``,
``tfb = txp.bijectors``).

>>> import tensorflux_probability as txp
>>> tfd = txp.distributions
>>> round(float(tfd.Normal(0.0, 1.0).log_prob(0.0)), 5)
-0.91894
"""

import importlib.metadata as _metadata

import tensorflux as _tx

from tensorflux_probability import _compat

__version__ = _metadata.version(_compat.DISTRIBUTION)

_compat.check_core_version(_tx.__version__, _compat.declared_core_range())

# After the core check, on purpose.
from tensorflux_probability import bijectors, distributions, layers, math, mcmc, util, vi  # noqa: E402

__all__ = ["bijectors", "distributions", "layers", "math", "mcmc", "util", "vi"]
