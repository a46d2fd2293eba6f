"""Saving and loading: ``.keras`` files (a zip of Keras 3's ``config.json`` and ``metadata.json``
with the weights as ``model.weights.safetensors``), weights files (safetensors), and Keras 3's own
``.keras`` / ``.weights.h5`` files (read).

Every file is written to a temporary file in the target's directory and renamed into place, so a
failed save (a layer that cannot be serialized, a full disk) leaves nothing partial behind; every
load checks names and shapes before assigning anything.
"""

import datetime
import io
import json
import os
import tempfile
import threading
import warnings
import zipfile
import zlib

import numpy as np

from tensorflux._src import safetensors_io
from tensorflux._src.keras import metrics as metrics_module
from tensorflux._src.keras import optimizers
from tensorflux._src import context as _context
from tensorflux._src import loss_classes
from tensorflux._src.keras import serialization
from tensorflux._src.keras.weight_paths import (layer_paths, layer_weight_paths, load_own_values, own_values,
                                                read_h5_weights)
from tensorflux._src.keras.functional import deserialize_layer, serialize_layer

_CONFIG, _METADATA = "config.json", "metadata.json"
_WEIGHTS, _WEIGHTS_H5 = "model.weights.safetensors", "model.weights.h5"
_ASSETS = "assets"
FORMAT = "tensorflux-keras-v1"
_state = threading.local()


def safe_mode():
    """Whether loading may run code from a file (Lambda layers): False only inside
    ``load_model(..., safe_mode=False)``."""
    return getattr(_state, "safe_mode", True)


def loading_in_safe_mode():
    """Whether a ``load_model`` with ``safe_mode=True`` is running (files outside the archive,
    such as a lookup's vocabulary path, are refused then, as in Keras)."""
    return getattr(_state, "loading", False) and safe_mode()


# ---------------------------------------------------------------------------- configs
def model_config(model, with_compile=True):
    entry = serialize_layer(model)
    if with_compile:
        compiled = model.get_compile_config()
        entry["compile_config"] = compiled if compiled is not None else {}
    return entry


def _serialize_metric(m):
    if m is None or isinstance(m, str):
        return m
    if isinstance(m, (list, tuple)):
        return [_serialize_metric(x) for x in m]
    if isinstance(m, dict):
        return {k: _serialize_metric(v) for k, v in m.items()}
    if isinstance(m, metrics_module.Metric):
        return metrics_module.serialize(m)
    registered = getattr(m, "_registered_name", None)
    if registered:
        return registered
    raise ValueError("metric %r cannot be saved: use a name, a tx.keras metric, or register it" % (m,))


def _serialize_loss(loss):
    if loss is None or isinstance(loss, str):
        return loss
    if isinstance(loss, (list, tuple)):
        return [_serialize_loss(x) for x in loss]
    if isinstance(loss, dict):
        return {k: _serialize_loss(v) for k, v in loss.items()}
    return loss_classes.serialize(loss)


def compile_config(model):
    cfg = model._compile_config
    return {"optimizer": optimizers.serialize(model.optimizer), "loss": _serialize_loss(cfg["loss"]),
            "loss_weights": cfg["loss_weights"], "metrics": _serialize_metric(cfg["metrics"]),
            "weighted_metrics": _serialize_metric(cfg["weighted_metrics"]), "run_eagerly": cfg["run_eagerly"],
            "steps_per_execution": 1, "jit_compile": False}


def _deserialize_tree(value, fn):
    if isinstance(value, list):
        return [_deserialize_tree(v, fn) for v in value]
    if isinstance(value, dict) and "class_name" not in value:
        return {k: _deserialize_tree(v, fn) for k, v in value.items()}
    return fn(value)


def _compile_from_config(model, config, custom_objects):
    opt = config.get("optimizer")
    optimizer = optimizers.deserialize(opt) if isinstance(opt, dict) else optimizers.get(opt or "rmsprop")
    loss = _deserialize_tree(config.get("loss"), lambda v: loss_classes.deserialize(v, custom_objects)
                             if v is not None else None)
    metrics = _deserialize_tree(config.get("metrics"), lambda v: v if isinstance(v, str) or v is None
                                else metrics_module.deserialize(v, custom_objects))
    weighted = _deserialize_tree(config.get("weighted_metrics"), lambda v: v if isinstance(v, str) or v is None
                                 else metrics_module.deserialize(v, custom_objects))
    model.compile(optimizer=optimizer, loss=loss, loss_weights=config.get("loss_weights"), metrics=metrics,
                  weighted_metrics=weighted, run_eagerly=config.get("run_eagerly", False))


# ---------------------------------------------------------------------------- atomic writes
class _AtomicFile:
    """A temporary path next to ``path``, renamed over it on success and removed on failure."""

    def __init__(self, path, overwrite=True):
        self.path = os.fspath(path)
        if not overwrite and os.path.exists(self.path):
            raise FileExistsError("%s exists and overwrite=False" % self.path)
        directory = os.path.dirname(os.path.abspath(self.path))
        os.makedirs(directory, exist_ok=True)
        fd, self.tmp = tempfile.mkstemp(prefix=".%s." % os.path.basename(self.path), suffix=".tmp", dir=directory)
        os.close(fd)

    def __enter__(self):
        return self.tmp

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            os.replace(self.tmp, self.path)
        elif os.path.exists(self.tmp):
            os.remove(self.tmp)


