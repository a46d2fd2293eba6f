"""What `compile` sets up: `CompileLoss` (the losses of the model's outputs, weighted and summed)
and `CompileMetrics` (the metrics of each output, reported as one dict), as in Keras 3."""

from tensorflux._src import loss_classes, math_ops
from tensorflux._src.generated import gen_ops
from tensorflux._src.keras import metrics as metrics_module
from tensorflux._src.keras.metrics_base import Mean, Metric
from tensorflux._src.nest import flatten
from tensorflux._src.constant_op import convert_to_tensor


def _per_output(spec, output_names, what):
    """``spec`` (one object, a list, or a dict by output name) as one entry per output."""
    n = len(output_names)
    if isinstance(spec, dict):
        unknown = set(spec) - set(output_names)
        if unknown:
            raise ValueError("%s keys %s do not name model outputs %s" % (what, sorted(unknown), output_names))
        return [spec.get(name) for name in output_names]
    if isinstance(spec, (list, tuple)) and not (what == "metrics" and n == 1):
        if len(spec) != n:
            raise ValueError("%s has %d entries but the model has %d outputs (%s)" % (what, len(spec), n,
                                                                                     output_names))
        return list(spec)
    return [spec] * n


def _loss_object(loss):
    if loss is None:
        return None
    obj = loss_classes.get(loss)
    if isinstance(obj, loss_classes.Loss):
        return obj
    if callable(obj):
        return loss_classes.LossFunctionWrapper(obj, name=getattr(obj, "__name__", None))
    raise ValueError("Could not interpret loss: %r" % (loss,))


class CompileLoss:
    """The training loss: the sum over outputs of weight * loss(y_true, y_pred, sample_weight)."""

    def __init__(self, loss, loss_weights=None, output_names=None):
        self._loss, self._loss_weights = loss, loss_weights
        self.output_names = output_names
        self._built = False
        self.metrics = []

    def build(self, y_true, y_pred):
        names = self.output_names or ["output_%d" % i for i in range(len(flatten(y_pred)))]
        if len(names) != len(flatten(y_pred)):
            names = ["output_%d" % i for i in range(len(flatten(y_pred)))]
        self.output_names = names
        losses = self._loss
        if isinstance(losses, (list, tuple)) and len(names) == 1 and len(losses) == 1:
            losses = losses[0]
        self._losses = [_loss_object(v) for v in _per_output(losses, names, "loss")]
        weights = self._loss_weights
        self._weights = [1.0 if w is None else float(w)
                         for w in (_per_output(weights, names, "loss_weights") if weights is not None
                                   else [None] * len(names))]
        if len(names) > 1:
            self.metrics = [Mean(name="%s_loss" % name) for name, fn in zip(names, self._losses) if fn is not None]
        self._built = True

    def __call__(self, y_true, y_pred, sample_weight=None):
        if not self._built:
            self.build(y_true, y_pred)
        flat_pred = flatten(y_pred)
        flat_true = _align(y_true, y_pred, self.output_names, "y")
        flat_sw = _align(sample_weight, y_pred, self.output_names, "sample_weight") if sample_weight is not None \
            else [None] * len(flat_pred)
        total, trackers = None, iter(self.metrics)
        for fn, w, yt, yp, sw in zip(self._losses, self._weights, flat_true, flat_pred, flat_sw):
            if fn is None:
                continue
            if yt is None:
                raise ValueError("The model has a loss for output %d but no target was given for it"
                                 % flat_pred.index(yp))
            value = math_ops.cast(fn(yt, yp, sw), "float32")
            if self.metrics:
                next(trackers).update_state(value, sample_weight=gen_ops.shape(yp)[0])
            value = value * w if w != 1.0 else value
            total = value if total is None else total + value
        return total

    def get_config(self):
        return {"loss": self._loss, "loss_weights": self._loss_weights}


