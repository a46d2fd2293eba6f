"""LearningRateScheduler, CSVLogger, TerminateOnNaN and LambdaCallback."""

import csv
import os

import numpy as np

from tensorflux._src.keras.callbacks import Callback, is_nan_or_inf


class LearningRateScheduler(Callback):
    """Sets the learning rate at the start of each epoch to ``schedule(epoch, lr)`` (or
    ``schedule(epoch)``), as Keras; the rate appears in the epoch logs as ``learning_rate``."""

    def __init__(self, schedule, verbose=0):
        super().__init__()
        self.schedule, self.verbose = schedule, verbose

    def on_epoch_begin(self, epoch, logs=None):
        lr = float(np.asarray(self.model.optimizer.learning_rate))
        try:
            new = self.schedule(epoch, lr)
        except TypeError:
            new = self.schedule(epoch)
        new = float(np.asarray(new))
        if not np.isfinite(new):
            raise ValueError("The output of the schedule function should be a finite float, got %r" % (new,))
        self.model.optimizer.learning_rate = new
        if self.verbose > 0:
            print("\nEpoch %d: LearningRateScheduler setting learning rate to %s." % (epoch + 1, new))

    def on_epoch_end(self, epoch, logs=None):
        if logs is not None:
            logs["learning_rate"] = float(np.asarray(self.model.optimizer.learning_rate))


class TerminateOnNaN(Callback):
    """Stops training as soon as a batch's loss is NaN or infinite."""

    def on_train_batch_end(self, batch, logs=None):
        loss = (logs or {}).get("loss")
        if loss is not None and is_nan_or_inf(loss):
            print("Batch %d: Invalid loss, terminating training" % batch)
            self.model.stop_training = True


class CSVLogger(Callback):
    """Writes one CSV row per epoch (``epoch`` then the logs' keys, sorted) to ``filename``;
    ``append`` continues an existing file."""

    def __init__(self, filename, separator=",", append=False):
        super().__init__()
        self.filename, self.sep, self.append = os.fspath(filename), separator, append
        self._file = self._writer = self._keys = None

    def on_train_begin(self, logs=None):
        exists = self.append and os.path.exists(self.filename) and os.path.getsize(self.filename) > 0
        self._file = open(self.filename, "a" if self.append else "w", newline="")
        self._has_header = exists

    def on_epoch_end(self, epoch, logs=None):
        logs = dict(logs or {})
        if self._keys is None:
            self._keys = sorted(logs)
            self._writer = csv.DictWriter(self._file, fieldnames=["epoch"] + self._keys, delimiter=self.sep)
            if not self._has_header:
                self._writer.writeheader()
        row = {"epoch": epoch}
        row.update({k: logs.get(k, "NA") for k in self._keys})
        self._writer.writerow(row)
        self._file.flush()

    def on_train_end(self, logs=None):
        if self._file is not None:
            self._file.close()
            self._file = None
        self._writer = self._keys = None


class LambdaCallback(Callback):
    """A callback from functions: ``on_epoch_begin(epoch, logs)``, ``on_epoch_end``,
    ``on_train_batch_begin(batch, logs)``, ``on_train_batch_end``, ``on_train_begin(logs)``,
    ``on_train_end`` (and the other hooks by their names)."""

    def __init__(self, on_epoch_begin=None, on_epoch_end=None, on_train_begin=None, on_train_end=None,
                 on_train_batch_begin=None, on_train_batch_end=None, **kwargs):
        super().__init__()
        hooks = dict(on_epoch_begin=on_epoch_begin, on_epoch_end=on_epoch_end, on_train_begin=on_train_begin,
                     on_train_end=on_train_end, on_train_batch_begin=on_train_batch_begin,
                     on_train_batch_end=on_train_batch_end)
        for name, fn in kwargs.items():
            if not hasattr(Callback, name) or not name.startswith("on_"):
                raise TypeError("LambdaCallback got an unknown hook %r" % name)
            hooks[name] = fn
        for name, fn in hooks.items():
            if fn is not None:
                setattr(self, name, fn)