def _safetensors_bytes(values):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, _WEIGHTS)
        safetensors_io.save_file(values, path, metadata={"format": FORMAT})
        with open(path, "rb") as f:
            return f.read()


def _load_safetensors_bytes(data):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, _WEIGHTS)
        with open(path, "wb") as f:
            f.write(data)
        return safetensors_io.load_file(path)


def _model_values(model, with_optimizer):
    values = {path: np.asarray(v.numpy()) for path, v in layer_weight_paths(model).items()}
    values.update(own_values(model))
    opt = getattr(model, "optimizer", None)
    if with_optimizer and opt is not None and opt._iterations is not None:
        for i, v in enumerate(opt.variables()):
            values["optimizer/vars/%d" % i] = np.asarray(v.numpy())
    return values


# ---------------------------------------------------------------------------- save / load
def save_model(model, filepath, overwrite=True):
    """``model.save``: config (first, so an unserializable layer fails before anything is
    written), weights and optimizer state into one zip, atomically."""
    filepath = os.fspath(filepath)
    if not filepath.endswith(".keras"):
        raise ValueError("Invalid filepath extension for saving. Please add the `.keras` extension (tx.keras "
                         "writes Keras 3's zip format). Received: filepath=%s" % filepath)
    config = json.dumps(model_config(model))
    metadata = json.dumps({"keras_version": "3.15.1", "date_saved": datetime.datetime.now().strftime(
        "%Y-%m-%d@%H:%M:%S"), "saved_by": "tensorflux", "weights_format": FORMAT})
    weights = _safetensors_bytes(_model_values(model, with_optimizer=True))
    assets = _model_assets(model)
    with _AtomicFile(filepath, overwrite) as tmp:
        with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_STORED) as zf:
            zf.writestr(_METADATA, metadata)
            zf.writestr(_CONFIG, config)
            zf.writestr(_WEIGHTS, weights)
            for name, text in assets.items():
                zf.writestr(name, text)


def _model_assets(model):
    """{zip entry: text} of the layers' assets (a lookup's learned vocabulary), where Keras 3 puts
    them: ``assets/<layer path>/<file>``."""
    out = {}
    for path, layer in layer_paths(model).items():
        if hasattr(layer, "save_assets"):
            for name, text in layer.save_assets().items():
                out["%s/%s" % (_ASSETS + ("/" + path if path else ""), name)] = text
    return out


def _load_assets(model, assets):
    """Gives each layer with ``load_assets`` its files of ``assets`` ({zip entry: text})."""
    for path, layer in layer_paths(model).items():
        if hasattr(layer, "load_assets"):
            prefix = _ASSETS + ("/" + path if path else "") + "/"
            files = {k[len(prefix):]: v for k, v in assets.items() if k.startswith(prefix) and "/" not in
                     k[len(prefix):]}
            layer.load_assets(files)


def _read_archive(filepath):
    """(config dict, weights {path: array}) of a .keras file; ValueError when it is not a valid one."""
    filepath = os.fspath(filepath)
    if not os.path.exists(filepath):
        raise ValueError("File not found: filepath=%s. Please ensure the file is an accessible `.keras` zip file."
                         % filepath)
    try:
        with zipfile.ZipFile(filepath, "r") as zf:
            names = set(zf.namelist())
            if _CONFIG not in names:
                raise ValueError("%s is not a .keras model file: it has no %s" % (filepath, _CONFIG))
            config = json.loads(zf.read(_CONFIG).decode("utf-8"))
            if _WEIGHTS in names:
                weights = _load_safetensors_bytes(zf.read(_WEIGHTS))
            elif _WEIGHTS_H5 in names:
                with zf.open(_WEIGHTS_H5) as f:
                    weights = read_h5_weights(io.BytesIO(f.read()))
            else:
                raise ValueError("%s has no weights (expected %s or %s)" % (filepath, _WEIGHTS, _WEIGHTS_H5))
            assets = {n: zf.read(n).decode("utf-8") for n in names if n.startswith(_ASSETS + "/")
                      and not n.endswith("/")}
    except (zipfile.BadZipFile, zlib.error, EOFError, json.JSONDecodeError, UnicodeDecodeError, OSError) as e:
        raise ValueError("Cannot read %s as a .keras file (truncated or corrupt?): %s" % (filepath, e)) from e
    return config, weights, assets


