"""Callbacks (``tx.keras.callbacks``): the Callback interface, the list `fit` drives, History and the
progress-bar logger, and the callbacks that watch a metric (EarlyStopping, ModelCheckpoint,
ReduceLROnPlateau). Learning-rate, logging and lambda callbacks are in callbacks_more.py."""

import math
import os
import warnings

import numpy as np

from tensorflux._src.keras.progbar import Progbar


class Callback:
    """Base class: override any of the ``on_*`` hooks; ``self.model`` and ``self.params`` are set
    by `fit`/`evaluate`/`predict`. A TensorBoard callback plugs in here once the engine writes
    summaries (docs/keras.md)."""

    def __init__(self):
        self.model = None
        self.params = {}

    def set_model(self, model):
        self.model = model

    def set_params(self, params):
        self.params = params

    def on_train_begin(self, logs=None): pass
    def on_train_end(self, logs=None): pass
    def on_epoch_begin(self, epoch, logs=None): pass
    def on_epoch_end(self, epoch, logs=None): pass
    def on_train_batch_begin(self, batch, logs=None): pass
    def on_train_batch_end(self, batch, logs=None): pass
    def on_test_begin(self, logs=None): pass
    def on_test_end(self, logs=None): pass
    def on_test_batch_begin(self, batch, logs=None): pass
    def on_test_batch_end(self, batch, logs=None): pass
    def on_predict_begin(self, logs=None): pass
    def on_predict_end(self, logs=None): pass
    def on_predict_batch_begin(self, batch, logs=None): pass
    def on_predict_batch_end(self, batch, logs=None): pass

    def on_batch_begin(self, batch, logs=None):
        self.on_train_batch_begin(batch, logs)

    def on_batch_end(self, batch, logs=None):
        self.on_train_batch_end(batch, logs)


def pythonify_logs(logs):
    """Logs with tensors turned into Python floats (nested dicts flattened)."""
    out = {}
    for key, value in (logs or {}).items():
        if isinstance(value, dict):
            out.update(pythonify_logs(value))
            continue
        try:
            arr = np.asarray(value)
            out[key] = float(arr) if arr.ndim == 0 else arr
        except (TypeError, ValueError):
            out[key] = value
    return out


class CallbackList(Callback):
    """Dispatches every hook to a list of callbacks (adding History and the progress bar, as
    Keras's CallbackList does)."""

    def __init__(self, callbacks=None, add_history=False, add_progbar=False, model=None, **params):
        super().__init__()
        self.callbacks = list(callbacks or [])
        if add_progbar and not any(isinstance(c, ProgbarLogger) for c in self.callbacks):
            self.callbacks.append(ProgbarLogger())
        if add_history:
            history = next((c for c in self.callbacks if isinstance(c, History)), None)
            if history is None:
                history = History()
                self.callbacks.append(history)
            self.history = history
        if model is not None:
            self.set_model(model)
        if params:
            self.set_params(params)

    def set_model(self, model):
        super().set_model(model)
        for c in self.callbacks:
            c.set_model(model)

    def set_params(self, params):
        super().set_params(params)
        for c in self.callbacks:
            c.set_params(params)

    def _call(self, hook, *args):
        for c in self.callbacks:
            getattr(c, hook)(*args)

    def on_train_begin(self, logs=None): self._call("on_train_begin", logs)
    def on_train_end(self, logs=None): self._call("on_train_end", logs)
    def on_epoch_begin(self, epoch, logs=None): self._call("on_epoch_begin", epoch, logs)
    def on_epoch_end(self, epoch, logs=None): self._call("on_epoch_end", epoch, pythonify_logs(logs))
    def on_train_batch_begin(self, batch, logs=None): self._call("on_train_batch_begin", batch, logs)
    def on_train_batch_end(self, batch, logs=None): self._call("on_train_batch_end", batch, pythonify_logs(logs))
    def on_test_begin(self, logs=None): self._call("on_test_begin", logs)
    def on_test_end(self, logs=None): self._call("on_test_end", pythonify_logs(logs))
    def on_test_batch_begin(self, batch, logs=None): self._call("on_test_batch_begin", batch, logs)
    def on_test_batch_end(self, batch, logs=None): self._call("on_test_batch_end", batch, pythonify_logs(logs))
    def on_predict_begin(self, logs=None): self._call("on_predict_begin", logs)
    def on_predict_end(self, logs=None): self._call("on_predict_end", logs)
    def on_predict_batch_begin(self, batch, logs=None): self._call("on_predict_batch_begin", batch, logs)
    def on_predict_batch_end(self, batch, logs=None): self._call("on_predict_batch_end", batch, logs)


