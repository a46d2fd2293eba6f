"""``tx.image`` resizing: ``resize`` (every TensorFlow 2 method, antialiasing, aspect-ratio
preservation), ``resize_with_pad`` and ``crop_and_resize``, over the ResizeBilinear /
ResizeNearestNeighbor / ResizeBicubic / ResizeArea / ScaleAndTranslate / CropAndResize ops."""

from tensorflux._src import array_ops, dtypes, math_ops, shape_ops
from tensorflux._src.generated import gen_ops
from tensorflux._src.graph import name_scope
from tensorflux._src.image_geometry import pad_to_bounding_box
from tensorflux._src.image_util import as_batch, batch_for_target, image_dims, to_tensor, unbatch


class ResizeMethod:
    """The interpolation methods of ``tx.image.resize`` (TensorFlow 2's names and values).

    >>> tx.image.ResizeMethod.BILINEAR
    'bilinear'
    """

    BILINEAR = "bilinear"
    NEAREST_NEIGHBOR = "nearest"
    BICUBIC = "bicubic"
    AREA = "area"
    LANCZOS3 = "lanczos3"
    LANCZOS5 = "lanczos5"
    GAUSSIAN = "gaussian"
    MITCHELLCUBIC = "mitchellcubic"


# Methods resampled by ScaleAndTranslate with the filter of the same name.
_FILTER_METHODS = (ResizeMethod.LANCZOS3, ResizeMethod.LANCZOS5, ResizeMethod.GAUSSIAN, ResizeMethod.MITCHELLCUBIC)


def _resize_fn(method, antialias):
    """images [b, h, w, c], size int32 [2] -> resized images, for one method."""

    def scale_and_translate(images, size, kernel_type):
        scale = math_ops.cast(size, dtypes.float32) / math_ops.cast(shape_ops.shape(images)[1:3], dtypes.float32)
        return gen_ops.scale_and_translate(images, size, scale, shape_ops.zeros([2]), kernel_type=kernel_type,
                                           antialias=antialias)

    if method == ResizeMethod.BILINEAR:
        if antialias:
            return lambda images, size: scale_and_translate(images, size, "triangle")
        return lambda images, size: gen_ops.resize_bilinear(images, size, half_pixel_centers=True)
    if method == ResizeMethod.NEAREST_NEIGHBOR:
        return lambda images, size: gen_ops.resize_nearest_neighbor(images, size, half_pixel_centers=True)
    if method == ResizeMethod.BICUBIC:
        if antialias:
            return lambda images, size: scale_and_translate(images, size, "keyscubic")
        return lambda images, size: gen_ops.resize_bicubic(images, size, half_pixel_centers=True)
    if method == ResizeMethod.AREA:
        return gen_ops.resize_area
    if method in _FILTER_METHODS:
        return lambda images, size: scale_and_translate(images, size, method)
    raise ValueError("Resize method is not implemented: {}".format(method))


def _size_tensor(size):
    try:
        size = to_tensor(size, dtype=dtypes.int32, name="size")
    except (TypeError, ValueError) as e:
        raise ValueError("'size' must be a 1-D int32 Tensor") from e
    if not size.shape.is_compatible_with([2]):
        raise ValueError("'size' must be a 1-D Tensor of 2 elements: new_height, new_width")
    return size


