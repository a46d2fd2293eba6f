"""`tx.gradients`: symbolic differentiation, done by the engine (TX_AddGradientsWithOptions).

Every op's gradient is a C++ function registered next to the op, so Python, C and Go get the same
gradients; this module only converts arguments and wraps the results.
"""

import enum

from tensorflux._src import lib
from tensorflux._src.constant_op import convert_to_tensor
from tensorflux._src.generated import gen_ops
from tensorflux._src.operation import Tensor, TensorLike

_c = lib.c


class UnconnectedGradients(enum.Enum):
    """What `gradients` returns for an x that no y depends on."""

    NONE = "none"
    ZERO = "zero"


def _as_list(value):
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value]


def gradients(ys, xs, grad_ys=None, name="gradients", gate_gradients=False, aggregation_method=None,
              stop_gradients=None, unconnected_gradients=UnconnectedGradients.NONE):
    """Symbolic partial derivatives of ``sum(ys)`` with respect to each of ``xs``.

    Returns a list with one tensor per x: the sum of dy/dx over all ys, weighted by ``grad_ys``
    (ones when omitted); ys that are not floating-point or complex contribute nothing.
    ``stop_gradients`` are treated as constants. An x that no y depends on gets None, or zeros
    with ``unconnected_gradients="zero"``. Gradients of fanned-out tensors are
    always summed with AddN (``aggregation_method`` is accepted for TensorFlow compatibility and
    has no other choice to make); ``gate_gradients`` is accepted and unnecessary, because the
    engine never reads a partially computed gradient.

    >>> with tx.Graph().as_default():
    ...     x = tx.placeholder(tx.float32, [2])
    ...     y = tx.reduce_sum(x * x)
    ...     (dx,) = tx.gradients(y, [x])
    ...     with tx.Session() as sess:
    ...         print(sess.run(dx, feed_dict={x: [1.0, 3.0]}))
    ...
    [2. 6.]
    """
    del gate_gradients, aggregation_method
    ys = _as_list(ys)
    xs = _as_list(xs)
    if not ys:
        raise ValueError("gradients: ys is empty")
    ys = [convert_to_tensor(y) for y in ys]
    # A variable's gradient is the gradient with respect to its handle (summed over all reads).
    xs = [x.handle if hasattr(x, "handle") and isinstance(x, TensorLike) else x for x in xs]
    for i, x in enumerate(xs):
        if not isinstance(x, Tensor):
            raise TypeError("gradients: xs[%d] must be a Tensor, got %r" % (i, type(x).__name__))
    graph = ys[0].graph
    for what, seq in (("ys", ys), ("xs", xs)):
        for i, t in enumerate(seq):
            if t.graph is not graph:
                raise ValueError("gradients: %s[%d] (%s) is from a different graph than ys[0] (%s)"
                                 % (what, i, t.name, ys[0].name))
    try:
        unconnected = UnconnectedGradients(getattr(unconnected_gradients, "value", unconnected_gradients))
    except ValueError:
        raise ValueError("gradients: unconnected_gradients must be 'none' or 'zero', got %r"
                         % (unconnected_gradients,)) from None
    stops = _as_list(stop_gradients)
    for i, t in enumerate(stops):
        if not isinstance(t, Tensor) or t.graph is not graph:
            raise ValueError("gradients: stop_gradients[%d] must be a Tensor of the graph of ys" % i)
    if grad_ys is not None:
        grad_ys = _as_list(grad_ys)
        if len(grad_ys) != len(ys):
            raise ValueError("gradients: got %d grad_ys for %d ys" % (len(grad_ys), len(ys)))
    with graph.as_default():
        grad_pairs = None
        if grad_ys is not None:
            filled = []
            for y, g in zip(ys, grad_ys):
                if g is None:
                    g = gen_ops.ones_like(y)
                elif not isinstance(g, Tensor):
                    g = convert_to_tensor(g, dtype=y.dtype)
                elif g.graph is not graph:
                    raise ValueError("gradients: grad_ys entry %s is from a different graph" % g.name)
                filled.append(g)
            grad_pairs = [g._pair for g in filled]
        prefix = graph.unique_name(name or "gradients")
        result = _c.add_gradients(graph._h, prefix, [y._pair for y in ys], [x._pair for x in xs], grad_pairs,
                                  [t._pair for t in stops], unconnected is UnconnectedGradients.ZERO)
    return [graph._tensor_from_pair(p) if p is not None else None for p in result]


def gradient_status(op_type):
    """1 when ``op_type`` has a registered gradient, 0 when it is declared not differentiable, -1
    when it has neither."""
    return _c.op_gradient_status(op_type)
