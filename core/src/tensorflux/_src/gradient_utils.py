"""Gradient helpers over ``tx.gradients`` and ``tx.custom_gradient``: ``hessians``,
``grad_pass_through``, ``recompute_grad`` and the ``AggregationMethod`` constants."""

import functools

from tensorflux._src import context as _context
from tensorflux._src.array_ops import reshape, stack, unstack
from tensorflux._src.backprop import GradientTape, custom_gradient
from tensorflux._src.constant_op import convert_to_tensor
from tensorflux._src.gradients_impl import gradients
from tensorflux._src.graph import name_scope


class AggregationMethod:
    """How ``tx.gradients`` sums the gradients of a tensor used several times (TensorFlow's
    constants; Tensorflux always sums with one AddN, which all of them name here).

    >>> tx.AggregationMethod.ADD_N, tx.AggregationMethod.EXPERIMENTAL_TREE
    (0, 1)
    """

    ADD_N = 0
    DEFAULT = ADD_N
    EXPERIMENTAL_TREE = 1
    EXPERIMENTAL_ACCUMULATE_N = 2


def hessians(ys, xs, name="hessians", colocate_gradients_with_ops=False, gate_gradients=False,
             aggregation_method=None):
    """One tensor per x of ``xs``: the second derivatives of ``sum(ys)`` with respect to x, of
    shape ``x.shape + x.shape``, built in the graph (gradients of each gradient element); each x
    needs a fully defined shape, and eagerly this is a RuntimeError as tx.gradients is.

    >>> with tx.Graph().as_default():
    ...     x = tx.constant([1.0, 2.0])
    ...     (h,) = tx.hessians(tx.reduce_sum(x * x * x), x)
    ...     print(tx.Session().run(h))
    [[ 6.  0.]
     [ 0. 12.]]
    """
    del colocate_gradients_with_ops, gate_gradients
    if _context.executing_eagerly():
        raise RuntimeError("tf.gradients is not supported when eager execution is enabled. "
                           "Use tf.GradientTape instead.")
    xs = list(xs) if isinstance(xs, (list, tuple)) else [xs]
    out = []
    with name_scope(name or "hessians"):
        grads = gradients(ys, xs, aggregation_method=aggregation_method)
        for i, (x, g) in enumerate(zip(xs, grads)):
            if not x.shape.is_fully_defined():
                raise ValueError("hessians: xs[%d] (%s) needs a fully defined shape, got %s" % (i, x.name, x.shape))
            if g is None:
                out.append(None)
                continue
            n = x.shape.num_elements()
            rows = []
            for gi in unstack(reshape(g, [n]), num=n) if n else []:
                (row,) = gradients(gi, [x], unconnected_gradients="zero")
                rows.append(reshape(row, [n]))
            dims = x.shape.as_list()
            hess = stack(rows) if rows else reshape(convert_to_tensor([], dtype=x.dtype), [0, 0])
            out.append(reshape(hess, dims + dims))
    return out


def grad_pass_through(f):
    """``f`` whose gradient is the identity: the result is ``f(*args)`` and the gradient of each
    argument is the gradient of the matching output (straight-through, e.g. for rounding).

    >>> x = tx.constant(1.4)
    >>> with tx.GradientTape() as tape:
    ...     tape.watch(x)
    ...     y = tx.grad_pass_through(tx.round)(x) * 3.0
    ...
    >>> float(y), float(tape.gradient(y, x))
    (3.0, 3.0)
    """

    @custom_gradient
    def _pass_through(*args, **kwargs):
        def grad(*dys):
            return dys if len(dys) != 1 else dys[0]

        return f(*args, **kwargs), grad

    return functools.wraps(f)(_pass_through) if callable(f) and hasattr(f, "__name__") else _pass_through


def recompute_grad(f):
    """``f`` whose intermediate results are not kept for the backward pass: the gradient runs
    ``f`` again (under a tape) and differentiates that, trading compute for memory; values and
    gradients equal ``f``'s. Tensor arguments only (variables used by ``f`` are not supported).

    >>> f = tx.recompute_grad(lambda x: tx.sin(x) * x)
    >>> x = tx.constant(0.5)
    >>> with tx.GradientTape() as tape:
    ...     tape.watch(x)
    ...     y = f(x)
    ...
    >>> round(float(tape.gradient(y, x)), 5)
    0.91822
    """

    @custom_gradient
    def _recompute(*args):
        result = f(*args)

        def grad(*dresult):
            with GradientTape() as tape:
                for a in args:
                    tape.watch(a)
                again = f(*args)
            return tape.gradient(again, list(args), output_gradients=list(dresult) if isinstance(
                again, (list, tuple)) else dresult[0])

        return result, grad

    return functools.wraps(f)(_recompute) if hasattr(f, "__name__") else _recompute