def resize(images, size, method=ResizeMethod.BILINEAR, preserve_aspect_ratio=False, antialias=False, name=None):
    """Resizes an image [height, width, channels] or a batch [batch, height, width, channels] to
    ``size`` = (new_height, new_width) with ``method`` (a ``ResizeMethod`` value).

    Half-pixel centers throughout (TensorFlow 2). The result is float32 except for 'nearest',
    which keeps the input's dtype. ``antialias`` widens the filter when downsampling (bilinear,
    bicubic and the lanczos/gaussian/mitchellcubic methods); ``preserve_aspect_ratio`` fits the
    image inside ``size`` instead.

    >>> x = tx.reshape(tx.range(4.0), [2, 2, 1])
    >>> tx.image.resize(x, [3, 3]).numpy()[..., 0]
    array([[0. , 0.5, 1. ],
           [1. , 1.5, 2. ],
           [2. , 2.5, 3. ]], dtype=float32)
    """
    with name_scope(name or "resize"):
        images = to_tensor(images, name="images")
        if images.shape.rank is None:
            raise ValueError("'images' contains no shape.")
        if images.shape.rank not in (3, 4):
            raise ValueError("'images' must have either 3 or 4 dimensions.")
        images, batched = as_batch(images)
        size = _size_tensor(size)
        if preserve_aspect_ratio:
            _, height, width, _ = image_dims(images, 4)
            h = math_ops.cast(height, dtypes.float32)
            w = math_ops.cast(width, dtypes.float32)
            scale = math_ops.minimum(math_ops.cast(size[0], dtypes.float32) / h,
                                     math_ops.cast(size[1], dtypes.float32) / w)
            size = array_ops.stack([math_ops.cast(math_ops.round(scale * h), dtypes.int32),
                                    math_ops.cast(math_ops.round(scale * w), dtypes.int32)])
        resized = _resize_fn(method, antialias)(images, size)
        return unbatch(resized, batched)


def resize_with_pad(image, target_height, target_width, method=ResizeMethod.BILINEAR, antialias=False):
    """Resizes an image (or batch) to fit ``target_height`` x ``target_width`` keeping its aspect
    ratio, then zero-pads the rest symmetrically.

    >>> tx.image.resize_with_pad(tx.ones([4, 8, 3]), 8, 8).numpy()[:, 0, 0]
    array([0., 0., 1., 1., 1., 1., 0., 0.], dtype=float32)
    """
    with name_scope("resize_image_with_pad"):
        image, batched, height, width = batch_for_target(image, target_height, target_width)
        f_height, f_width = math_ops.cast(height, dtypes.float32), math_ops.cast(width, dtypes.float32)
        f_target_h = math_ops.cast(target_height, dtypes.float32)
        f_target_w = math_ops.cast(target_width, dtypes.float32)
        ratio = math_ops.maximum(f_width / f_target_w, f_height / f_target_h)
        resized_h, resized_w = f_height / ratio, f_width / ratio
        new_h = math_ops.cast(math_ops.floor(resized_h), dtypes.int32)
        new_w = math_ops.cast(math_ops.floor(resized_w), dtypes.int32)
        pad_h = math_ops.maximum(0, math_ops.cast(math_ops.floor((f_target_h - resized_h) / 2), dtypes.int32))
        pad_w = math_ops.maximum(0, math_ops.cast(math_ops.floor((f_target_w - resized_w) / 2), dtypes.int32))
        resized = resize(image, array_ops.stack([new_h, new_w]), method, antialias=antialias)
        padded = pad_to_bounding_box(resized, pad_h, pad_w, target_height, target_width)
        return unbatch(padded, batched)


def crop_and_resize(image, boxes, box_indices, crop_size, method="bilinear", extrapolation_value=0.0, name=None):
    """Crops ``boxes`` ([num_boxes, 4] normalized [y1, x1, y2, x2]; y1 > y2 flips) out of the
    images ``box_indices`` names in the batch ``image`` and resizes each crop to ``crop_size``
    by bilinear or nearest sampling; samples outside the image take ``extrapolation_value``.
    Returns float32 [num_boxes, crop_height, crop_width, depth].

    >>> img = tx.reshape(tx.range(16.0), [1, 4, 4, 1])
    >>> tx.image.crop_and_resize(img, [[0.0, 0.0, 1.0, 1.0]], [0], [2, 2]).numpy()[0, ..., 0]
    array([[ 0.,  3.],
           [12., 15.]], dtype=float32)
    """
    return gen_ops.crop_and_resize(to_tensor(image, name="image"), to_tensor(boxes, dtype=dtypes.float32),
                                   to_tensor(box_indices, dtype=dtypes.int32),
                                   to_tensor(crop_size, dtype=dtypes.int32), method=method,
                                   extrapolation_value=extrapolation_value, name=name)

