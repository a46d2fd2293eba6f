"""``txp.math``: numerically careful special functions and matrix helpers the distributions and
bijectors share (TFP's ``tfp.math`` names)."""

from tensorflux_probability.math.special import (lbeta, log1mexp, log_add_exp, log_combinations, log_cosh,
                                                 log_ndtr, log_sub_exp, ndtr, softplus_inverse)
from tensorflux_probability.math.linalg import fill_triangular, fill_triangular_inverse, lower_triangular_size

__all__ = ["fill_triangular", "fill_triangular_inverse", "lbeta", "log1mexp", "log_add_exp", "log_combinations",
           "log_cosh", "log_ndtr", "log_sub_exp", "lower_triangular_size", "ndtr", "softplus_inverse"]
