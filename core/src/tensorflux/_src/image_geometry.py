"""``tx.image`` geometry: flips (fixed, random and stateless-random), rot90, transpose, crops
and pads to bounding boxes, central and random crops, and image gradients (finite differences,
Sobel, total variation). Compositions of existing ops with TensorFlow 2's signatures; 3-D
images [height, width, channels] and 4-D batches [batch, height, width, channels]."""

import functools

import numpy as np

from tensorflux._src import array_ops, dtypes, math_ops, nn_conv_ops, random_ops, reduce_ops, shape_ops
from tensorflux._src import cond as cond_ops
from tensorflux._src.generated import gen_ops
from tensorflux._src.graph import name_scope
from tensorflux._src.image_util import (as_batch, batch_for_target, check, check_at_least_3d, image_dims, is_tensor,
                                        static_rank, static_value, tile_channels, to_tensor, unbatch, with_dependencies)


def _by_rank(image, f_rank3, f_rank4, what):
    """f_rank3() or f_rank4() by the rank of ``image`` (a cond on the run-time rank when unknown)."""
    rank = static_rank(image)
    if rank is None:
        return cond_ops.cond(math_ops.equal(shape_ops.rank(image), 3), f_rank3, f_rank4)
    if rank == 3:
        return f_rank3()
    if rank == 4:
        return f_rank4()
    raise ValueError("'image' (shape %s) must have either 3 or 4 dimensions (%s)." % (image.shape, what))


def _flip(image, axis, name):
    with name_scope(name):
        image = to_tensor(image, name="image")
        image = with_dependencies(check_at_least_3d(image), image)
        return _by_rank(image, lambda: array_ops.reverse(image, [axis]),
                        lambda: array_ops.reverse(image, [axis + 1]), name)


def flip_left_right(image):
    """Reverses the width dimension of an image [height, width, channels] or a batch of them.

    >>> tx.image.flip_left_right(tx.constant([[[1], [2], [3]]])).numpy()[..., 0]
    array([[3, 2, 1]], dtype=int32)
    """
    return _flip(image, 1, "flip_left_right")


def flip_up_down(image):
    """Reverses the height dimension of an image [height, width, channels] or a batch of them.

    >>> tx.image.flip_up_down(tx.constant([[[1]], [[2]]])).numpy()[:, 0, 0]
    array([2, 1], dtype=int32)
    """
    return _flip(image, 0, "flip_up_down")


def _random_flip(image, axis, random_fn, name):
    """Flips a 3-D image when one uniform draw is below 0.5, each image of a batch on its own draw."""
    with name_scope(name):
        image = to_tensor(image, name="image")
        image = with_dependencies(check_at_least_3d(image), image)

        def rank3():
            mirror = math_ops.less(random_fn(shape=[], minval=0, maxval=1.0), 0.5)
            return cond_ops.cond(mirror, lambda: array_ops.reverse(image, [axis]), lambda: image)

        def rank4():
            batch = shape_ops.shape(image)[0]
            draws = random_fn(shape=array_ops.stack([batch]), minval=0, maxval=1.0)
            flips = array_ops.cast(math_ops.round(array_ops.reshape(draws, array_ops.stack([batch, 1, 1, 1]))),
                                   image.dtype)
            return flips * array_ops.reverse(image, [axis + 1]) + (1 - flips) * image

        return _by_rank(image, rank3, rank4, name)


def random_flip_left_right(image, seed=None):
    """Flips an image (each image of a batch independently) left to right with probability 1/2.

    >>> tx.image.random_flip_left_right(tx.ones([2, 3, 1]), seed=1).shape
    TensorShape([2, 3, 1])
    """
    return _random_flip(image, 1, functools.partial(random_ops.uniform, seed=seed), "random_flip_left_right")


def random_flip_up_down(image, seed=None):
    """Flips an image (each image of a batch independently) upside down with probability 1/2.

    >>> tx.image.random_flip_up_down(tx.ones([2, 3, 1]), seed=1).shape
    TensorShape([2, 3, 1])
    """
    return _random_flip(image, 0, functools.partial(random_ops.uniform, seed=seed), "random_flip_up_down")


def stateless_random_flip_left_right(image, seed):
    """Flips left to right with probability 1/2, determined by ``seed`` (shape [2]) alone: the
    same seed flips the same way as TensorFlow's.

    >>> x = tx.constant([[[1.0], [2.0]]])
    >>> tx.image.stateless_random_flip_left_right(x, seed=[1, 2]).shape
    TensorShape([1, 2, 1])
    """
    fn = functools.partial(random_ops.stateless_uniform, seed=seed)
    return _random_flip(image, 1, fn, "stateless_random_flip_left_right")