class History(Callback):
    """Records the epoch logs: ``history.history[name]`` is the list of values per epoch (what
    `fit` returns)."""

    def __init__(self):
        super().__init__()
        self.history = {}
        self.epoch = []

    def on_train_begin(self, logs=None):
        self.epoch = []

    def on_epoch_end(self, epoch, logs=None):
        self.epoch.append(epoch)
        for k, v in (logs or {}).items():
            self.history.setdefault(k, []).append(v)
        if self.model is not None:
            self.model.history = self


class ProgbarLogger(Callback):
    """Prints the progress bar of each epoch (and of evaluate/predict) per ``params["verbose"]``."""

    def __init__(self):
        super().__init__()
        self._bar = None
        self._mode = None

    def _verbose(self):
        return self.params.get("verbose", 1)

    def _start(self, mode):
        self._mode = mode
        self._bar = Progbar(self.params.get("steps"), verbose=self._verbose())

    def on_epoch_begin(self, epoch, logs=None):
        if self._verbose() and self.params.get("epochs", 1) > 1:
            print("Epoch %d/%d" % (epoch + 1, self.params.get("epochs", 1)), flush=True)
        self._start("train")

    def on_train_batch_end(self, batch, logs=None):
        self._bar.update(batch + 1, _values(logs), finalize=False)

    def on_epoch_end(self, epoch, logs=None):
        self._bar.update(self._bar._seen, _values(logs), finalize=True)

    def on_test_begin(self, logs=None):
        if self.model is None or not getattr(self.model, "_in_fit", False):
            self._start("test")

    def on_test_batch_end(self, batch, logs=None):
        if self._mode == "test":
            self._bar.update(batch + 1, _values(logs), finalize=False)

    def on_test_end(self, logs=None):
        if self._mode == "test":
            self._bar.update(self._bar._seen, _values(logs), finalize=True)
            self._mode = None

    def on_predict_begin(self, logs=None):
        self._start("predict")

    def on_predict_batch_end(self, batch, logs=None):
        self._bar.update(batch + 1, finalize=False)

    def on_predict_end(self, logs=None):
        self._bar.update(self._bar._seen, finalize=True)


def _values(logs):
    return sorted((k, v) for k, v in (logs or {}).items() if isinstance(v, float))


class MonitorCallback(Callback):
    """A callback that watches ``monitor`` in the epoch logs: ``mode`` "min", "max" or "auto"
    (max for accuracy-like names, min otherwise), with a ``min_delta`` of required improvement."""

    def __init__(self, monitor="val_loss", mode="auto", min_delta=0.0, baseline=None):
        super().__init__()
        if mode not in ("auto", "min", "max"):
            raise ValueError("mode must be 'auto', 'min' or 'max', got %r" % (mode,))
        self.monitor = monitor
        if mode == "auto":
            mode = "max" if any(s in monitor for s in ("acc", "auc", "precision", "recall")) and \
                "loss" not in monitor else "min"
        self.mode = mode
        self.min_delta = abs(min_delta) if mode == "max" else -abs(min_delta)
        self.baseline = baseline

    def _improved(self, current, reference):
        if reference is None:
            return True
        return current - self.min_delta > reference if self.mode == "max" else current - self.min_delta < reference

    def _current(self, logs):
        value = (logs or {}).get(self.monitor)
        if value is None:
            warnings.warn("%s: metric %r is not in the logs; available: %s"
                          % (type(self).__name__, self.monitor, ", ".join(sorted(logs or {}))), stacklevel=3)
        return value


class EarlyStopping(MonitorCallback):
    """Stops training once ``monitor`` has not improved for ``patience`` epochs; with
    ``restore_best_weights`` the model gets back the weights of the best epoch."""

    def __init__(self, monitor="val_loss", min_delta=0, patience=0, verbose=0, mode="auto", baseline=None,
                 restore_best_weights=False, start_from_epoch=0):
        super().__init__(monitor, mode, min_delta, baseline)
        self.patience, self.verbose = patience, verbose
        self.restore_best_weights, self.start_from_epoch = restore_best_weights, start_from_epoch

    def on_train_begin(self, logs=None):
        self.wait, self.stopped_epoch, self.best_epoch = 0, 0, 0
        self.best = None
        self.best_weights = None

    def on_epoch_end(self, epoch, logs=None):
        current = self._current(logs)
        if current is None or epoch < self.start_from_epoch:
            return
        if self.restore_best_weights and self.best_weights is None:
            self.best_weights = self.model.get_weights()
        self.wait += 1
        if self._improved(current, self.best):
            self.best, self.best_epoch = current, epoch
            if self.restore_best_weights:
                self.best_weights = self.model.get_weights()
            if self.baseline is None or self._improved(current, self.baseline):
                self.wait = 0
            return
        if self.wait >= self.patience and epoch > 0:
            self.stopped_epoch = epoch
            self.model.stop_training = True

    def on_train_end(self, logs=None):
        if self.stopped_epoch > 0 and self.verbose > 0:
            print("Epoch %d: early stopping" % (self.stopped_epoch + 1))
        if self.restore_best_weights and self.best_weights is not None:
            if self.verbose > 0:
                print("Restoring model weights from the end of the best epoch: %d." % (self.best_epoch + 1))
            self.model.set_weights(self.best_weights)


