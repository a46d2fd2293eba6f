"""TensorFlow-1 style entry points: graph mode by default, placeholders and sessions."""

from tensorflux._src.array_ops import placeholder
from tensorflux._src.context import disable_eager_execution, enable_eager_execution, executing_eagerly
from tensorflux._src.graph import get_default_graph, reset_default_graph
from tensorflux._src.lookup_ops import tables_initializer
from tensorflux._src.random_ops import compat_get_seed as get_seed, set_seed as set_random_seed
from tensorflux._src.session import Session

__all__ = ["Session", "disable_eager_execution", "enable_eager_execution", "executing_eagerly",
           "get_default_graph", "get_seed", "placeholder", "reset_default_graph", "set_random_seed",
           "tables_initializer"]