def _align(values, y_pred, names, what):
    """``values`` (targets or weights, one per output: a structure like y_pred, a list, or a dict
    by output name) as a flat list aligned with the outputs."""
    flat_pred = flatten(y_pred)
    if isinstance(values, dict) and not isinstance(y_pred, dict):
        return [values.get(n) for n in names]
    if isinstance(values, dict) and isinstance(y_pred, dict):
        return [values.get(k) for k in sorted(y_pred)]
    if len(flat_pred) == 1:
        return [values]
    flat = flatten(values) if isinstance(values, (list, tuple)) else [values]
    if len(flat) != len(flat_pred):
        raise ValueError("%s has %d entries but the model has %d outputs" % (what, len(flat), len(flat_pred)))
    return flat


def _resolve_metric(identifier, y_true, y_pred):
    if identifier is None:
        return None
    if isinstance(identifier, str) and identifier.lower() in ("accuracy", "acc"):
        pred_rank, true_rank = y_pred.shape.rank, y_true.shape.rank
        last = y_pred.shape.as_list()[-1] if pred_rank else None
        true_last = y_true.shape.as_list()[-1] if true_rank else None
        if last == 1 or pred_rank == 1:
            return metrics_module.BinaryAccuracy(name=identifier)
        if true_rank is not None and pred_rank is not None and (true_rank == pred_rank - 1 or
                                                               (true_rank == pred_rank and true_last == 1)):
            return metrics_module.SparseCategoricalAccuracy(name=identifier)
        return metrics_module.CategoricalAccuracy(name=identifier)
    return metrics_module.get(identifier)


class CompileMetrics(Metric):
    """The compiled metrics of every output; ``result()`` is a dict {name: value} (names prefixed
    by the output's name when the model has several outputs)."""

    def __init__(self, metrics, weighted_metrics, output_names=None):
        super().__init__(name="compile_metrics")
        self._user_metrics, self._user_weighted = metrics, weighted_metrics
        self.output_names = output_names
        self.built = False
        self._metrics, self._weighted = [], []

    def build(self, y_true, y_pred):
        flat_pred = [convert_to_tensor(p) for p in flatten(y_pred)]
        names = self.output_names if self.output_names and len(self.output_names) == len(flat_pred) else \
            ["output_%d" % i for i in range(len(flat_pred))]
        flat_true = _align(y_true, y_pred, names, "y")
        prefix = len(flat_pred) > 1

        def make(spec):
            out = []
            for i, (entry, yt, yp) in enumerate(zip(_per_output(spec, names, "metrics") if spec is not None
                                                    else [None] * len(names), flat_true, flat_pred)):
                group = []
                for ident in (entry if isinstance(entry, (list, tuple)) else [entry] if entry is not None else []):
                    m = _resolve_metric(ident, convert_to_tensor(yt), yp)
                    if prefix:
                        m.name = "%s_%s" % (names[i], m.name)
                    group.append(m)
                out.append(group)
            return out
        self._metrics = make(self._user_metrics)
        self._weighted = make(self._user_weighted)
        self.built = True

    @property
    def metrics(self):
        return [m for group in self._metrics + self._weighted for m in group]

    @property
    def variables(self):
        return [v for m in self.metrics for v in m.variables]

    def update_state(self, y_true, y_pred, sample_weight=None):
        if not self.built:
            self.build(y_true, y_pred)
        names = self.output_names or []
        flat_pred = flatten(y_pred)
        flat_true = _align(y_true, y_pred, names, "y")
        flat_sw = _align(sample_weight, y_pred, names, "sample_weight") if sample_weight is not None \
            else [None] * len(flat_pred)
        for group, yt, yp in zip(self._metrics, flat_true, flat_pred):
            for m in group:
                m.update_state(yt, yp)
        for group, yt, yp, sw in zip(self._weighted, flat_true, flat_pred, flat_sw):
            for m in group:
                m.update_state(yt, yp, sample_weight=sw)

    def result(self):
        return {m.name: m.result() for m in self.metrics}

    def reset_state(self):
        for m in self.metrics:
            m.reset_state()

    def get_config(self):
        return {"metrics": self._user_metrics, "weighted_metrics": self._user_weighted}
