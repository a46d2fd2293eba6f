"""Keras 3 operations recorded as nodes of a functional graph (``keras.ops`` calls and operators
on KerasTensors: ``x / 255.0``, ``x[:, 1:3]``, the ``NotEqual`` behind an Embedding's mask, ...).
Keras writes them into model configs as layers of their own ("NotEqual", "TrueDivide",
"GetItem", ...); here each is a weightless layer computing the same engine ops, so such configs
load, and arithmetic on tx.keras KerasTensors saves without Python bytecode."""

from tensorflux._src import array_ops, math_ops, nn_ext_ops, nn_ops, reduce_ops
from tensorflux._src import dtypes as _dtypes
from tensorflux._src.constant_op import convert_to_tensor
from tensorflux._src.generated import gen_ops
from tensorflux._src.keras import naming, serialization
from tensorflux._src.keras.layer import Layer


class KerasOp(Layer):
    """A keras.ops operation as a layer: ``call(*args)`` applies it with the op's ``params``."""

    _PARAMS = {}        # config parameter -> default
    _keras_module = "keras.src.ops.numpy"

    def __init__(self, name=None, **params):
        unknown = set(params) - set(self._PARAMS)
        if unknown:
            raise TypeError("Keras op %s got unexpected arguments %s" % (type(self).__name__, sorted(unknown)))
        super().__init__(name=name or naming.uniquify(naming.to_snake_case(type(self).__name__)))
        self.params = dict(self._PARAMS, **params)
        self.autocast = False

    def call(self, *args):
        return self.compute(*args, **self.params)

    def get_config(self):
        return dict({"name": self.name}, **self.params)

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        config.pop("trainable", None)
        config.pop("dtype", None)
        return cls(**config)


def _pair(a, b):
    """Both operands as tensors of a common dtype (a Python number takes the tensor's dtype)."""
    if not hasattr(a, "dtype") or isinstance(a, (int, float, bool)):
        b = convert_to_tensor(b)
        return convert_to_tensor(a, dtype=b.dtype), b
    a = convert_to_tensor(a)
    if not hasattr(b, "dtype") or isinstance(b, (int, float, bool)):
        return a, convert_to_tensor(b, dtype=a.dtype)
    b = convert_to_tensor(b)
    if a.dtype != b.dtype:
        b = math_ops.cast(b, a.dtype)
    return a, b


def _op(name, compute, params=None, module="keras.src.ops.numpy"):
    cls = type(name, (KerasOp,), {"compute": staticmethod(compute), "_PARAMS": dict(params or {}),
                                  "_keras_module": module, "__module__": __name__,
                                  "__doc__": "keras.ops %s as a functional-graph layer." % name})
    serialization.register("ops")(cls)
    return cls


def _binary(fn):
    return lambda a, b: fn(*_pair(a, b))


def _reduce(fn):
    def compute(x, axis=None, keepdims=False, initial=None):
        if initial is not None:
            raise NotImplementedError("keras op reductions with `initial` are not supported by tx.keras")
        return fn(x, axis=list(axis) if isinstance(axis, (list, tuple)) else axis, keepdims=keepdims)
    return compute


_REDUCE = {"axis": None, "keepdims": False}
OPS = {cls.__name__: cls for cls in [
    _op("Add", _binary(gen_ops.add_v2)), _op("Subtract", _binary(gen_ops.sub)), _op("Multiply", _binary(gen_ops.mul)),
    _op("Divide", _binary(gen_ops.real_div)), _op("TrueDivide", _binary(gen_ops.real_div)),
    _op("Power", _binary(gen_ops.pow)), _op("Maximum", _binary(gen_ops.maximum)),
    _op("Minimum", _binary(gen_ops.minimum)), _op("Equal", _binary(gen_ops.equal)),
    _op("NotEqual", _binary(gen_ops.not_equal)), _op("Greater", _binary(gen_ops.greater)),
    _op("GreaterEqual", _binary(gen_ops.greater_equal)), _op("Less", _binary(gen_ops.less)),
    _op("LessEqual", _binary(gen_ops.less_equal)), _op("LogicalAnd", _binary(gen_ops.logical_and)),
    _op("LogicalOr", _binary(gen_ops.logical_or)), _op("Matmul", _binary(math_ops.matmul)),
    _op("LogicalNot", gen_ops.logical_not), _op("Negative", gen_ops.neg), _op("Abs", gen_ops.abs),
    _op("Square", gen_ops.square), _op("Sqrt", gen_ops.sqrt), _op("Exp", gen_ops.exp), _op("Log", gen_ops.log),
    _op("Tanh", gen_ops.tanh),
    _op("Mean", _reduce(math_ops.reduce_mean), _REDUCE), _op("Sum", _reduce(math_ops.reduce_sum), _REDUCE),
    _op("Max", _reduce(reduce_ops.reduce_max), dict(_REDUCE, initial=None)),
    _op("Min", _reduce(reduce_ops.reduce_min), dict(_REDUCE, initial=None)),
    _op("Any", _reduce(reduce_ops.reduce_any), _REDUCE), _op("All", _reduce(reduce_ops.reduce_all), _REDUCE),
    _op("ExpandDims", lambda x, axis: gen_ops.expand_dims(x, axis), {"axis": None}),
    _op("Squeeze", lambda x, axis=None: gen_ops.squeeze(x, [] if axis is None else
                                                        list(axis) if isinstance(axis, (list, tuple)) else [axis]),
        {"axis": None}),
    _op("Reshape", lambda x, newshape: gen_ops.reshape(x, list(newshape)), {"newshape": None}),
    _op("Transpose", lambda x, axes=None: array_ops.transpose(x, list(axes) if axes is not None else None),
        {"axes": None}),
    _op("Concatenate", lambda xs, axis=0: array_ops.concat(list(xs), axis=axis), {"axis": 0}),
    _op("GetItem", lambda x, key: x[key]),
    _op("Cast", lambda x, dtype: math_ops.cast(x, _dtypes.as_dtype(dtype)), {"dtype": None}, "keras.src.ops.core"),
    _op("Relu", nn_ops.relu, module="keras.src.ops.nn"), _op("Sigmoid", gen_ops.sigmoid, module="keras.src.ops.nn"),
    _op("Softmax", lambda x, axis=-1: nn_ext_ops.softmax(x, axis=axis), {"axis": -1}, "keras.src.ops.nn"),
]}
