"""Output specs of distribution layers in the functional API (Note [Distribution outputs] in
distribution_layer.py)."""

import tensorflux as tx


def spec_of(layer, args, kwargs):
    """The (shape, dtype) spec of ``convert_to_tensor_fn(layer.call(placeholders))``: traced on
    placeholders in a scratch graph, like the core's own output-spec tracing."""
    g = tx.Graph()
    with g.as_default():
        leaves = tx.nest.flatten([list(args), kwargs])
        replaced = [tx.compat.v1.placeholder(tx.as_dtype(x.dtype), [d for d in x.shape]) if hasattr(x, "_keras_history")
                    else x for x in leaves]
        call_args, call_kwargs = tx.nest.pack_sequence_as([list(args), kwargs], replaced)
        out = layer._convert_to_tensor_fn(layer.call(*call_args, **call_kwargs))
    return _Spec(tuple(out.shape.as_list()), out.dtype.name)


class _Spec:
    __slots__ = ("shape", "dtype")

    def __init__(self, shape, dtype):
        self.shape, self.dtype = shape, dtype