def stateless_random_flip_up_down(image, seed):
    """Flips upside down with probability 1/2, determined by ``seed`` (shape [2]) alone.

    >>> tx.image.stateless_random_flip_up_down(tx.ones([2, 1, 1]), seed=[3, 4]).shape
    TensorShape([2, 1, 1])
    """
    fn = functools.partial(random_ops.stateless_uniform, seed=seed)
    return _random_flip(image, 0, fn, "stateless_random_flip_up_down")


def _rot90_static(image, k, batched):
    h, w = (1, 2) if batched else (0, 1)
    perm = [0, 2, 1, 3] if batched else [1, 0, 2]
    if k == 1:
        return array_ops.transpose(array_ops.reverse(image, [w]), perm)
    if k == 2:
        return array_ops.reverse(image, [h, w])
    if k == 3:
        return array_ops.reverse(array_ops.transpose(image, perm), [w])
    return image


def rot90(image, k=1, name=None):
    """Rotates an image (or each image of a batch) counter-clockwise by ``k`` quarter turns.

    >>> x = tx.constant([[[1], [2]], [[3], [4]]])
    >>> tx.image.rot90(x).numpy()[..., 0]
    array([[2, 4],
           [1, 3]], dtype=int32)
    """
    with name_scope(name or "rot90"):
        image = to_tensor(image, name="image")
        image = with_dependencies(check_at_least_3d(image), image)
        k_static = static_value(k)
        if k_static is not None:
            if k_static.shape != ():
                raise ValueError("rot90: k must be a scalar, got shape %s" % (k_static.shape,))
            turns = int(k_static) % 4
            return _by_rank(image, lambda: _rot90_static(image, turns, False),
                            lambda: _rot90_static(image, turns, True), "rot90")
        k = math_ops.floormod(to_tensor(k, dtype=dtypes.int32, name="k"), 4)

        def rotate(batched):
            cases = [(math_ops.equal(k, t), functools.partial(_rot90_static, image, t, batched)) for t in (1, 2, 3)]
            return cond_ops.case(cases, default=lambda: image, exclusive=True)

        return _by_rank(image, lambda: rotate(False), lambda: rotate(True), "rot90")


def transpose(image, name=None):
    """Swaps the height and width dimensions of an image or a batch of images.

    >>> tx.image.transpose(tx.zeros([2, 5, 3])).shape
    TensorShape([5, 2, 3])
    """
    with name_scope(name or "transpose"):
        image = to_tensor(image, name="image")
        image = with_dependencies(check_at_least_3d(image), image)
        return _by_rank(image, lambda: array_ops.transpose(image, [1, 0, 2]),
                        lambda: array_ops.transpose(image, [0, 2, 1, 3]), "transpose")


def central_crop(image, central_fraction):
    """The central ``central_fraction`` (in (0, 1]) of an image's height and width.

    >>> tx.image.central_crop(tx.zeros([10, 8, 3]), 0.5).shape
    TensorShape([6, 4, 3])
    """
    with name_scope("central_crop"):
        image = to_tensor(image, name="image")
        fraction = static_value(central_fraction)
        if fraction is not None:
            fraction = float(fraction)
            if fraction <= 0.0 or fraction > 1.0:
                raise ValueError("central_fraction must be within (0, 1]")
            if fraction == 1.0:
                return image
        else:
            f = to_tensor(central_fraction, dtype=dtypes.float64)
            ok = math_ops.logical_and(math_ops.greater(f, 0.0), math_ops.less_equal(f, 1.0))
            image = with_dependencies(check(ok, ValueError, "central_fraction must be within (0, 1]"), image)
        rank = static_rank(image)
        if rank not in (3, 4):
            raise ValueError("`image` should either be a Tensor with rank = 3 or rank = 4. Had rank = %s." % rank)
        batched = rank == 4
        dims = image_dims(image, rank)
        h, w = dims[1:3] if batched else dims[0:2]

        def start(size):
            if fraction is not None and not is_tensor(size):
                return int((float(size) - float(size) * fraction) / 2)
            sd = math_ops.cast(size, dtypes.float64)
            frac = to_tensor(central_fraction if fraction is None else fraction, dtype=dtypes.float64)
            return math_ops.cast((sd - sd * frac) / 2, dtypes.int32)

        top, left = start(h), start(w)
        size_h, size_w = h - top * 2, w - left * 2
        if batched:
            begin, size = array_ops.stack([0, top, left, 0]), array_ops.stack([-1, size_h, size_w, -1])
        else:
            begin, size = array_ops.stack([top, left, 0]), array_ops.stack([size_h, size_w, -1])
        return array_ops.slice(image, begin, size)