class ModelCheckpoint(MonitorCallback):
    """Saves the model (a ``.keras`` file) or its weights (``save_weights_only``: a safetensors
    file) at the end of each epoch (or every ``save_freq`` batches), only when ``monitor`` improved
    with ``save_best_only``. ``filepath`` may hold ``{epoch}`` and log names (``{val_loss:.2f}``).
    Each file is written to a temporary file and renamed into place."""

    def __init__(self, filepath, monitor="val_loss", verbose=0, save_best_only=False, save_weights_only=False,
                 mode="auto", save_freq="epoch", initial_value_threshold=None):
        super().__init__(monitor, mode)
        self.filepath = os.fspath(filepath)
        self.verbose, self.save_best_only, self.save_weights_only = verbose, save_best_only, save_weights_only
        if save_freq != "epoch" and not (isinstance(save_freq, int) and save_freq > 0):
            raise ValueError("Unrecognized save_freq: %r (use 'epoch' or a positive integer)" % (save_freq,))
        self.save_freq = save_freq
        if not save_weights_only and not self.filepath.endswith(".keras"):
            raise ValueError("The filepath provided must end in `.keras` (Keras model format). Received: "
                             "filepath=%s" % self.filepath)
        self.best = initial_value_threshold
        self._batches = 0
        self._epoch = 0

    def on_epoch_begin(self, epoch, logs=None):
        self._epoch = epoch

    def on_train_batch_end(self, batch, logs=None):
        if self.save_freq != "epoch":
            self._batches += 1
            if self._batches % self.save_freq == 0:
                self._save(self._epoch, logs)

    def on_epoch_end(self, epoch, logs=None):
        if self.save_freq == "epoch":
            self._save(epoch, logs)

    def _save(self, epoch, logs):
        logs = dict(logs or {})
        path = self.filepath.format(epoch=epoch + 1, **logs)
        if self.save_best_only:
            current = self._current(logs)
            if current is None or not self._improved(current, self.best):
                if self.verbose > 0 and current is not None:
                    print("\nEpoch %d: %s did not improve from %s" % (epoch + 1, self.monitor, self.best))
                return
            if self.verbose > 0:
                print("\nEpoch %d: %s improved from %s to %.5f, saving model to %s"
                      % (epoch + 1, self.monitor, self.best, current, path))
            self.best = current
        elif self.verbose > 0:
            print("\nEpoch %d: saving model to %s" % (epoch + 1, path))
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        if self.save_weights_only:
            self.model.save_weights(path)
        else:
            self.model.save(path)


class ReduceLROnPlateau(MonitorCallback):
    """Multiplies the learning rate by ``factor`` when ``monitor`` has not improved for
    ``patience`` epochs (then waits ``cooldown`` epochs), never below ``min_lr``."""

    def __init__(self, monitor="val_loss", factor=0.1, patience=10, verbose=0, mode="auto", min_delta=1e-4,
                 cooldown=0, min_lr=0.0, **kwargs):
        super().__init__(monitor, mode, min_delta)
        if factor >= 1.0:
            raise ValueError("ReduceLROnPlateau does not support a factor >= 1.0. Received factor=%r" % (factor,))
        self.factor, self.patience, self.verbose = factor, patience, verbose
        self.cooldown, self.min_lr = cooldown, min_lr
        self.wait = self.cooldown_counter = 0
        self.best = None

    def on_train_begin(self, logs=None):
        self.wait = self.cooldown_counter = 0
        self.best = None

    def on_epoch_end(self, epoch, logs=None):
        if logs is not None:
            logs["learning_rate"] = float(np.asarray(self.model.optimizer.learning_rate))
        current = self._current(logs)
        if current is None:
            return
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.wait = 0
        if self._improved(current, self.best):
            self.best = current
            self.wait = 0
            return
        if self.cooldown_counter > 0:
            return
        self.wait += 1
        if self.wait >= self.patience:
            old = float(np.asarray(self.model.optimizer.learning_rate))
            if old > self.min_lr:
                new = max(old * self.factor, self.min_lr)
                self.model.optimizer.learning_rate = new
                if self.verbose > 0:
                    print("\nEpoch %d: ReduceLROnPlateau reducing learning rate to %s." % (epoch + 1, new))
                self.cooldown_counter = self.cooldown
                self.wait = 0


def is_nan_or_inf(value):
    try:
        return math.isnan(value) or math.isinf(value)
    except TypeError:
        return False
