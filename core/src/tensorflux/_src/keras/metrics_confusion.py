"""Confusion-matrix metrics: Precision, Recall and AUC (ROC or PR), accumulated per threshold in
Variables as Keras does."""

import numpy as np

from tensorflux._src import math_ops
from tensorflux._src import context as _context
from tensorflux._src.constant_op import constant, convert_to_tensor
from tensorflux._src.generated import gen_ops
from tensorflux._src.keras import serialization
from tensorflux._src.keras.metrics_base import Metric, _to_rank
from tensorflux._src.gather_ops import one_hot

_EPSILON = 1e-7
_NEG_INF = -1e10  # Keras's stand-in for -inf: predictions outside the top k, and top_k's threshold


def _filter_top_k(y_pred, k):
    """``y_pred`` with every entry outside the ``k`` largest of its last axis set to -1e10."""
    _, index = gen_ops.top_kv2(y_pred, constant(k, dtype="int32"))
    mask = math_ops.reduce_sum(one_hot(index, gen_ops.shape(y_pred)[-1], dtype="float32"), axis=-2)
    return y_pred * mask + _NEG_INF * (1.0 - mask)


def _confusion_update(metric, y_true, y_pred, sample_weight, thresholds, class_id, which, top_k=None,
                      per_label=False, label_weights=None):
    """Adds the weighted counts of ``which`` (subset of tp, fp, tn, fn) per threshold (on the
    ``top_k`` predictions of each row only, when set), and per label (last axis) with
    ``per_label``; ``label_weights`` weigh each label's entries."""
    y_true = math_ops.cast(convert_to_tensor(y_true), "float32")
    y_pred = math_ops.cast(convert_to_tensor(y_pred), "float32")
    if y_true.shape.rank is not None and y_pred.shape.rank is not None:
        y_true = _to_rank(y_true, y_pred.shape.rank)
    if top_k is not None:
        y_pred = _filter_top_k(y_pred, top_k)
    if class_id is not None:
        y_true = y_true[..., class_id]
        y_pred = y_pred[..., class_id]
    weights = None
    if sample_weight is not None:
        sw = math_ops.cast(convert_to_tensor(sample_weight), "float32")
        weights = gen_ops.broadcast_to(_to_rank(sw, y_true.shape.rank or 1), gen_ops.shape(y_true))
    if label_weights is not None:
        lw = constant(label_weights, dtype="float32")
        weights = lw * gen_ops.ones_like(y_true) if weights is None else weights * lw
    if per_label:  # [1, N, L] against [T, 1, 1]: counts per threshold and label
        labels = gen_ops.expand_dims(gen_ops.greater(y_true, 0.5), 0)
        preds = gen_ops.expand_dims(y_pred, 0)
        thr = gen_ops.reshape(constant(thresholds, dtype="float32"), [-1, 1, 1])
        weights = None if weights is None else gen_ops.expand_dims(weights, 0)
    else:
        labels = gen_ops.reshape(gen_ops.greater(y_true, 0.5), [1, -1])
        preds = gen_ops.reshape(y_pred, [1, -1])
        thr = gen_ops.reshape(constant(thresholds, dtype="float32"), [-1, 1])
        weights = None if weights is None else gen_ops.reshape(weights, [1, -1])
    above = gen_ops.greater(preds, thr)
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
        self.init_thresholds, self.top_k = thresholds, top_k
        self.thresholds = _thresholds(thresholds, 0.5 if top_k is None else _NEG_INF)
        self.class_id = class_id
        n = len(self.thresholds)
        second = "fp" if self._KIND == "precision" else "fn"
        self.tp = self.add_variable(shape=(n,), name="true_positives")
        setattr(self, second, self.add_variable(shape=(n,), name="false_positives" if second == "fp"
                                                else "false_negatives"))
        self._second = second

    def update_state(self, y_true, y_pred, sample_weight=None):
        _confusion_update(self, y_true, y_pred, sample_weight, self.thresholds, self.class_id, ("tp", self._second),
                          top_k=self.top_k)

    def result(self):
        tp = self.tp.value()
        value = gen_ops.div_no_nan(tp, tp + getattr(self, self._second).value())
        return value[0] if len(self.thresholds) == 1 else value

    def get_config(self):
        return dict(super().get_config(), thresholds=self.init_thresholds, top_k=self.top_k, class_id=self.class_id)


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
        self.multi_label, self.num_labels = bool(multi_label), num_labels
        self.label_weights = None if label_weights is None else [float(w) for w in np.ravel(label_weights)]
        if self.label_weights is not None and min(self.label_weights) < 0:
            raise ValueError("All values of `label_weights` must be non-negative. Received: label_weights=%s"
                             % (self.label_weights,))
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
        self._built = False
        if not self.multi_label or num_labels is not None:
            self._build(num_labels)

    def _build(self, num_labels):
        """The confusion variables: [thresholds], or [thresholds, labels] with multi_label."""
        shape = (len(self.thresholds),) + ((num_labels,) if self.multi_label else ())
        with _context.init_scope():
            self.tp = self.add_variable(shape=shape, name="true_positives")
            self.fp = self.add_variable(shape=shape, name="false_positives")
            self.tn = self.add_variable(shape=shape, name="true_negatives")
            self.fn = self.add_variable(shape=shape, name="false_negatives")
        self.num_labels = num_labels if self.multi_label else self.num_labels
        self._built = True

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_pred = convert_to_tensor(y_pred)
        if not self._built:
            if y_pred.shape.rank != 2 or y_pred.shape.as_list()[-1] is None:
                raise ValueError("AUC(multi_label=True) needs predictions of shape [batch, labels] with a known "
                                 "number of labels, got %s (or pass num_labels=)" % (y_pred.shape,))
            self._build(y_pred.shape.as_list()[-1])
        if self.from_logits:
            y_pred = gen_ops.sigmoid(y_pred)
        _confusion_update(self, y_true, y_pred, sample_weight, self.thresholds, None, ("tp", "fp", "tn", "fn"),
                          per_label=self.multi_label, label_weights=None if self.multi_label else self.label_weights)

    def _average(self, by_label):
        """The AUC of each label averaged (weighted by ``label_weights``) with multi_label."""
        if not self.multi_label:
            return by_label
        if self.label_weights is None:
            return math_ops.reduce_mean(by_label)
        weights = constant(self.label_weights, dtype="float32")
        return gen_ops.div_no_nan(math_ops.reduce_sum(by_label * weights), math_ops.reduce_sum(weights))

    def result(self):
        if not self._built:
            return constant(0.0)
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
            return self._average(math_ops.reduce_sum(increment, axis=0))
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
        return self._average(math_ops.reduce_sum((x[:n - 1] - x[1:]) * heights, axis=0))

    def get_config(self):
        return dict(super().get_config(), num_thresholds=self.num_thresholds, curve=self.curve,
                    summation_method=self.summation_method, thresholds=self._init_thresholds,
                    multi_label=self.multi_label, num_labels=self.num_labels, label_weights=self.label_weights,
                    from_logits=self.from_logits)
