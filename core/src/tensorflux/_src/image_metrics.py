"""``tx.image`` quality metrics: PSNR, SSIM and multi-scale SSIM, as TensorFlow computes them
(Gaussian-weighted local statistics by depthwise convolution, VALID padding)."""

import numpy as np

from tensorflux._src import array_ops, dtypes, math_ops, nn_conv_ops, reduce_ops, shape_ops
from tensorflux._src import cond as cond_ops
from tensorflux._src.generated import gen_ops
from tensorflux._src.graph import name_scope
from tensorflux._src.image_color import convert_image_dtype
from tensorflux._src.image_util import check, tile_channels, to_tensor, with_dependencies
from tensorflux._src.nn_ext_ops import softmax


def _check_compatible(img1, img2):
    """TensorFlow's _verify_compatible_image_shapes: rank >= 3, equal last three dimensions and
    broadcast-compatible leading ones; (shape1, shape2, run-time checks)."""
    s1, s2 = img1.shape, img2.shape
    for s in (s1, s2):
        if s.rank is not None and s.rank < 3:
            raise ValueError("Shape must be at least rank 3 but is rank %d (shape %s)" % (s.rank, s))
    if s1.rank is not None and s2.rank is not None:
        for a, b in zip(s1.as_list()[-3:], s2.as_list()[-3:]):
            if a is not None and b is not None and a != b:
                raise ValueError("Two images are not compatible: %s and %s" % (s1, s2))
        for a, b in zip(reversed(s1.as_list()[:-3]), reversed(s2.as_list()[:-3])):
            if not (a == 1 or b == 1 or a is None or b is None or a == b):
                raise ValueError("Two images are not compatible: %s and %s" % (s1, s2))
    shape1, shape2 = shape_ops.shape(img1), shape_ops.shape(img2)
    same = reduce_ops.reduce_all(math_ops.equal(shape1[-3:], shape2[-3:]))
    return shape1, shape2, check(same, ValueError, "the images' last three dimensions differ")


def psnr(a, b, max_val, name=None):
    """Peak signal-to-noise ratio in dB between images ``a`` and ``b`` (per image of a batch),
    with ``max_val`` the dynamic range (e.g. 1.0 or 255).

    >>> float(tx.image.psnr(tx.zeros([2, 2, 1]), tx.fill([2, 2, 1], 0.1), 1.0))
    20.0
    """
    with name_scope(name or "PSNR"):
        a, b = to_tensor(a), to_tensor(b)
        max_val = convert_image_dtype(math_ops.cast(max_val, a.dtype), dtypes.float32)
        a, b = convert_image_dtype(a, dtypes.float32), convert_image_dtype(b, dtypes.float32)
        mse = math_ops.reduce_mean(gen_ops.squared_difference(a, b), [-3, -2, -1])
        value = math_ops.subtract(20 * gen_ops.log(max_val) / np.float32(np.log(10.0)),
                                  np.float32(10 / np.log(10)) * gen_ops.log(mse))
        _, _, checks = _check_compatible(a, b)
        return with_dependencies(checks, value)


def _gaussian_kernel(size, sigma):
    """A [size, size, 1, 1] Gaussian window summing to 1 (TensorFlow's _fspecial_gauss); ``size``
    a Python int, so the window's shape is static."""
    coords = math_ops.cast(shape_ops.range(size), sigma.dtype)
    coords -= math_ops.cast(size - 1, sigma.dtype) / 2.0
    g = gen_ops.square(coords) * (-0.5 / gen_ops.square(sigma))
    g = array_ops.reshape(g, [1, -1]) + array_ops.reshape(g, [-1, 1])
    g = softmax(array_ops.reshape(g, [1, -1]))
    return array_ops.reshape(g, [size, size, 1, 1])


def _ssim_per_channel(img1, img2, max_val, filter_size, filter_sigma, k1, k2, return_index_map=False):
    """(ssim, contrast-structure) per channel; means over height and width unless return_index_map."""
    filter_size = int(filter_size)
    size = to_tensor(filter_size, dtype=dtypes.int32)
    sigma = to_tensor(filter_sigma, dtype=img1.dtype)
    shape1, shape2 = shape_ops.shape(img1), shape_ops.shape(img2)
    deps = check(reduce_ops.reduce_all(math_ops.greater_equal(shape1[-3:-1], size)), ValueError,
                 "images must be at least filter_size in height and width")
    deps += check(reduce_ops.reduce_all(math_ops.greater_equal(shape2[-3:-1], size)), ValueError,
                  "images must be at least filter_size in height and width")
    img1 = with_dependencies(deps, img1)
    kernel = tile_channels(_gaussian_kernel(filter_size, sigma), img1)

    def reducer(x):
        shape = shape_ops.shape(x)
        x = array_ops.reshape(x, array_ops.concat([[-1], shape[-3:]], 0))
        y = nn_conv_ops.depthwise_conv2d(x, kernel, strides=[1, 1, 1, 1], padding="VALID")
        return array_ops.reshape(y, array_ops.concat([shape[:-3], shape_ops.shape(y)[1:]], 0))

    c1, c2 = (k1 * max_val) ** 2, (k2 * max_val) ** 2
    mean0, mean1 = reducer(img1), reducer(img2)
    num0 = mean0 * mean1 * 2.0
    den0 = gen_ops.square(mean0) + gen_ops.square(mean1)
    luminance = (num0 + c1) / (den0 + c1)
    num1 = reducer(img1 * img2) * 2.0
    den1 = reducer(gen_ops.square(img1) + gen_ops.square(img2))
    cs = (num1 - num0 + c2) / (den1 - den0 + c2)
    if return_index_map:
        return luminance * cs, cs
    axes = [-3, -2]
    return math_ops.reduce_mean(luminance * cs, axes), math_ops.reduce_mean(cs, axes)


