"""Confusion-matrix metrics: Precision, Recall and AUC (ROC or PR), accumulated per threshold in
Variables as Keras does."""

from tensorflux._src import math_ops
from tensorflux._src.constant_op import constant, convert_to_tensor
from tensorflux._src.generated import gen_ops
from tensorflux._src.keras import serialization
from tensorflux._src.keras.metrics_base import Metric, _to_rank

_EPSILON = 1e-7


def _confusion_update(metric, y_true, y_pred, sample_weight, thresholds, class_id, which):
    """Adds the weighted counts of ``which`` (subset of tp, fp, tn, fn) per threshold."""
    y_true = math_ops.cast(convert_to_tensor(y_true), "float32")
    y_pred = math_ops.cast(convert_to_tensor(y_pred), "float32")
    if y_true.shape.rank is not None and y_pred.shape.rank is not None:
        y_true = _to_rank(y_true, y_pred.shape.rank)
    if class_id is not None:
        y_true = y_true[..., class_id]
        y_pred = y_pred[..., class_id]
    labels = gen_ops.reshape(gen_ops.greater(y_true, 0.5), [1, -1])
    preds = gen_ops.reshape(y_pred, [1, -1])
    thr = gen_ops.reshape(constant(thresholds, dtype="float32"), [-1, 1])
    above = gen_ops.greater(preds, thr)  # [T, N]
    if sample_weight is not None:
        sw = math_ops.cast(convert_to_tensor(sample_weight), "float32")
        sw = gen_ops.broadcast_to(_to_rank(sw, y_true.shape.rank or 1), gen_ops.shape(y_true))
        weights = gen_ops.reshape(sw, [1, -1])
    else:
        weights = None
    not_labels, below = gen_ops.logical_not(labels), gen_ops.logical_not(above)
    conditions = {"tp": (labels, above), "fp": (not_labels, above), "tn": (not_labels, below),
                  "fn": (labels, below)}
    for key in which:
        a, b = conditions[key]
        hits = math_ops.cast(gen_ops.logical_and(a, b), "float32")
        if weights is not None:
            hits = hits * weights
        getattr(metric, key).assign_add(math_ops.reduce_sum(hits, axis=1), read_value=False)


def _thresholds(thresholds, default):
    if thresholds is None:
        return [default]
    return [float(t) for t in (thresholds if isinstance(thresholds, (list, tuple)) else [thresholds])]


