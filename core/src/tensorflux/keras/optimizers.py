"""``tx.keras.optimizers``: the optimizers of tx.optimizers (Keras's names), their schedules, and
get/serialize/deserialize of Keras configs."""

from tensorflux._src.keras.optimizers import deserialize, get, serialize
from tensorflux._src.optim.optimizer import SGD, Adagrad, Adam, AdamW, Optimizer, RMSprop
from tensorflux.optimizers import schedules

__all__ = ["Adagrad", "Adam", "AdamW", "Optimizer", "RMSprop", "SGD", "deserialize", "get", "schedules", "serialize"]

from tensorflux._src.module_getattr import module_getattr as _module_getattr

__getattr__ = _module_getattr(__name__)
