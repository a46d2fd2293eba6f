"""Sampled losses for large output vocabularies: ``tx.nn.sampled_softmax_loss`` and
``tx.nn.nce_loss`` (TensorFlow 2's, with "div" sharding of the weights), over the candidate
samplers and existing ops (Note [Sampled logits])."""

import numpy as np

from tensorflux._src import dtypes as _dtypes
from tensorflux._src.array_ops import concat, reshape
from tensorflux._src.candidate_sampling import compute_accidental_hits, log_uniform_candidate_sampler
from tensorflux._src.constant_op import convert_to_tensor
from tensorflux._src.eager_tensor import TENSOR_TYPES as _TENSORS
from tensorflux._src.generated import gen_ops
from tensorflux._src.graph import name_scope
from tensorflux._src.nn_ext_ops import embedding_lookup
from tensorflux._src.nn_ops import sigmoid_cross_entropy_with_logits

# Note [Sampled logits]
# Both losses score each example against its num_true true classes and num_sampled sampled
# classes (``sampled_values``, or a unique log-uniform draw over [0, num_classes)): logit =
# inputs . weights[class] + biases[class] - log(expected count of class), the correction that
# makes the sampled estimate consistent (subtract_log_q). An accidental hit, a sampled class that
# is also a true class of the example, gets -FLT_MAX added to its sampled logit when
# ``remove_accidental_hits``. The labels are 1/num_true for the true columns and 0 for the
# sampled ones. The sampled values are constants: no gradient flows into them.


def _t(x, dtype=None):
    return x if isinstance(x, _TENSORS) else convert_to_tensor(x, dtype=dtype)


def _c(value, dtype=None):
    return convert_to_tensor(value, dtype=dtype)


def _sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes, num_true, sampled_values,
                    remove_accidental_hits, seed):
    """(logits [batch, num_true + num_sampled], labels of the same shape) (Note [Sampled logits])."""
    inputs = _t(inputs)
    labels = _t(labels)
    if labels.dtype != _dtypes.int64:
        labels = gen_ops.cast(labels, DstT=_dtypes.int64)
    if sampled_values is None:
        sampled_values = log_uniform_candidate_sampler(labels, num_true, num_sampled, True, num_classes, seed=seed)
    sampled, true_expected, sampled_expected = (gen_ops.stop_gradient(_t(s)) for s in sampled_values)
    sampled = gen_ops.cast(sampled, DstT=_dtypes.int64)
    labels_flat = reshape(labels, [-1])
    n_true = gen_ops.size(labels_flat, out_type=_dtypes.int64)
    all_ids = concat([labels_flat, sampled], 0)
    weights = list(weights) if isinstance(weights, (list, tuple)) else weights
    all_w = embedding_lookup(weights, all_ids, partition_strategy="div")
    if all_w.dtype != inputs.dtype:
        all_w = gen_ops.cast(all_w, DstT=inputs.dtype)
    zero = _c(np.int64(0))
    true_w = gen_ops.slice(all_w, gen_ops.pack([zero, zero]), gen_ops.pack([n_true, _c(np.int64(-1))]))
    sampled_w = gen_ops.slice(all_w, gen_ops.pack([n_true, zero]), _c(np.array([-1, -1], np.int64)))
    all_b = embedding_lookup(biases, all_ids, partition_strategy="div")
    if all_b.dtype != inputs.dtype:
        all_b = gen_ops.cast(all_b, DstT=inputs.dtype)
    true_b = gen_ops.slice(all_b, gen_ops.expand_dims(zero, _c(0)), gen_ops.expand_dims(n_true, _c(0)))
    sampled_b = gen_ops.slice(all_b, gen_ops.expand_dims(n_true, _c(0)), _c(np.array([-1], np.int64)))
    dim = gen_ops.slice(gen_ops.shape(true_w), _c([1]), _c([1]))
    true_w = reshape(true_w, concat([_c([-1, num_true]), dim], 0))
    true_logits = gen_ops.sum(gen_ops.mul(gen_ops.expand_dims(inputs, _c(1)), true_w), _c(2))
    true_logits = gen_ops.add_v2(true_logits, reshape(true_b, [-1, num_true]))
    sampled_logits = gen_ops.add_v2(gen_ops.mat_mul(inputs, sampled_w, transpose_b=True), sampled_b)
    if remove_accidental_hits:
        rows, positions, hit_weights = compute_accidental_hits(labels, sampled, num_true=num_true)
        coords = gen_ops.pack([gen_ops.cast(rows, DstT=_dtypes.int64), positions], axis=1)
        penalty = gen_ops.tensor_scatter_update(gen_ops.zeros_like(sampled_logits), coords,
                                                gen_ops.cast(hit_weights, DstT=sampled_logits.dtype))
        sampled_logits = gen_ops.add_v2(sampled_logits, penalty)
    true_logits = gen_ops.sub(true_logits, gen_ops.log(gen_ops.cast(true_expected, DstT=inputs.dtype)))
    sampled_logits = gen_ops.sub(sampled_logits, gen_ops.log(gen_ops.cast(sampled_expected, DstT=inputs.dtype)))
    logits = concat([true_logits, sampled_logits], 1)
    out_labels = concat([gen_ops.fill(gen_ops.shape(true_logits), _c(1.0 / num_true, dtype=inputs.dtype)),
                         gen_ops.zeros_like(sampled_logits)], 1)
    return logits, out_labels


