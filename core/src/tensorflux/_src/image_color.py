"""``tx.image`` color: dtype conversion with TensorFlow's scaling (``convert_image_dtype``),
brightness/contrast/gamma/hue/saturation adjustments and their random and stateless-random
variants, color-space conversions (grayscale, HSV, YIQ, YUV) and per-image standardization."""

import functools

import numpy as np

from tensorflux._src import array_ops, context, dtypes, math_ops, random_ops, reduce_ops, shape_ops, stat_ops
from tensorflux._src.einsum_ops import tensordot
from tensorflux._src.generated import gen_ops
from tensorflux._src.graph import name_scope
from tensorflux._src.image_util import check, check_at_least_3d, is_tensor, to_tensor, with_dependencies

# Dtypes whose clip/multiply/floordiv kernels every build has; other image dtypes compute in a
# wider one (int64 for integers, float32 for float16) with the same results.
_KERNEL_DTYPES = (dtypes.uint8, dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64)


def _work(x):
    """``x`` in a dtype with arithmetic kernels that represents its values (see _KERNEL_DTYPES)."""
    if x.dtype in _KERNEL_DTYPES:
        return x
    return array_ops.cast(x, dtypes.int64 if x.dtype.is_integer else dtypes.float32)


def _saturate_cast(value, dtype):
    """``value`` cast to ``dtype`` after clamping to the range both types represent (TensorFlow's
    saturate_cast for real types)."""
    in_dtype = value.dtype
    np_in = in_dtype.as_numpy_dtype
    promoted = np.promote_types(np_in, dtype.as_numpy_dtype)
    lo = np_in(np.maximum(in_dtype.min, dtype.min))
    if np.array([lo, dtype.min], dtype=promoted)[0] < np.array([lo, dtype.min], dtype=promoted)[1]:
        lo = np.nextafter(lo, np_in(0), dtype=np_in)
    hi = np_in(np.minimum(float(in_dtype.max), float(dtype.max)))
    if np.array([hi, dtype.max], dtype=promoted)[0] > np.array([hi, dtype.max], dtype=promoted)[1]:
        hi = np.nextafter(hi, np_in(0), dtype=np_in)
    work = _work(value)
    clipped = gen_ops.clip_by_value(work, to_tensor(lo, dtype=work.dtype), to_tensor(hi, dtype=work.dtype))
    return array_ops.cast(clipped, dtype)


def _int_scale(x, fn, k, dtype):
    """fn(x, k) for an integer ``x`` (computed in a dtype with kernels), cast to ``dtype`` with
    wrap-around (two's-complement arithmetic gives the same bits either way)."""
    work = _work(x)
    return array_ops.cast(fn(work, to_tensor(k, dtype=work.dtype)), dtype)