def pad_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """Zero-pads an image (or batch) to ``target_height`` x ``target_width`` with the image's top
    left corner at (offset_height, offset_width).

    >>> tx.image.pad_to_bounding_box(tx.ones([2, 2, 1]), 1, 0, 4, 3).numpy()[..., 0]
    array([[0., 0., 0.],
           [1., 1., 0.],
           [1., 1., 0.],
           [0., 0., 0.]], dtype=float32)
    """
    with name_scope("pad_to_bounding_box"):
        image, batched = as_batch(to_tensor(image, name="image"))
        _, height, width, _ = image_dims(image, 4)
        after_w = target_width - offset_width - width
        after_h = target_height - offset_height - height
        deps = check_at_least_3d(image)
        deps += check(offset_height >= 0, ValueError, "offset_height must be >= 0")
        deps += check(offset_width >= 0, ValueError, "offset_width must be >= 0")
        deps += check(after_w >= 0, ValueError, "width must be <= target - offset")
        deps += check(after_h >= 0, ValueError, "height must be <= target - offset")
        image = with_dependencies(deps, image)
        paddings = array_ops.reshape(array_ops.stack([0, 0, offset_height, after_h, offset_width, after_w, 0, 0]),
                                     [4, 2])
        return unbatch(array_ops.pad(image, paddings), batched)


def crop_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """The ``target_height`` x ``target_width`` window of an image (or batch) whose top left corner
    is at (offset_height, offset_width).

    >>> x = tx.reshape(tx.range(12), [3, 4, 1])
    >>> tx.image.crop_to_bounding_box(x, 1, 1, 2, 2).numpy()[..., 0]
    array([[ 5,  6],
           [ 9, 10]], dtype=int32)
    """
    with name_scope("crop_to_bounding_box"):
        image, batched = as_batch(to_tensor(image, name="image"))
        deps = check_at_least_3d(image)
        _, height, width, _ = image_dims(image, 4)
        deps += check(offset_width >= 0, ValueError, "offset_width must be >= 0.")
        deps += check(offset_height >= 0, ValueError, "offset_height must be >= 0.")
        deps += check(target_width > 0, ValueError, "target_width must be > 0.")
        deps += check(target_height > 0, ValueError, "target_height must be > 0.")
        deps += check(width >= target_width + offset_width, ValueError, "width must be >= target + offset.")
        deps += check(height >= target_height + offset_height, ValueError, "height must be >= target + offset.")
        image = with_dependencies(deps, image)
        shape = shape_ops.shape(image)
        cropped = array_ops.slice(image, array_ops.stack([0, offset_height, offset_width, 0]),
                                  array_ops.stack([shape[0], target_height, target_width, shape[3]]))
        return unbatch(cropped, batched)


def _max(x, y):
    return math_ops.maximum(x, y) if is_tensor(x) or is_tensor(y) else max(x, y)


def _min(x, y):
    return math_ops.minimum(x, y) if is_tensor(x) or is_tensor(y) else min(x, y)


