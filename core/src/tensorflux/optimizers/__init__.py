"""Optimizers (``tx.optimizers``): composable gradient transformations chained into optimizers,
ready-made SGD/Adam/AdamW/RMSprop/Adagrad with fused update kernels, and schedules."""

from tensorflux._src.optim.optimizer import (SGD, Adagrad, Adam, AdamW, Optimizer, RMSprop, adagrad, adam, adamw,
                                             rmsprop, sgd)
from tensorflux._src.optim.transforms import (GradientTransformation, add_decayed_weights, chain, clip,
                                              clip_by_global_norm, scale, scale_by_adam, scale_by_learning_rate,
                                              scale_by_rms, scale_by_rss, scale_by_schedule, trace)
from tensorflux.optimizers import schedules, testing

__all__ = ["Adagrad", "Adam", "AdamW", "GradientTransformation", "Optimizer", "RMSprop", "SGD", "adagrad", "adam",
           "adamw", "add_decayed_weights", "chain", "clip", "clip_by_global_norm", "rmsprop", "scale",
           "scale_by_adam", "scale_by_learning_rate", "scale_by_rms", "scale_by_rss", "scale_by_schedule",
           "schedules", "sgd", "testing", "trace"]

from tensorflux._src.module_getattr import module_getattr as _module_getattr

__getattr__ = _module_getattr(__name__)