def _prepare(img1, img2, max_val):
    img1, img2 = to_tensor(img1, name="img1"), to_tensor(img2, name="img2")
    shape1, shape2, checks = _check_compatible(img1, img2)
    img1 = with_dependencies(checks, img1)
    max_val = convert_image_dtype(math_ops.cast(max_val, img1.dtype), dtypes.float32)
    return (convert_image_dtype(img1, dtypes.float32), convert_image_dtype(img2, dtypes.float32), max_val,
            shape1, shape2)


def ssim(img1, img2, max_val, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03, return_index_map=False):
    """Structural similarity of two images (or batches; the last three dimensions are height,
    width, channels) with a Gaussian window of ``filter_size`` and ``filter_sigma``: 1 for equal
    images. With ``return_index_map`` the per-position map instead of its mean.

    >>> x = tx.reshape(tx.range(144.0), [12, 12, 1]) / 144.0
    >>> float(tx.image.ssim(x, x, 1.0))
    1.0
    """
    with name_scope("SSIM"):
        img1, img2, max_val, _, _ = _prepare(img1, img2, max_val)
        per_channel, _ = _ssim_per_channel(img1, img2, max_val, filter_size, filter_sigma, k1, k2,
                                           return_index_map)
        return math_ops.reduce_mean(per_channel, [-1])


_MSSSIM_WEIGHTS = (0.0448, 0.2856, 0.3001, 0.2363, 0.1333)


def ssim_multiscale(img1, img2, max_val, power_factors=_MSSSIM_WEIGHTS, filter_size=11, filter_sigma=1.5, k1=0.01,
                    k2=0.03):
    """Multi-scale SSIM: contrast-structure at ``len(power_factors)`` - 1 scales (each halving the
    image by 2x2 average pooling, symmetric-padding odd sizes) and SSIM at the last, combined as a
    product of powers. Images need at least (filter_size - 1) * 2^(scales - 1) + 1 pixels a side.

    >>> x = tx.reshape(tx.range(32.0 * 32.0), [32, 32, 1]) / 1024.0
    >>> round(float(tx.image.ssim_multiscale(x, x, 1.0, power_factors=(0.5, 0.5), filter_size=3)), 4)
    1.0
    """
    with name_scope("MS-SSIM"):
        img1, img2, max_val, shape1, shape2 = _prepare(img1, img2, max_val)
        imgs = [img1, img2]
        heads = [shape1[:-3], shape2[:-3]]
        tails = [shape1[-3:], shape2[-3:]]
        divisor = [1, 2, 2, 1]
        divisor_t = to_tensor(np.array(divisor[1:], np.int32))

        def pad(images, remainder):
            padding = array_ops.pad(array_ops.expand_dims(remainder, -1), [[1, 0], [1, 0]])
            return [array_ops.pad(x, padding, mode="SYMMETRIC") for x in images]

        mcs = []
        per_channel = None
        for k in range(len(power_factors)):
            with name_scope("Scale%d" % k):
                if k > 0:
                    flat = [array_ops.reshape(x, array_ops.concat([[-1], t], 0)) for x, t in zip(imgs, tails)]
                    remainder = math_ops.floormod(tails[0], divisor_t)
                    need = reduce_ops.reduce_any(math_ops.not_equal(remainder, 0))
                    padded = cond_ops.cond(need, lambda f=flat, r=remainder: pad(f, r), lambda f=flat: f)
                    down = [nn_conv_ops.avg_pool(x, ksize=divisor, strides=divisor, padding="VALID") for x in padded]
                    tails = [shape_ops.shape(x)[1:] for x in down]
                    imgs = [array_ops.reshape(x, array_ops.concat([h, t], 0)) for x, h, t in zip(down, heads, tails)]
                per_channel, cs = _ssim_per_channel(imgs[0], imgs[1], max_val, filter_size, filter_sigma, k1, k2)
                mcs.append(gen_ops.relu(cs))
        mcs.pop()
        stacked = array_ops.stack(mcs + [gen_ops.relu(per_channel)], axis=-1)
        weights = to_tensor(np.asarray(power_factors, np.float32))
        return math_ops.reduce_mean(reduce_ops.reduce_prod(math_ops.pow(stacked, weights), [-1]), [-1])