def convert_image_dtype(image, dtype, saturate=False, name=None):
    """Converts an image between dtypes, rescaling values: floats span [0, 1], integers [0, MAX]
    (integer to float multiplies by 1 / MAX; float to integer by MAX + 0.5, then casts).
    ``saturate`` clamps before casting so out-of-range values do not wrap.

    >>> tx.image.convert_image_dtype(tx.constant([0, 128, 255], tx.uint8), tx.float32).numpy()
    array([0.       , 0.5019608, 1.       ], dtype=float32)
    """
    image = to_tensor(image, name="image")
    dtype = dtypes.as_dtype(dtype)
    if not (dtype.is_floating or dtype.is_integer):
        raise AttributeError("dtype must be either floating point or integer")
    if not (image.dtype.is_floating or image.dtype.is_integer):
        raise AttributeError("image dtype must be either floating point or integer")
    if dtype == image.dtype:
        return array_ops.identity(image, name=name)
    with name_scope(name or "convert_image"):
        if image.dtype.is_integer and dtype.is_integer:
            scale_in, scale_out = image.dtype.max, dtype.max
            if scale_in > scale_out:
                k = (scale_in + 1) // (scale_out + 1)
                if saturate:
                    return _saturate_cast(_int_scale(image, math_ops.floordiv, k, image.dtype), dtype)
                return _int_scale(image, math_ops.floordiv, k, dtype)
            cast = _saturate_cast(image, dtype) if saturate else array_ops.cast(image, dtype)
            return _int_scale(cast, math_ops.multiply, (scale_out + 1) // (scale_in + 1), dtype)
        if image.dtype.is_floating and dtype.is_floating:
            return array_ops.cast(image, dtype)
        if image.dtype.is_integer:
            return math_ops.multiply(array_ops.cast(image, dtype), to_tensor(1.0 / image.dtype.max, dtype=dtype))
        work = _work(image)
        scaled = math_ops.multiply(work, to_tensor(dtype.max + 0.5, dtype=work.dtype))
        return _saturate_cast(scaled, dtype) if saturate else array_ops.cast(scaled, dtype)


def _float_image(image):
    """(float image, original dtype): float16/float32 images as they are, others in float32."""
    image = to_tensor(image, name="image")
    if image.dtype in (dtypes.float16, dtypes.float32):
        return image, image.dtype
    return convert_image_dtype(image, dtypes.float32), image.dtype


def adjust_brightness(image, delta):
    """Adds ``delta`` to every channel (in the float domain: integer images are converted there
    and back, saturating).

    >>> tx.image.adjust_brightness(tx.constant([0.2, 0.5]), 0.25).numpy()
    array([0.45, 0.75], dtype=float32)
    """
    with name_scope("adjust_brightness"):
        flt, orig = _float_image(image)
        adjusted = math_ops.add(flt, math_ops.cast(delta, flt.dtype))
        return convert_image_dtype(adjusted, orig, saturate=True)


def adjust_contrast(images, contrast_factor):
    """Moves each channel of each image away from its mean by ``contrast_factor``:
    (x - mean) * contrast_factor + mean, the mean over height and width.

    >>> tx.image.adjust_contrast(tx.constant([[[1.0], [3.0]]]), 2.0).numpy()[..., 0]
    array([[0., 4.]], dtype=float32)
    """
    with name_scope("adjust_contrast"):
        flt, orig = _float_image(images)
        adjusted = gen_ops.adjust_contrastv2(flt, to_tensor(contrast_factor, dtype=dtypes.float32))
        return convert_image_dtype(adjusted, orig, saturate=True)


def adjust_gamma(image, gamma=1, gain=1):
    """Gamma correction: gain * image ** gamma (in the float domain; ``gamma`` >= 0).

    >>> tx.image.adjust_gamma(tx.constant([0.25, 1.0]), gamma=0.5).numpy()
    array([0.5, 1. ], dtype=float32)
    """
    with name_scope("adjust_gamma"):
        flt, orig = _float_image(image)
        deps = check(gamma >= 0, ValueError, "Gamma should be a non-negative real number.")
        gamma = with_dependencies(deps, to_tensor(gamma, dtype=flt.dtype))
        adjusted = math_ops.multiply(to_tensor(gain, dtype=flt.dtype), math_ops.pow(flt, gamma))
        return convert_image_dtype(adjusted, orig, saturate=True)


def adjust_hue(image, delta, name=None):
    """Rotates the hue of RGB images (last dimension 3) by ``delta`` in [-1, 1] turns of the
    color wheel.

    >>> tx.image.adjust_hue(tx.constant([[[1.0, 0.0, 0.0]]]), 1 / 3).numpy()[0, 0]
    array([0., 1., 0.], dtype=float32)
    """
    with name_scope(name or "adjust_hue"):
        if context.executing_eagerly() and not is_tensor(delta) and (delta < -1 or delta > 1):
            raise ValueError("delta must be in the interval [-1, 1]")
        flt, orig = _float_image(image)
        rgb = gen_ops.adjust_hue(flt, to_tensor(delta, dtype=dtypes.float32))
        return convert_image_dtype(rgb, orig)


def adjust_saturation(image, saturation_factor, name=None):
    """Multiplies the saturation of RGB images (last dimension 3) by ``saturation_factor``.

    >>> tx.image.adjust_saturation(tx.constant([[[1.0, 0.5, 0.5]]]), 0.0).numpy()[0, 0]
    array([1., 1., 1.], dtype=float32)
    """
    with name_scope(name or "adjust_saturation"):
        flt, orig = _float_image(image)
        adjusted = gen_ops.adjust_saturation(flt, to_tensor(saturation_factor, dtype=dtypes.float32))
        return convert_image_dtype(adjusted, orig)


def _check_range(lower, upper):
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")


def _check_hue_delta(max_delta):
    if max_delta > 0.5:
        raise ValueError("max_delta must be <= 0.5.")
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")


def _draw(seed, stateless):
    """A scalar uniform draw in [minval, maxval): stateful with op seed ``seed``, or stateless."""
    if stateless:
        return functools.partial(random_ops.stateless_uniform, [], seed)
    return lambda minval, maxval: random_ops.uniform([], minval, maxval, seed=seed)


def random_brightness(image, max_delta, seed=None):
    """adjust_brightness by a delta drawn uniformly from [-max_delta, max_delta).

    >>> tx.image.random_brightness(tx.zeros([2, 2, 3]), 0.1, seed=3).shape
    TensorShape([2, 2, 3])
    """
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    return adjust_brightness(image, _draw(seed, False)(-max_delta, max_delta))


def stateless_random_brightness(image, max_delta, seed):
    """adjust_brightness by a delta in [-max_delta, max_delta) determined by ``seed`` (shape [2])
    alone, the same as TensorFlow's for that seed.

    >>> tx.image.stateless_random_brightness(tx.zeros([1, 1, 3]), 0.1, seed=[1, 2]).shape
    TensorShape([1, 1, 3])
    """
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    return adjust_brightness(image, _draw(seed, True)(minval=-max_delta, maxval=max_delta))


def random_contrast(image, lower, upper, seed=None):
    """adjust_contrast by a factor drawn uniformly from [lower, upper).

    >>> tx.image.random_contrast(tx.ones([2, 2, 3]), 0.5, 1.5, seed=1).shape
    TensorShape([2, 2, 3])
    """
    _check_range(lower, upper)
    return adjust_contrast(image, _draw(seed, False)(lower, upper))


def stateless_random_contrast(image, lower, upper, seed):
    """adjust_contrast by a factor in [lower, upper) determined by ``seed`` alone.

    >>> tx.image.stateless_random_contrast(tx.ones([2, 2, 3]), 0.5, 1.5, seed=[1, 2]).shape
    TensorShape([2, 2, 3])
    """
    _check_range(lower, upper)
    return adjust_contrast(image, _draw(seed, True)(minval=lower, maxval=upper))


def random_saturation(image, lower, upper, seed=None):
    """adjust_saturation by a factor drawn uniformly from [lower, upper).

    >>> tx.image.random_saturation(tx.ones([2, 2, 3]), 0.5, 1.5, seed=1).shape
    TensorShape([2, 2, 3])
    """
    _check_range(lower, upper)
    return adjust_saturation(image, _draw(seed, False)(lower, upper))


def stateless_random_saturation(image, lower, upper, seed=None):
    """adjust_saturation by a factor in [lower, upper) determined by ``seed`` alone.

    >>> tx.image.stateless_random_saturation(tx.ones([2, 2, 3]), 0.5, 1.5, seed=[1, 2]).shape
    TensorShape([2, 2, 3])
    """
    _check_range(lower, upper)
    return adjust_saturation(image, _draw(seed, True)(minval=lower, maxval=upper))


def random_hue(image, max_delta, seed=None):
    """adjust_hue by a delta drawn uniformly from [-max_delta, max_delta) (max_delta <= 0.5).

    >>> tx.image.random_hue(tx.ones([2, 2, 3]), 0.2, seed=1).shape
    TensorShape([2, 2, 3])
    """
    _check_hue_delta(max_delta)
    return adjust_hue(image, _draw(seed, False)(-max_delta, max_delta))


def stateless_random_hue(image, max_delta, seed):
    """adjust_hue by a delta in [-max_delta, max_delta) determined by ``seed`` alone.

    >>> tx.image.stateless_random_hue(tx.ones([2, 2, 3]), 0.2, seed=[1, 2]).shape
    TensorShape([2, 2, 3])
    """
    _check_hue_delta(max_delta)
    return adjust_hue(image, _draw(seed, True)(minval=-max_delta, maxval=max_delta))


def rgb_to_grayscale(images, name=None):
    """Luma (0.2989 R + 0.587 G + 0.114 B) of RGB images, keeping a last dimension of 1 and the
    input dtype.

    >>> tx.image.rgb_to_grayscale(tx.constant([[[1.0, 0.0, 0.0]]])).numpy()
    array([[[0.2989]]], dtype=float32)
    """
    with name_scope(name or "rgb_to_grayscale"):
        images = to_tensor(images, name="images")
        flt = convert_image_dtype(images, dtypes.float32)
        gray = tensordot(flt, to_tensor(np.array([0.2989, 0.587, 0.114], np.float32)), [-1, -1])
        return convert_image_dtype(array_ops.expand_dims(gray, -1), images.dtype)


def grayscale_to_rgb(images, name=None):
    """Repeats the single channel of grayscale images three times.

    >>> tx.image.grayscale_to_rgb(tx.constant([[[0.5]]])).numpy()
    array([[[0.5, 0.5, 0.5]]], dtype=float32)
    """
    with name_scope(name or "grayscale_to_rgb"):
        images = to_tensor(images, name="images")
        s = images.shape
        if s.rank is not None and s.rank < 2:
            raise ValueError("A grayscale image (shape %s) must be at least two-dimensional." % (s,))
        if s.rank is not None and s[-1] is not None and s[-1] != 1:
            raise ValueError("Last dimension of a grayscale image should be size 1.")
        rank_less_one = array_ops.expand_dims(shape_ops.rank(images) - 1, 0)
        multiples = array_ops.concat([shape_ops.ones(rank_less_one, dtype=dtypes.int32), [3]], 0)
        return array_ops.tile(images, multiples)


def rgb_to_hsv(images, name=None):
    """Converts RGB images (last dimension 3, floats in [0, 1]) to HSV, each in [0, 1].

    >>> tx.image.rgb_to_hsv(tx.constant([0.0, 0.5, 1.0])).numpy()
    array([0.5833334, 1.       , 1.       ], dtype=float32)
    """
    return gen_ops.rgb_to_hsv(to_tensor(images, name="images"), name=name)


def hsv_to_rgb(images, name=None):
    """Converts HSV images (last dimension 3, each in [0, 1]) to RGB.

    >>> tx.image.hsv_to_rgb(tx.constant([0.5, 1.0, 1.0])).numpy()
    array([0., 1., 1.], dtype=float32)
    """
    return gen_ops.hsv_to_rgb(to_tensor(images, name="images"), name=name)


# TensorFlow's color-space matrices (rows: input channel, columns: output channel).
_RGB_TO_YIQ = [[0.299, 0.59590059, 0.2115], [0.587, -0.27455667, -0.52273617], [0.114, -0.32134392, 0.31119955]]
_YIQ_TO_RGB = [[1, 1, 1], [0.95598634, -0.27201283, -1.10674021], [0.6208248, -0.64720424, 1.70423049]]
_RGB_TO_YUV = [[0.299, -0.14714119, 0.61497538], [0.587, -0.28886916, -0.51496512], [0.114, 0.43601035, -0.10001026]]
_YUV_TO_RGB = [[1, 1, 1], [0, -0.394642334, 2.03206185], [1.13988303, -0.58062185, 0]]


def _color_matrix(images, matrix):
    images = to_tensor(images, name="images")
    kernel = to_tensor(np.asarray(matrix, images.dtype.as_numpy_dtype), name="kernel")
    return tensordot(images, kernel, axes=[[images.shape.rank - 1], [0]])


def rgb_to_yiq(images):
    """Converts RGB images (last dimension 3) to YIQ.

    >>> tx.image.rgb_to_yiq(tx.constant([1.0, 0.0, 0.0])).numpy()
    array([0.299    , 0.5959006, 0.2115   ], dtype=float32)
    """
    return _color_matrix(images, _RGB_TO_YIQ)


def yiq_to_rgb(images):
    """Converts YIQ images (last dimension 3) to RGB.

    >>> tx.image.yiq_to_rgb(tx.constant([1.0, 0.0, 0.0])).numpy()
    array([1., 1., 1.], dtype=float32)
    """
    return _color_matrix(images, _YIQ_TO_RGB)


def rgb_to_yuv(images):
    """Converts RGB images (last dimension 3) to YUV.

    >>> tx.image.rgb_to_yuv(tx.constant([1.0, 0.0, 0.0])).numpy()
    array([ 0.299     , -0.14714119,  0.6149754 ], dtype=float32)
    """
    return _color_matrix(images, _RGB_TO_YUV)


def yuv_to_rgb(images):
    """Converts YUV images (last dimension 3) to RGB.

    >>> tx.image.yuv_to_rgb(tx.constant([1.0, 0.0, 0.0])).numpy()
    array([1., 1., 1.], dtype=float32)
    """
    return _color_matrix(images, _YUV_TO_RGB)


def per_image_standardization(image):
    """Scales each image (the last three dimensions) to zero mean and unit variance, dividing by
    max(stddev, 1 / sqrt(number of elements)); returns float32.

    >>> tx.image.per_image_standardization(tx.constant([[[1.0], [3.0]]])).numpy()[..., 0]
    array([[-1.,  1.]], dtype=float32)
    """
    with name_scope("per_image_standardization"):
        image = to_tensor(image, name="image")
        image = with_dependencies(check_at_least_3d(image), image)
        image = array_ops.cast(image, dtypes.float32)
        num_pixels = reduce_ops.reduce_prod(shape_ops.shape(image)[-3:])
        mean = math_ops.reduce_mean(image, axis=[-1, -2, -3], keepdims=True)
        stddev = stat_ops.reduce_std(image, axis=[-1, -2, -3], keepdims=True)
        min_stddev = gen_ops.rsqrt(math_ops.cast(num_pixels, dtypes.float32))
        return math_ops.divide(image - mean, math_ops.maximum(stddev, min_stddev))
