"""Image preprocessing layers: Resizing (every interpolation of Keras's TensorFlow backend, with
``crop_to_aspect_ratio`` / ``pad_to_aspect_ratio``), over ``tx.image.resize``."""

from tensorflux._src import array_ops, math_ops
from tensorflux._src import context as _context
from tensorflux._src.constant_op import constant
from tensorflux._src.generated import gen_ops
from tensorflux._src.image_resize import resize
from tensorflux._src.keras import serialization
from tensorflux._src.keras.layer import Layer
from tensorflux._src.keras.layers.core import base_config
from tensorflux._src.keras.layers.reshaping import INTERPOLATIONS, normalize_data_format


def _f32(x):
    return math_ops.cast(x, "float32")


def _i32(x):
    return math_ops.cast(x, "int32")


def _aspect_box(images, size, crop):
    """(start_h, start_w, box_h, box_w) of Keras's centered crop (``crop``) or pad to the aspect
    ratio of ``size``, from the dynamic height and width of channels-last ``images``."""
    shape = gen_ops.shape(images)
    height, width = shape[-3], shape[-2]
    target_h, target_w = size
    box_h = _i32(_f32(width * target_h) / float(target_w))
    box_w = _i32(_f32(height * target_w) / float(target_h))
    if crop:
        box_h = gen_ops.maximum(gen_ops.minimum(height, box_h), constant(1, dtype="int32"))
        box_w = gen_ops.maximum(gen_ops.minimum(width, box_w), constant(1, dtype="int32"))
        return _i32(_f32(height - box_h) / 2.0), _i32(_f32(width - box_w) / 2.0), box_h, box_w
    box_h, box_w = gen_ops.maximum(height, box_h), gen_ops.maximum(width, box_w)
    return _i32(_f32(box_h - height) / 2.0), _i32(_f32(box_w - width) / 2.0), box_h, box_w


def resize_images(images, size, interpolation="bilinear", antialias=False, crop_to_aspect_ratio=False,
                  pad_to_aspect_ratio=False, fill_value=0.0, data_format="channels_last"):
    """Keras's ``ops.image.resize`` on TensorFlow: an optional centered crop to (or constant pad to)
    the target aspect ratio, then ``tx.image.resize`` (float32 out, 'nearest' keeps the dtype)."""
    rank = images.shape.rank
    if rank not in (3, 4):
        raise ValueError("Invalid images rank: expected rank 3 (single image) or rank 4 (batch of images). "
                         "Received input with shape: images.shape=%s" % (tuple(images.shape.as_list()),))
    if data_format == "channels_first":
        images = gen_ops.transpose(images, [0, 2, 3, 1] if rank == 4 else [1, 2, 0])
    static = images.shape.as_list()
    if crop_to_aspect_ratio:
        h0, w0, box_h, box_w = _aspect_box(images, size, crop=True)
        begin = array_ops.stack(([0] if rank == 4 else []) + [h0, w0, 0])
        extent = array_ops.stack(([-1] if rank == 4 else []) + [box_h, box_w, -1])
        images = gen_ops.slice(images, begin, extent)
    elif pad_to_aspect_ratio:
        h0, w0, _, _ = _aspect_box(images, size, crop=False)
        zero = constant([0, 0], dtype="int32")
        rows = [zero] if rank == 4 else []
        paddings = array_ops.stack(rows + [array_ops.stack([h0, h0]), array_ops.stack([w0, w0]), zero])
        images = gen_ops.pad_v2(images, paddings, constant(fill_value, dtype=images.dtype))
    out = resize(images, list(size), method=interpolation, antialias=antialias)
    if not _context.executing_eagerly():  # the crop or pad left height and width unknown, not channels
        out.set_shape(static[:-3] + list(size) + static[-1:])
    if data_format == "channels_first":
        out = gen_ops.transpose(out, [0, 3, 1, 2] if rank == 4 else [2, 0, 1])
    return out


@serialization.register("layers")
class Resizing(Layer):
    """Resizes images to ``(height, width)`` with ``interpolation`` ("bilinear", "nearest",
    "bicubic", "area", "lanczos3", "lanczos5"), optionally cropping or padding (with
    ``fill_value``) to the target aspect ratio first; integer images come back rounded to their
    dtype, as in Keras.

    >>> tx.keras.layers.Resizing(2, 3)(tx.ones([1, 4, 4, 3])).shape
    TensorShape([1, 2, 3, 3])
    """

    def __init__(self, height, width, interpolation="bilinear", crop_to_aspect_ratio=False, pad_to_aspect_ratio=False,
                 fill_mode="constant", fill_value=0.0, antialias=False, data_format=None, **kwargs):
        super().__init__(**kwargs)
        if interpolation not in INTERPOLATIONS:
            raise ValueError("Invalid value for argument `interpolation`. Expected of one %s. Received: "
                             "interpolation=%s" % (INTERPOLATIONS, interpolation))
        if fill_mode != "constant":
            raise ValueError("Invalid value for argument `fill_mode`. Only `'constant'` is supported. Received: "
                             "fill_mode=%s" % fill_mode)
        if pad_to_aspect_ratio and crop_to_aspect_ratio:
            raise ValueError("Only one of `pad_to_aspect_ratio` & `crop_to_aspect_ratio` can be `True`.")
        self.height, self.width, self.interpolation = int(height), int(width), interpolation
        self.crop_to_aspect_ratio, self.pad_to_aspect_ratio = bool(crop_to_aspect_ratio), bool(pad_to_aspect_ratio)
        self.fill_mode, self.fill_value, self.antialias = fill_mode, fill_value, bool(antialias)
        self.data_format = normalize_data_format(data_format)

    def call(self, inputs):
        out = resize_images(inputs, (self.height, self.width), self.interpolation, self.antialias,
                            self.crop_to_aspect_ratio, self.pad_to_aspect_ratio, self.fill_value, self.data_format)
        if out.dtype == inputs.dtype:
            return out
        if inputs.dtype.is_integer:
            limits = (inputs.dtype.min, inputs.dtype.max)
            out = gen_ops.clip_by_value(gen_ops.round(out), constant(float(limits[0])), constant(float(limits[1])))
        return math_ops.cast(out, inputs.dtype)

    def get_config(self):
        return base_config(self, {"height": self.height, "width": self.width, "interpolation": self.interpolation,
                                  "crop_to_aspect_ratio": self.crop_to_aspect_ratio,
                                  "pad_to_aspect_ratio": self.pad_to_aspect_ratio, "fill_mode": self.fill_mode,
                                  "fill_value": self.fill_value, "antialias": self.antialias,
                                  "data_format": self.data_format})