class _PrecisionRecall(Metric):
    _KIND = None

    def __init__(self, thresholds=None, top_k=None, class_id=None, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        if top_k is not None:
            raise NotImplementedError("%s(top_k=...) is not supported by tx.keras" % type(self).__name__)
        self.init_thresholds = thresholds
        self.thresholds = _thresholds(thresholds, 0.5)
        self.class_id = class_id
        n = len(self.thresholds)
        second = "fp" if self._KIND == "precision" else "fn"
        self.tp = self.add_variable(shape=(n,), name="true_positives")
        setattr(self, second, self.add_variable(shape=(n,), name="false_positives" if second == "fp"
                                                else "false_negatives"))
        self._second = second

    def update_state(self, y_true, y_pred, sample_weight=None):
        _confusion_update(self, y_true, y_pred, sample_weight, self.thresholds, self.class_id, ("tp", self._second))

    def result(self):
        tp = self.tp.value()
        value = gen_ops.div_no_nan(tp, tp + getattr(self, self._second).value())
        return value[0] if len(self.thresholds) == 1 else value

    def get_config(self):
        return dict(super().get_config(), thresholds=self.init_thresholds, top_k=None, class_id=self.class_id)


@serialization.register("metrics")
class Precision(_PrecisionRecall):
    """true positives / (true positives + false positives) at each threshold (0.5 by default).

    >>> m = tx.keras.metrics.Precision()
    >>> m.update_state([0, 1, 1, 1], [1, 0, 1, 1])
    >>> round(float(m.result()), 4)
    0.6667
    """
    _KIND = "precision"


@serialization.register("metrics")
class Recall(_PrecisionRecall):
    """true positives / (true positives + false negatives) at each threshold (0.5 by default)."""
    _KIND = "recall"


class _Count(Metric):
    """The weighted count of one confusion-matrix cell at each threshold (0.5 by default)."""

    _CELL = None

    def __init__(self, thresholds=None, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.init_thresholds = thresholds
        self.thresholds = _thresholds(thresholds, 0.5)
        setattr(self, self._CELL, self.add_variable(shape=(len(self.thresholds),), name="accumulator"))

    def update_state(self, y_true, y_pred, sample_weight=None):
        _confusion_update(self, y_true, y_pred, sample_weight, self.thresholds, None, (self._CELL,))

    def result(self):
        value = getattr(self, self._CELL).value()
        return value[0] if len(self.thresholds) == 1 else value

    def get_config(self):
        return dict(super().get_config(), thresholds=self.init_thresholds)


def _count_class(name, cell, doc):
    cls = type(name, (_Count,), {"_CELL": cell, "__doc__": doc, "__module__": __name__})
    return serialization.register("metrics")(cls)


TruePositives = _count_class("TruePositives", "tp", "The weighted number of true positives.")
FalsePositives = _count_class("FalsePositives", "fp", "The weighted number of false positives.")
TrueNegatives = _count_class("TrueNegatives", "tn", "The weighted number of true negatives.")
FalseNegatives = _count_class("FalseNegatives", "fn", "The weighted number of false negatives.")


@serialization.register("metrics")
class AUC(Metric):
    """Area under the ROC or PR curve, from confusion counts at ``num_thresholds`` thresholds evenly
    spaced in [0, 1], summed by trapezoids ("interpolation"; for PR, Davis & Goadrich's
    interpolation), "minoring" or "majoring", as Keras.

    >>> m = tx.keras.metrics.AUC(num_thresholds=3)
    >>> m.update_state([0, 0, 1, 1], [0.0, 0.5, 0.3, 0.9])
    >>> round(float(m.result()), 4)
    0.75
    """

    def __init__(self, num_thresholds=200, curve="ROC", summation_method="interpolation", name=None, dtype=None,
                 thresholds=None, multi_label=False, num_labels=None, label_weights=None, from_logits=False):
        super().__init__(name=name or "auc", dtype=dtype)
        if curve not in ("ROC", "PR"):
            raise ValueError('AUC curve must be "ROC" or "PR", got %r' % (curve,))
        if summation_method not in ("interpolation", "minoring", "majoring"):
            raise ValueError("AUC summation_method must be interpolation, minoring or majoring, got %r"
                             % (summation_method,))
        if multi_label or label_weights is not None:
            raise NotImplementedError("AUC(multi_label=True / label_weights) is not supported by tx.keras")
        if thresholds is not None:
            inner = sorted(float(t) for t in thresholds)
            num_thresholds = len(inner) + 2
        else:
            if num_thresholds <= 1:
                raise ValueError("AUC num_thresholds must be > 1, got %r" % (num_thresholds,))
            inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
        self.num_thresholds, self.curve, self.summation_method = num_thresholds, curve, summation_method
        self._init_thresholds = thresholds
        self.from_logits = from_logits
        self.thresholds = [0.0 - _EPSILON] + inner + [1.0 + _EPSILON]
        n = len(self.thresholds)
        self.tp = self.add_variable(shape=(n,), name="true_positives")
        self.fp = self.add_variable(shape=(n,), name="false_positives")
        self.tn = self.add_variable(shape=(n,), name="true_negatives")
        self.fn = self.add_variable(shape=(n,), name="false_negatives")

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_pred = convert_to_tensor(y_pred)
        if self.from_logits:
            y_pred = gen_ops.sigmoid(y_pred)
        _confusion_update(self, y_true, y_pred, sample_weight, self.thresholds, None, ("tp", "fp", "tn", "fn"))

    def result(self):
        tp, fp, tn, fn = (v.value() for v in (self.tp, self.fp, self.tn, self.fn))
        n = self.num_thresholds
        if self.curve == "PR" and self.summation_method == "interpolation":
            dtp = tp[:n - 1] - tp[1:]
            p = tp + fp
            dp = p[:n - 1] - p[1:]
            slope = gen_ops.div_no_nan(dtp, gen_ops.maximum(dp, 0.0))
            intercept = tp[1:] - slope * p[1:]
            both = gen_ops.logical_and(gen_ops.greater(p[:n - 1], 0.0), gen_ops.greater(p[1:], 0.0))
            ratio = gen_ops.select_v2(both, gen_ops.div_no_nan(p[:n - 1], gen_ops.maximum(p[1:], 0.0)),
                                      gen_ops.ones_like(p[1:]))
            increment = gen_ops.div_no_nan(slope * (dtp + intercept * gen_ops.log(ratio)),
                                           gen_ops.maximum(tp[1:] + fn[1:], 0.0))
            return math_ops.reduce_sum(increment)
        recall = gen_ops.div_no_nan(tp, tp + fn)
        if self.curve == "ROC":
            x, y = gen_ops.div_no_nan(fp, fp + tn), recall
        else:
            x, y = recall, gen_ops.div_no_nan(tp, tp + fp)
        if self.summation_method == "interpolation":
            heights = (y[:n - 1] + y[1:]) / 2.0
        elif self.summation_method == "minoring":
            heights = gen_ops.minimum(y[:n - 1], y[1:])
        else:
            heights = gen_ops.maximum(y[:n - 1], y[1:])
        return math_ops.reduce_sum((x[:n - 1] - x[1:]) * heights)

    def get_config(self):
        return dict(super().get_config(), num_thresholds=self.num_thresholds, curve=self.curve,
                    summation_method=self.summation_method, thresholds=self._init_thresholds, multi_label=False,
                    from_logits=self.from_logits)
