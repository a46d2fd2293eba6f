"""Loss functions (``tx.losses.*``), Keras-style: per-example loss functions (reduce them with
tx.reduce_mean) and Keras's loss objects, which reduce over the batch with sample weights."""

from tensorflux._src.losses import (binary_crossentropy, categorical_crossentropy, categorical_hinge,
                                    cosine_similarity, hinge, huber, kl_divergence, kld, kullback_leibler_divergence,
                                    log_cosh, logcosh, mae, mape, mean_absolute_error, mean_absolute_percentage_error,
                                    mean_squared_error, mean_squared_logarithmic_error, mse, msle, poisson,
                                    sparse_categorical_crossentropy, squared_hinge)
from tensorflux._src.loss_classes import (BinaryCrossentropy, CategoricalCrossentropy, CategoricalHinge,
                                          CosineSimilarity, Hinge, Huber, KLDivergence, LogCosh, Loss,
                                          LossFunctionWrapper, MeanAbsoluteError, MeanAbsolutePercentageError,
                                          MeanSquaredError, MeanSquaredLogarithmicError, Poisson,
                                          SparseCategoricalCrossentropy, SquaredHinge, deserialize, get, serialize)
from tensorflux._src.module_getattr import module_getattr as _module_getattr

KLD, MAE, MAPE, MSE, MSLE = kld, mae, mape, mse, msle

__all__ = ["KLD", "MAE", "MAPE", "MSE", "MSLE", "BinaryCrossentropy", "CategoricalCrossentropy", "CategoricalHinge",
           "CosineSimilarity", "Hinge", "Huber",
           "KLDivergence", "LogCosh", "Loss", "LossFunctionWrapper", "MeanAbsoluteError",
           "MeanAbsolutePercentageError", "MeanSquaredError", "MeanSquaredLogarithmicError", "Poisson",
           "SparseCategoricalCrossentropy", "SquaredHinge", "binary_crossentropy", "categorical_crossentropy",
           "categorical_hinge", "cosine_similarity", "deserialize", "get", "hinge", "huber", "kl_divergence", "kld",
           "kullback_leibler_divergence", "log_cosh", "logcosh", "mae", "mape", "mean_absolute_error",
           "mean_absolute_percentage_error", "mean_squared_error", "mean_squared_logarithmic_error", "mse", "msle",
           "poisson", "serialize", "sparse_categorical_crossentropy", "squared_hinge"]

__getattr__ = _module_getattr(__name__)
