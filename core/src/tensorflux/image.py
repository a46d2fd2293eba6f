"""Image operations (``tx.image.*``, like ``tf.image``): resizing (every TensorFlow 2 method,
antialiasing), crops and pads, flips and rotations (fixed, random and stateless-random), color
conversions and adjustments, non-max suppression, crop-and-resize, patches, gradients and
quality metrics. 3-D images are [height, width, channels]; 4-D batches put the batch first.

Not provided: PNG/JPEG/GIF/BMP/WebP decoding and encoding (``decode_*``, ``encode_*``,
``adjust_jpeg_quality``, ``random_jpeg_quality``, ``is_jpeg``, ``extract_jpeg_shape``), which
need a string dtype and an image codec; ``extract_glimpse`` and
``generate_bounding_box_proposals``.
"""

from tensorflux._src.image_boxes import (combined_non_max_suppression, draw_bounding_boxes, non_max_suppression,
                                         non_max_suppression_overlaps, non_max_suppression_padded,
                                         non_max_suppression_with_scores, sample_distorted_bounding_box,
                                         stateless_sample_distorted_bounding_box)
from tensorflux._src.image_color import (adjust_brightness, adjust_contrast, adjust_gamma, adjust_hue,
                                         adjust_saturation, convert_image_dtype, grayscale_to_rgb, hsv_to_rgb,
                                         per_image_standardization, random_brightness, random_contrast, random_hue,
                                         random_saturation, rgb_to_grayscale, rgb_to_hsv, rgb_to_yiq, rgb_to_yuv,
                                         stateless_random_brightness, stateless_random_contrast, stateless_random_hue,
                                         stateless_random_saturation, yiq_to_rgb, yuv_to_rgb)
from tensorflux._src.image_geometry import (central_crop, crop_to_bounding_box, extract_patches, flip_left_right,
                                            flip_up_down, image_gradients, pad_to_bounding_box, random_crop,
                                            random_flip_left_right, random_flip_up_down, resize_with_crop_or_pad, rot90,
                                            sobel_edges, stateless_random_crop, stateless_random_flip_left_right,
                                            stateless_random_flip_up_down, total_variation, transpose)
from tensorflux._src.image_metrics import psnr, ssim, ssim_multiscale
from tensorflux._src.image_resize import ResizeMethod, crop_and_resize, resize, resize_with_pad

__all__ = [
    "ResizeMethod", "adjust_brightness", "adjust_contrast", "adjust_gamma", "adjust_hue", "adjust_saturation",
    "central_crop", "combined_non_max_suppression", "convert_image_dtype", "crop_and_resize", "crop_to_bounding_box",
    "draw_bounding_boxes",
    "extract_patches", "flip_left_right", "flip_up_down", "grayscale_to_rgb", "hsv_to_rgb", "image_gradients",
    "non_max_suppression", "non_max_suppression_overlaps", "non_max_suppression_padded",
    "non_max_suppression_with_scores", "pad_to_bounding_box",
    "per_image_standardization", "psnr", "random_brightness", "random_contrast", "random_crop",
    "random_flip_left_right", "random_flip_up_down", "random_hue", "random_saturation", "resize",
    "resize_with_crop_or_pad", "resize_with_pad", "rgb_to_grayscale", "rgb_to_hsv", "rgb_to_yiq", "rgb_to_yuv",
    "rot90", "sample_distorted_bounding_box", "sobel_edges", "ssim", "ssim_multiscale",
    "stateless_random_brightness", "stateless_random_contrast",
    "stateless_random_crop", "stateless_random_flip_left_right", "stateless_random_flip_up_down",
    "stateless_random_hue", "stateless_random_saturation", "stateless_sample_distorted_bounding_box",
    "total_variation", "transpose", "yiq_to_rgb",
    "yuv_to_rgb",
]

from tensorflux._src.module_getattr import module_getattr as _module_getattr

__getattr__ = _module_getattr(__name__)
