"""``tx.keras.callbacks``: hooks into fit/evaluate/predict."""

from tensorflux._src.keras.callbacks import (Callback, CallbackList, EarlyStopping, History, ModelCheckpoint,
                                             ProgbarLogger, ReduceLROnPlateau)
from tensorflux._src.keras.callbacks_more import CSVLogger, LambdaCallback, LearningRateScheduler, TerminateOnNaN

__all__ = ["CSVLogger", "Callback", "CallbackList", "EarlyStopping", "History", "LambdaCallback",
           "LearningRateScheduler", "ModelCheckpoint", "ProgbarLogger", "ReduceLROnPlateau", "TerminateOnNaN"]

from tensorflux._src.module_getattr import module_getattr as _module_getattr

__getattr__ = _module_getattr(__name__)