def _check(num_true, num_sampled, what):
    if num_true < 1:
        raise ValueError("%s: num_true must be >= 1, got %d" % (what, num_true))
    if num_sampled < 1:
        raise ValueError("%s: num_sampled must be >= 1, got %d" % (what, num_sampled))


def sampled_softmax_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1, sampled_values=None,
                         remove_accidental_hits=True, seed=None, name="sampled_softmax_loss"):
    """The per-example [batch] softmax cross-entropy over each example's true classes and
    ``num_sampled`` sampled classes (Note [Sampled logits]): a cheap training estimate of the full
    softmax loss over ``num_classes`` with ``weights`` [num_classes, dim] (or a list of its
    "div"-sharded parts) and ``biases`` [num_classes].

    >>> w, b = tx.ones([4, 2]), tx.zeros([4])
    >>> sampled = (tx.constant([2, 3], tx.int64), tx.constant([[1.0]]), tx.constant([1.0, 1.0]))
    >>> float(tx.nn.sampled_softmax_loss(w, b, [[0]], [[1.0, 1.0]], 2, 4, sampled_values=sampled)[0])
    1.0986123...
    """
    _check(num_true, num_sampled, "sampled_softmax_loss")
    with name_scope(name or "sampled_softmax_loss"):
        logits, labels = _sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes, num_true,
                                         sampled_values, remove_accidental_hits, seed)
        loss, _ = gen_ops.softmax_cross_entropy_with_logits(logits, gen_ops.stop_gradient(labels))
        return loss


def nce_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1, sampled_values=None,
             remove_accidental_hits=False, name="nce_loss"):
    """The per-example [batch] noise-contrastive estimation loss: logistic losses telling each
    example's true classes (label 1/num_true) from ``num_sampled`` sampled classes (label 0),
    summed (Note [Sampled logits]).

    >>> w, b = tx.zeros([4, 2]), tx.zeros([4])
    >>> sampled = (tx.constant([2, 3], tx.int64), tx.constant([[1.0]]), tx.constant([1.0, 1.0]))
    >>> round(float(tx.nn.nce_loss(w, b, [[0]], [[1.0, 1.0]], 2, 4, sampled_values=sampled)[0]), 5)
    2.07944
    """
    _check(num_true, num_sampled, "nce_loss")
    with name_scope(name or "nce_loss"):
        logits, labels = _sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes, num_true,
                                         sampled_values, remove_accidental_hits, None)
        return gen_ops.sum(sigmoid_cross_entropy_with_logits(labels=labels, logits=logits), _c(1))