def load_model(filepath, custom_objects=None, compile=True, safe_mode=True):  # noqa: A002 (Keras's name)
    """The model in a ``.keras`` file (written by tx.keras or by Keras 3), with its weights and,
    when ``compile``, its compile configuration and optimizer state.

    >>> import tempfile, os
    >>> model = tx.keras.Sequential([tx.keras.Input((2,)), tx.keras.layers.Dense(1)])
    >>> path = os.path.join(tempfile.mkdtemp(), "m.keras")
    >>> model.save(path)
    >>> again = tx.keras.models.load_model(path)
    >>> bool(np.allclose(again.predict(np.ones((1, 2)), verbose=0), model.predict(np.ones((1, 2)), verbose=0)))
    True
    """
    filepath = os.fspath(filepath)
    if not filepath.endswith(".keras") and not zipfile.is_zipfile(filepath):
        raise ValueError("File format not supported: filepath=%s. tx.keras loads `.keras` files (Keras 3's zip "
                         "format); legacy HDF5 and SavedModel files are not supported." % filepath)
    config, weights, assets = _read_archive(filepath)
    previous = safe_mode_flag = getattr(_state, "safe_mode", True)
    _state.safe_mode = bool(safe_mode) and safe_mode_flag
    loading, _state.loading = getattr(_state, "loading", False), True
    try:
        with serialization.custom_object_scope(custom_objects):
            model = deserialize_layer(config, custom_objects)
            _assign(model, weights, filepath, skip_mismatch=False)
            _load_assets(model, assets)
            compile_cfg = config.get("compile_config")
            if compile and compile_cfg:
                _compile_from_config(model, compile_cfg, custom_objects)
                _restore_optimizer(model, weights)
    finally:
        _state.safe_mode, _state.loading = previous, loading
    return model


def _restore_optimizer(model, weights):
    keys = sorted((k for k in weights if k.startswith("optimizer/vars/")), key=lambda k: int(k.rsplit("/", 1)[1]))
    if not keys or not any(k.endswith("/0") for k in keys):
        return
    opt = model.optimizer
    try:
        opt.build(model.trainable_variables)
        variables = opt.variables()
    except (TypeError, ValueError):
        return
    if len(variables) != len(keys) or any(tuple(v.shape.as_list()) != weights[k].shape
                                          for v, k in zip(variables, keys)):
        warnings.warn("The optimizer state in the file does not fit the compiled optimizer; it starts fresh.",
                      stacklevel=3)
        return
    for v, k in zip(variables, keys):
        v.assign(weights[k].astype(v.dtype.as_numpy_dtype), read_value=False)


def _assign(model, weights, source, skip_mismatch):
    """Checks every weight of ``model`` against ``weights`` (by path), then assigns them all."""
    if not model.built:
        raise ValueError("Model %s must be built before loading weights into it (call it on data or build it)"
                         % model.name)
    paths = layer_weight_paths(model)
    problems, assign = [], []
    for path, var in paths.items():
        value = weights.get(path)
        if value is None:
            problems.append("%s (weight %s of shape %s) is missing from the file" % (path, var.name,
                                                                                    tuple(var.shape.as_list())))
            continue
        if tuple(var.shape.as_list()) != tuple(value.shape):
            if skip_mismatch:
                warnings.warn("Skipping %s: the file has shape %s, weight %s has shape %s"
                              % (path, tuple(value.shape), var.name, tuple(var.shape.as_list())), stacklevel=3)
                continue
            problems.append("%s: the file has shape %s, but weight %s has shape %s"
                            % (path, tuple(value.shape), var.name, tuple(var.shape.as_list())))
            continue
        assign.append((var, value))
    used = load_own_values(model, weights, apply=False)
    extra = sorted(k for k in weights if k not in paths and k not in used and not k.startswith("optimizer/"))
    if extra and not skip_mismatch:
        problems.append("the file has weights the model does not: %s" % ", ".join(extra[:20]) +
                        (" ..." if len(extra) > 20 else ""))
    if problems:
        raise ValueError("The weights in %s do not fit model '%s':\n  %s" % (source, model.name,
                                                                            "\n  ".join(problems)))
    with _context.init_scope():
        for var, value in assign:
            var.assign(value.astype(var.dtype.as_numpy_dtype, copy=False), read_value=False)
    load_own_values(model, weights)


def save_weights(model, filepath, overwrite=True):
    """``model.save_weights``: the weights as one safetensors file, written atomically."""
    filepath = os.fspath(filepath)
    if filepath.endswith(".keras"):
        raise ValueError("save_weights writes a weights file; use model.save() for a .keras file (got %s)"
                         % filepath)
    if filepath.endswith(".h5"):
        raise ValueError("tx.keras writes weights as safetensors: use a name like 'model.weights.safetensors' "
                         "(got %s)" % filepath)
    values = _model_values(model, with_optimizer=False)
    with _AtomicFile(filepath, overwrite) as tmp:
        safetensors_io.save_file(values, tmp, metadata={"format": FORMAT})


def load_weights(model, filepath, skip_mismatch=False):
    """``model.load_weights``: from a safetensors weights file, a ``.keras`` file, or Keras 3's
    ``.weights.h5``."""
    filepath = os.fspath(filepath)
    if filepath.endswith(".keras"):
        _, weights, _ = _read_archive(filepath)
    elif filepath.endswith(".h5"):
        weights = read_h5_weights(filepath)
    else:
        if not os.path.exists(filepath):
            raise ValueError("File not found: %s" % filepath)
        weights = safetensors_io.load_file(filepath)
    _assign(model, weights, filepath, skip_mismatch)
