"""Every op the engine registers, by its TensorFlow op name, called with keyword arguments only
(``tx.raw_ops.MatMul(a=x, b=y, transpose_a=False)``), as ``tf.raw_ops``. Built from the generated
wrappers; the argument names are the OpDef's."""

from tensorflux._src import raw_ops as _raw_ops

__all__ = sorted(_raw_ops.OPS)


def __getattr__(name):
    fn = _raw_ops.OPS.get(name)
    if fn is None:
        raise AttributeError("module 'tensorflux.raw_ops' has no attribute %r" % name)
    globals()[name] = fn
    return fn


def __dir__():
    return list(__all__)
