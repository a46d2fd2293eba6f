"""Loads the C API binding and registers the Python error classes and NumPy dtypes into it."""

# NumPy loads first: importing it after the engine library (and its OpenBLAS) costs ~50 ms more.
from tensorflux._src import dtypes as _dtypes
from tensorflux._src import errors as _errors
from tensorflux import _tx_c as c  # noqa: I001 (order matters, see above)

c.register_errors(_errors._CODE_TO_CLASS)
c.register_dtypes(_dtypes.numpy_dtypes(), _dtypes.resolve_numpy_dtype)
