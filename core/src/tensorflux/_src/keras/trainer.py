"""`Trainer`: the training API of `Model` (compile, fit, evaluate, predict, the *_on_batch calls
and the overridable train/test/predict steps), as Keras 3.

Note [Traced steps]
`fit` runs `train_step` through a tx.function traced once: its arguments are the batch's tensors
flattened, with an input signature whose batch dimension is None, so the last, smaller batch runs
the same trace (a new structure of data, e.g. validation batches with sample weights, traces
another). `run_eagerly=True` calls the step directly (for debugging with print and pdb).
"""

import warnings

import numpy as np

from tensorflux._src import context as _context
from tensorflux._src import math_ops
from tensorflux._src.backprop import GradientTape
from tensorflux._src.function import TensorSpec, function
from tensorflux._src.generated import gen_ops
from tensorflux._src.keras import callbacks as callbacks_module
from tensorflux._src.keras import data_adapter, optimizers
from tensorflux._src.keras.compile_utils import CompileLoss, CompileMetrics
from tensorflux._src.keras.metrics_base import Mean, Metric
from tensorflux._src.nest import flatten, map_structure, pack_sequence_as
from tensorflux._src.keras.input_spec import InputSpec, assert_input_compatibility


class Trainer:
    """compile/fit/evaluate/predict for `Model` (Keras 3's Trainer)."""

    def _init_trainer(self):
        self.compiled = False
        self.optimizer = None
        self.loss = None
        self._compile_loss = None
        self._compile_metrics = None
        self._loss_tracker = None
        self._run_eagerly = False
        self._jit_compile = None
        self._compile_config = None
        self.stop_training = False
        self.history = None
        self._in_fit = False
        self._step_functions = {}

    # ------------------------------------------------------------------ compile
    def compile(self, optimizer="rmsprop", loss=None, loss_weights=None, metrics=None, weighted_metrics=None,
                run_eagerly=False, steps_per_execution=1, jit_compile="auto", auto_scale_loss=True):
        """Configures training: ``optimizer`` (a tx.optimizers object or a Keras name such as
        "adam"), ``loss`` (a name, function or tx.losses object; a list or dict for several
        outputs), ``loss_weights``, ``metrics`` and ``weighted_metrics`` (names or Metric objects,
        per output when lists/dicts). The train step is traced with tx.function unless
        ``run_eagerly``; ``jit_compile`` is accepted for compatibility (tracing is always on).

        >>> model = tx.keras.Sequential([tx.keras.Input((2,)), tx.keras.layers.Dense(1)])
        >>> model.compile(optimizer="sgd", loss="mse", metrics=["mae"])
        >>> model.optimizer.name
        'SGD'
        """
        if steps_per_execution != 1:
            raise NotImplementedError("tx.keras runs one step per traced call: steps_per_execution must be 1")
        self.optimizer = optimizers.get(optimizer)
        self.loss = loss
        output_names = getattr(self, "output_names", None)
        self._compile_loss = CompileLoss(loss, loss_weights, output_names) if loss is not None else None
        self._compile_metrics = CompileMetrics(metrics, weighted_metrics, output_names) \
            if (metrics or weighted_metrics) else None
        self._loss_tracker = Mean(name="loss")
        self._run_eagerly = bool(run_eagerly)
        self._jit_compile = jit_compile
        self._compile_config = {"optimizer": optimizer if isinstance(optimizer, str) else None, "loss": loss,
                                "loss_weights": loss_weights, "metrics": metrics, "weighted_metrics": weighted_metrics,
                                "run_eagerly": bool(run_eagerly), "steps_per_execution": 1, "jit_compile": False}
        self._step_functions = {}
        self.compiled = True

    @property
    def run_eagerly(self):
        return self._run_eagerly

    @run_eagerly.setter
    def run_eagerly(self, value):
        self._run_eagerly = bool(value)
        self._step_functions = {}

    @property
    def metrics(self):
        """The metrics reported in the logs: the loss tracker, the compiled metrics, the per-output
        losses, then Metric objects set as attributes of the model."""
        out = []
        if getattr(self, "compiled", False):
            if self._loss_tracker is not None:
                out.append(self._loss_tracker)
            if self._compile_metrics is not None:
                out.append(self._compile_metrics)
            if self._compile_loss is not None:
                out.extend(self._compile_loss.metrics)
        for key, value in self.__dict__.items():
            if isinstance(value, Metric) and key not in ("_loss_tracker", "_compile_metrics") and \
                    all(value is not m for m in out):
                out.append(value)
        return out

    @property
    def metrics_names(self):
        return [m.name for m in self.metrics]

    def reset_metrics(self):
        for m in self.metrics:
            m.reset_state()

    def _metrics_or_logs(self, logs):
        """The metrics' results when the step's logs report them (the usual case), else the logs the
        last step returned (a custom train_step reporting other values), as Keras."""
        results = self.get_metrics_result()
        if isinstance(logs, dict) and set(logs) != set(results):
            return logs
        return results

    def get_metrics_result(self):
        """{name: result tensor} of every metric (the compiled metrics' dict merged in)."""
        out = {}
        for m in self.metrics:
            value = m.result()
            if isinstance(value, dict):
                out.update(value)
            else:
                out[m.name] = value
        return out

    # ------------------------------------------------------------------ steps
    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
        """The training loss: the compiled loss of (y, y_pred) plus the model's `losses`
        (add_loss and weight regularization)."""
        parts = []
        if self._compile_loss is not None:
            value = self._compile_loss(y, y_pred, sample_weight)
            if value is not None:
                parts.append(value)
        parts.extend(math_ops.cast(v, "float32") for v in self.losses)
        if not parts:
            raise ValueError("No loss to compute. Provide a `loss` argument in `compile()`.")
        return parts[0] if len(parts) == 1 else gen_ops.add_n(parts)

    def compute_metrics(self, x, y, y_pred, sample_weight=None):
        """Updates the compiled metrics with a batch; returns `get_metrics_result()`."""
        if self._compile_metrics is not None:
            self._compile_metrics.update_state(y, y_pred, sample_weight)
        return self.get_metrics_result()

    def _batch_size(self, x):
        return gen_ops.shape(flatten(x)[0])[0]

    def train_step(self, data):
        """One optimizer step on a batch ``(x, y, sample_weight)``; returns the logs (metric
        results). Override it for a custom training step, as in Keras."""
        x, y, sample_weight = data_adapter.unpack_x_y_sample_weight(data)
        with GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(x=x, y=y, y_pred=y_pred, sample_weight=sample_weight, training=True)
        self._loss_tracker.update_state(loss, sample_weight=self._batch_size(x))
        variables = self.trainable_variables
        if variables:
            grads = tape.gradient(loss, variables)
            self.optimizer.apply_gradients(zip(grads, variables))
            for var, constraint in self._weight_constraints():
                var.assign(constraint(var.value()), read_value=False)
        else:
            warnings.warn("The model does not have any trainable weights.", stacklevel=2)
        return self.compute_metrics(x, y, y_pred, sample_weight=sample_weight)

    def test_step(self, data):
        """Loss and metrics of a batch without training; returns the logs."""
        x, y, sample_weight = data_adapter.unpack_x_y_sample_weight(data)
        y_pred = self(x, training=False)
        loss = self.compute_loss(x=x, y=y, y_pred=y_pred, sample_weight=sample_weight, training=False)
        self._loss_tracker.update_state(loss, sample_weight=self._batch_size(x))
        return self.compute_metrics(x, y, y_pred, sample_weight=sample_weight)

    def predict_step(self, data):
        """The model's outputs for a batch."""
        x, _, _ = data_adapter.unpack_x_y_sample_weight(data)
        return self(x, training=False)

    def _step_function(self, kind, batch):
        """The (traced) step for ``batch``'s structure (Note [Traced steps])."""
        step = {"train": self.train_step, "test": self.test_step, "predict": self.predict_step}[kind]
        if self._run_eagerly:
            return step
        leaves = flatten(batch)
        key = (kind, repr(pack_sequence_as(batch, ["*" if v is not None else "-" for v in leaves])),
               tuple((str(v.dtype), tuple(v.shape.as_list()[1:]) if v.shape.rank else ())
                     for v in leaves if v is not None))
        fn = self._step_functions.get(key)
        if fn is None:
            self._check_model_inputs(data_adapter.unpack_x_y_sample_weight(batch)[0])
            positions = [i for i, v in enumerate(leaves) if v is not None]
            specs = [TensorSpec([None] + leaves[i].shape.as_list()[1:] if leaves[i].shape.rank else [],
                                leaves[i].dtype) for i in positions]

            def flat_step(*tensors):
                filled = [None] * len(leaves)
                for i, t in zip(positions, tensors):
                    filled[i] = t
                return step(pack_sequence_as(batch, filled))
            flat_step.__name__ = "%s_function" % kind
            traced = function(flat_step, input_signature=specs)
            fn = self._step_functions[key] = lambda data: traced(*[v for v in flatten(data) if v is not None])
        return fn

    def _check_model_inputs(self, x):
        """Checks a batch's inputs against a functional or Sequential model's Inputs, with the
        batch's real shapes in the message (the traced step sees the batch size as None)."""
        specs = getattr(self, "inputs", None)
        if not specs:
            return
        flat = flatten(x)
        if isinstance(x, dict) and hasattr(self, "input_names") and all(n in x for n in self.input_names):
            flat = [x[n] for n in self.input_names]
        if len(flat) == len(specs):
            for i, (t, spec) in enumerate(zip(flat, specs)):
                try:
                    assert_input_compatibility(InputSpec(shape=spec.shape), t, self.name)
                except ValueError as e:
                    raise ValueError(str(e).replace("Input 0 ", "Input %d " % i, 1)) from None

    def _run_step(self, kind, batch):
        batch = data_adapter.to_tensors(batch)
        return self._step_function(kind, batch)(batch)

    def _check_compiled(self, what):
        if not getattr(self, "compiled", False):
            raise RuntimeError("You must call `compile()` before using the model (%s)." % what)
        if not _context.executing_eagerly():
            raise RuntimeError("%s runs eagerly (it traces its own tx.function); call it outside tx.Graph blocks"
                               % what)

    # ------------------------------------------------------------------ fit / evaluate / predict
    def fit(self, x=None, y=None, batch_size=None, epochs=1, verbose="auto", callbacks=None, validation_split=0.0,
            validation_data=None, shuffle=True, class_weight=None, sample_weight=None, initial_epoch=0,
            steps_per_epoch=None, validation_steps=None, validation_batch_size=None, validation_freq=1):
        """Trains for ``epochs`` epochs on ``x``/``y`` (arrays, tensors, lists/dicts of them, or a
        generator or dataset yielding ``(x, y[, sample_weight])`` batches) in batches of
        ``batch_size`` (32); returns the History (``history.history[metric]`` per epoch)."""
        self._check_compiled("fit")
        if validation_split and validation_data is None:
            if data_adapter.is_batch_source(x):
                raise ValueError("`validation_split` is only supported for NumPy arrays and tensors; pass "
                                 "`validation_data` with a generator or dataset.")
            if not 0.0 < validation_split < 1.0:
                raise ValueError("validation_split must be in (0, 1), got %r" % (validation_split,))
        data = data_adapter.make_data(x, y, sample_weight, batch_size, shuffle, class_weight)
        val_data = None
        if validation_split and validation_data is None:
            data, val_data = data.split(validation_split)
        elif validation_data is not None:
            if data_adapter.is_batch_source(validation_data):
                val_data = data_adapter.make_data(validation_data)
            else:
                vx, vy, vsw = data_adapter.unpack_x_y_sample_weight(validation_data)
                val_data = data_adapter.make_data(vx, vy, vsw, validation_batch_size or batch_size)
        iterator = data_adapter.EpochIterator(data, steps_per_epoch)
        verbose = 1 if verbose == "auto" else verbose
        cbs = callbacks if isinstance(callbacks, callbacks_module.CallbackList) else callbacks_module.CallbackList(
            callbacks, add_history=True, add_progbar=verbose != 0, model=self, verbose=verbose, epochs=epochs,
            steps=iterator.num_steps)
        self.stop_training = False
        self._in_fit = True
        cbs.on_train_begin()
        epoch_logs = {}
        try:
            for epoch in range(initial_epoch, epochs):
                self.reset_metrics()
                cbs.on_epoch_begin(epoch)
                logs = None
                for step, batch in iterator:
                    cbs.on_train_batch_begin(step)
                    logs = self._run_step("train", batch)
                    cbs.on_train_batch_end(step, logs)
                    if self.stop_training:
                        break
                if logs is None:
                    data_adapter.warn_ran_out(iterator.num_steps)
                    break
                epoch_logs = callbacks_module.pythonify_logs(self._metrics_or_logs(logs))
                if val_data is not None and (epoch + 1) % validation_freq == 0:
                    val_logs = self._evaluate_data(val_data, validation_steps, cbs)
                    epoch_logs.update({"val_" + k: v for k, v in val_logs.items()})
                cbs.on_epoch_end(epoch, epoch_logs)
                if iterator.ran_out:
                    data_adapter.warn_ran_out(iterator.num_steps)
                    break
                if self.stop_training:
                    break
        finally:
            self._in_fit = False
        cbs.on_train_end(epoch_logs)
        return cbs.history

    def _evaluate_data(self, data, steps, cbs):
        self.reset_metrics()
        cbs.on_test_begin()
        logs = None
        for step, batch in data_adapter.EpochIterator(data, steps):
            cbs.on_test_batch_begin(step)
            logs = self._run_step("test", batch)
            cbs.on_test_batch_end(step, logs)
        if logs is None:
            raise ValueError("evaluate: the data produced no batches")
        logs = callbacks_module.pythonify_logs(self._metrics_or_logs(logs))
        cbs.on_test_end(logs)
        return logs

    def evaluate(self, x=None, y=None, batch_size=None, verbose="auto", sample_weight=None, steps=None,
                 callbacks=None, return_dict=False):
        """The loss and metrics over the data (a scalar for a model with only a loss, else a list in
        `metrics_names` order, or a dict with ``return_dict``)."""
        self._check_compiled("evaluate")
        data = data_adapter.make_data(x, y, sample_weight, batch_size)
        verbose = 1 if verbose == "auto" else verbose
        num = data_adapter.EpochIterator(data, steps).num_steps
        cbs = callbacks if isinstance(callbacks, callbacks_module.CallbackList) else callbacks_module.CallbackList(
            callbacks, add_progbar=verbose != 0, model=self, verbose=verbose, epochs=1, steps=num)
        logs = self._evaluate_data(data, steps, cbs)
        if return_dict:
            return logs
        return self._flatten_logs(logs)

    def _flatten_logs(self, logs):
        """The logs' values in `metrics_names` order (the compiled metrics expanded); one value
        alone is returned bare."""
        names = []
        for m in self.metrics:
            if isinstance(m, CompileMetrics):
                names.extend(sub.name for sub in m.metrics)
            else:
                names.append(m.name)
        values = [logs[n] for n in names if n in logs]
        return values[0] if len(values) == 1 else values

    def predict(self, x, batch_size=None, verbose="auto", steps=None, callbacks=None):
        """The model's outputs for ``x`` as NumPy arrays (batches of ``batch_size``, 32 by
        default, concatenated)."""
        if not _context.executing_eagerly():
            raise RuntimeError("predict runs eagerly; call the model on tensors inside graphs")
        data = data_adapter.make_data(x, None, None, batch_size)
        iterator = data_adapter.EpochIterator(data, steps)
        verbose = 1 if verbose == "auto" else verbose
        cbs = callbacks if isinstance(callbacks, callbacks_module.CallbackList) else callbacks_module.CallbackList(
            callbacks, add_progbar=verbose != 0, model=self, verbose=verbose, epochs=1, steps=iterator.num_steps)
        cbs.on_predict_begin()
        outputs = []
        for step, batch in iterator:
            cbs.on_predict_batch_begin(step)
            x_batch, _, _ = data_adapter.unpack_x_y_sample_weight(batch)
            out = self._run_step("predict", (x_batch,))
            outputs.append(out)
            cbs.on_predict_batch_end(step, {"outputs": out})
        cbs.on_predict_end()
        if not outputs:
            raise ValueError("predict: the data produced no batches")
        return data_adapter.concat_outputs(outputs)

    def train_on_batch(self, x, y=None, sample_weight=None, class_weight=None, return_dict=False):
        """One training step on one batch; returns the logs like `evaluate` (metrics accumulate
        across calls until `reset_metrics`)."""
        self._check_compiled("train_on_batch")
        data = data_adapter.make_data(x, y, sample_weight, batch_size=None, class_weight=class_weight)
        batch = data_adapter.pack_x_y_sample_weight(data.x, data.y, data.sw)
        logs = callbacks_module.pythonify_logs(self._run_step("train", batch))
        return logs if return_dict else self._flatten_logs(logs)

    def test_on_batch(self, x, y=None, sample_weight=None, return_dict=False):
        """Loss and metrics of one batch (metrics accumulate across calls until `reset_metrics`)."""
        self._check_compiled("test_on_batch")
        logs = callbacks_module.pythonify_logs(self._run_step("test", data_adapter.pack_x_y_sample_weight(
            *(map_structure(data_adapter._as_numpy, v) if v is not None else None
              for v in (x, y, sample_weight)))))
        return logs if return_dict else self._flatten_logs(logs)

    def predict_on_batch(self, x):
        """The model's outputs for one batch, as NumPy arrays."""
        x = map_structure(data_adapter._as_numpy, x)
        out = self._run_step("predict", (x,))
        return map_structure(lambda t: np.asarray(t), out)
