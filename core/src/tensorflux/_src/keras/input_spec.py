"""`InputSpec`: what a built layer accepts (rank, fixed axes, dtype), checked on every call with
errors that name the layer and both shapes."""

from tensorflux._src.nest import flatten


class InputSpec:
    """Constraints on one input: ``ndim``/``min_ndim``/``max_ndim``, ``axes`` {axis: size}, a
    full ``shape`` (None entries free), ``dtype``; ``allow_last_axis_squeeze`` as Keras."""

    def __init__(self, dtype=None, shape=None, ndim=None, max_ndim=None, min_ndim=None, axes=None,
                 allow_last_axis_squeeze=False, name=None, optional=False):
        self.dtype = dtype
        self.shape = tuple(shape) if shape is not None else None
        self.ndim = len(self.shape) if self.shape is not None else ndim
        self.max_ndim, self.min_ndim = max_ndim, min_ndim
        self.axes = {int(k): v for k, v in (axes or {}).items()}
        self.allow_last_axis_squeeze = allow_last_axis_squeeze
        self.name, self.optional = name, optional

    def __repr__(self):
        parts = ["%s=%r" % (k, v) for k, v in (("dtype", self.dtype), ("shape", self.shape), ("ndim", self.ndim),
                                             ("max_ndim", self.max_ndim), ("min_ndim", self.min_ndim),
                                             ("axes", self.axes or None)) if v is not None]
        return "InputSpec(%s)" % ", ".join(parts)


def _shape_str(shape):
    return "(" + ", ".join("None" if d is None else str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


def assert_input_compatibility(specs, inputs, layer_name):
    """Raises ValueError naming the layer, the input index, what it expects and the shape given."""
    if specs is None:
        return
    specs = specs if isinstance(specs, (list, tuple)) else [specs]
    flat = flatten(inputs)
    if len(flat) != len(specs) and len(specs) > 1:
        raise ValueError('Layer "%s" expects %d input(s), but it received %d input tensors.'
                         % (layer_name, len(specs), len(flat)))
    for i, (spec, x) in enumerate(zip(specs, flat)):
        if spec is None or x is None:
            continue
        shape = x.shape if isinstance(x.shape, tuple) else (
            tuple(x.shape.as_list()) if x.shape.rank is not None else None)
        if shape is None:
            continue
        where = 'Input %d of layer "%s" is incompatible with the layer: ' % (i, layer_name)
        rank = len(shape)
        if spec.ndim is not None and not spec.allow_last_axis_squeeze and rank != spec.ndim:
            raise ValueError(where + "expected ndim=%d, found ndim=%d. Full shape received: %s"
                             % (spec.ndim, rank, _shape_str(shape)))
        if spec.max_ndim is not None and rank > spec.max_ndim:
            raise ValueError(where + "expected max_ndim=%d, found ndim=%d. Full shape received: %s"
                             % (spec.max_ndim, rank, _shape_str(shape)))
        if spec.min_ndim is not None and rank < spec.min_ndim:
            raise ValueError(where + "expected min_ndim=%d, found ndim=%d. Full shape received: %s"
                             % (spec.min_ndim, rank, _shape_str(shape)))
        for axis, value in spec.axes.items():
            if value is None:
                continue
            if -rank <= axis < rank and shape[axis] is not None and shape[axis] != value:
                raise ValueError(where + "expected axis %d of input shape to have value %d, but received input "
                                 "with shape %s" % (axis, value, _shape_str(shape)))
        if spec.shape is not None and rank == len(spec.shape):
            for want, got in zip(spec.shape, shape):
                if want is not None and got is not None and want != got:
                    raise ValueError(where + "expected shape=%s, found shape=%s"
                                     % (_shape_str(spec.shape), _shape_str(shape)))