def resize_with_crop_or_pad(image, target_height, target_width):
    """Centrally crops and/or zero-pads an image (or batch) to ``target_height`` x ``target_width``.

    >>> tx.image.resize_with_crop_or_pad(tx.ones([4, 2, 3]), 2, 4).shape
    TensorShape([2, 4, 3])
    """
    with name_scope("resize_image_with_crop_or_pad"):
        image, batched, height, width = batch_for_target(image, target_height, target_width)
        width_diff, height_diff = target_width - width, target_height - height
        crop_w, pad_w = _max(-width_diff // 2, 0), _max(width_diff // 2, 0)
        crop_h, pad_h = _max(-height_diff // 2, 0), _max(height_diff // 2, 0)
        cropped = crop_to_bounding_box(image, crop_h, crop_w, _min(target_height, height), _min(target_width, width))
        return unbatch(pad_to_bounding_box(cropped, pad_h, pad_w, target_height, target_width), batched)


def _random_crop(value, size, random_fn, name):
    with name_scope(name):
        value = to_tensor(value, name="value")
        size = to_tensor(size, dtype=dtypes.int32, name="size")
        shape = shape_ops.shape(value)
        fits = reduce_ops.reduce_all(math_ops.greater_equal(shape, size))
        shape = with_dependencies(check(fits, ValueError, "Need value.shape >= size"), shape)
        limit = shape - size + 1
        offset = math_ops.floormod(random_fn(shape_ops.shape(shape), dtype=dtypes.int32, maxval=np.iinfo(np.int32).max),
                                   limit)
        return array_ops.slice(value, offset, size)


def random_crop(value, size, seed=None, name=None):
    """A ``size`` slice of ``value`` at a uniformly random offset (any rank; ``size`` per dimension).

    >>> tx.image.random_crop(tx.zeros([5, 6, 3]), [2, 3, 3], seed=4).shape
    TensorShape([2, 3, 3])
    """
    return _random_crop(value, size, functools.partial(random_ops.uniform, seed=seed), name or "random_crop")


def stateless_random_crop(value, size, seed, name=None):
    """A ``size`` slice of ``value`` at an offset determined by ``seed`` (shape [2]) alone: the same
    offset TensorFlow's stateless_random_crop picks for that seed.

    >>> x = tx.reshape(tx.range(20), [4, 5])
    >>> tx.image.stateless_random_crop(x, [2, 2], seed=[1, 2]).shape
    TensorShape([2, 2])
    """
    fn = functools.partial(random_ops.stateless_uniform, seed=seed)
    return _random_crop(value, size, fn, name or "random_crop")


def total_variation(images, name=None):
    """The sum of absolute differences between neighbouring pixels: a scalar for one image, one
    value per image of a batch.

    >>> float(tx.image.total_variation(tx.constant([[[0.0], [1.0]], [[3.0], [1.0]]])))
    6.0
    """
    with name_scope(name or "total_variation"):
        images = to_tensor(images, name="images")
        rank = static_rank(images)
        if rank == 3:
            dy = images[1:, :, :] - images[:-1, :, :]
            dx = images[:, 1:, :] - images[:, :-1, :]
            axis = None
        elif rank == 4:
            dy = images[:, 1:, :, :] - images[:, :-1, :, :]
            dx = images[:, :, 1:, :] - images[:, :, :-1, :]
            axis = [1, 2, 3]
        else:
            raise ValueError("'images' must be either 3 or 4-dimensional.")
        return (math_ops.reduce_sum(gen_ops.abs(dy), axis=axis) +
                math_ops.reduce_sum(gen_ops.abs(dx), axis=axis))


def image_gradients(image):
    """(dy, dx): forward differences of a 4-D batch along height and width, zero in the last row
    (dy) and last column (dx).

    >>> dy, dx = tx.image.image_gradients(tx.reshape(tx.range(4.0), [1, 2, 2, 1]))
    >>> dy.numpy()[0, ..., 0], dx.numpy()[0, ..., 0]
    (array([[2., 2.],
           [0., 0.]], dtype=float32), array([[1., 0.],
           [1., 0.]], dtype=float32))
    """
    image = to_tensor(image, name="image")
    if static_rank(image) != 4:
        raise ValueError("image_gradients expects a 4D tensor [batch_size, h, w, d], not %s." % (image.shape,))
    shape = shape_ops.shape(image)
    batch, height, width, depth = array_ops.unstack(shape, num=4)
    dy = image[:, 1:, :, :] - image[:, :-1, :, :]
    dx = image[:, :, 1:, :] - image[:, :, :-1, :]
    dy = array_ops.concat([dy, shape_ops.zeros(array_ops.stack([batch, 1, width, depth]), image.dtype)], 1)
    dx = array_ops.concat([dx, shape_ops.zeros(array_ops.stack([batch, height, 1, depth]), image.dtype)], 2)
    return array_ops.reshape(dy, shape), array_ops.reshape(dx, shape)


def sobel_edges(image):
    """The Sobel responses of a 4-D batch: [batch, h, w, d, 2] holding the vertical (dy) and
    horizontal (dx) 3x3 filters over the reflect-padded image.

    >>> tx.image.sobel_edges(tx.ones([1, 4, 5, 3])).shape
    TensorShape([1, 4, 5, 3, 2])
    """
    image = to_tensor(image, name="image")
    shape = shape_ops.shape(image)
    kernels = np.array([[[-1, -2, -1], [0, 0, 0], [1, 2, 1]], [[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]]])
    kernels = np.expand_dims(np.transpose(kernels, (1, 2, 0)), -2)  # [3, 3, 1, 2]
    filters = tile_channels(to_tensor(kernels.astype(image.dtype.as_numpy_dtype)), image)
    padded = array_ops.pad(image, [[0, 0], [1, 1], [1, 1], [0, 0]], mode="REFLECT")
    out = nn_conv_ops.depthwise_conv2d(padded, filters, [1, 1, 1, 1], "VALID")
    return array_ops.reshape(out, array_ops.concat([shape, [2]], 0))


def extract_patches(images, sizes, strides, rates, padding, name=None):
    """The ``sizes`` patches of a batch [batch, rows, cols, depth], ``strides`` apart and dilated
    by ``rates`` (each [1, r, c, 1]), flattened into the depth: [batch, out_rows, out_cols,
    r * c * depth].

    >>> x = tx.reshape(tx.range(16.0), [1, 4, 4, 1])
    >>> tx.image.extract_patches(x, [1, 2, 2, 1], [1, 2, 2, 1], [1, 1, 1, 1], "VALID").numpy()[0, 0]
    array([[0., 1., 4., 5.],
           [2., 3., 6., 7.]], dtype=float32)
    """
    return gen_ops.extract_image_patches(to_tensor(images, name="images"), ksizes=list(sizes), strides=list(strides),
                                         rates=list(rates), padding=padding, name=name)
