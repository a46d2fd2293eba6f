"""LinearOperators built from other operators (TensorFlow's): adjoint, inversion, composition,
Kronecker product and block diagonal."""

from __future__ import annotations

import numpy as np

from tensorflux._src.array_ops import broadcast_to, concat, expand_dims, reshape, split
from tensorflux._src.generated import gen_ops
from tensorflux._src.linear_operator import LinearOperator, assert_compatible, dense_matmul, matrix_adjoint
from tensorflux._src.linear_operator_basic import LinearOperatorDiag, LinearOperatorIdentity, conj
from tensorflux._src.math_ops import add, multiply
from tensorflux._src.reduce_ops import reduce_prod
from tensorflux._src.shape_ops import zeros
from tensorflux._src.tensor_shape import TensorShape

__all__ = ["LinearOperatorAdjoint", "LinearOperatorBlockDiag",
           "LinearOperatorComposition", "LinearOperatorInversion", "LinearOperatorKronecker"]


def compose(left, right):
    """``left @ right`` as an operator: an identity factor drops out, diagonals multiply, else a composition."""
    if isinstance(left, LinearOperatorIdentity) and not left.batch_shape.as_list():
        return right
    if isinstance(right, LinearOperatorIdentity) and not right.batch_shape.as_list():
        return left
    if isinstance(left, LinearOperatorDiag) and isinstance(right, LinearOperatorDiag):
        both = [left, right]
        return LinearOperatorDiag(multiply(left.diag, right.diag),
                                  is_non_singular=_all_true(both, "is_non_singular"),
                                  is_self_adjoint=True if not left.dtype.is_complex else None,
                                  is_positive_definite=_all_true(both, "is_positive_definite"))
    return LinearOperatorComposition([left, right])


def add_n(tensors):
    """The sum of ``tensors``, broadcasting their shapes (AddN itself does not broadcast)."""
    out = tensors[0]
    for t in tensors[1:]:
        out = add(out, t)
    return out


def _all_true(operators, hint):
    return True if all(getattr(op, hint) for op in operators) else None


def _implied_hint(operators, hint, given, message):
    """``given``, or True when every operator has ``hint`` set (then ``given=False`` contradicts it:
    ValueError ``message``)."""
    if all(getattr(op, hint) for op in operators):
        if given is False:
            raise ValueError(message)
        return True
    return given


def _check_operators(operators):
    operators = list(operators)
    if not operators:
        raise ValueError("Expected a non-empty list of operators. Found: %s" % operators)
    dtype = operators[0].dtype
    if any(op.dtype != dtype for op in operators):
        found = "   ".join("(%r, %s)" % (op.name, op.dtype) for op in operators)
        raise TypeError("Expected all operators to have the same dtype.  Found %s" % found)
    return operators


def broadcast_batch_shape(operators):
    """The broadcast of the operators' static batch shapes."""
    return TensorShape(list(np.broadcast_shapes(*[tuple(op.batch_shape.as_list()) for op in operators])))


def _merge_hint(own, implied, message):
    if implied is not None and own is not None and own != implied:
        raise ValueError(message)
    return implied if own is None else own


class _OperatorList(LinearOperator):
    """Base of the operators made of a list of others (composition, Kronecker product, direct sum):
    keeps the list, names the result by joining the operators' names with ``_JOIN`` and records
    both as its parameters."""

    _JOIN = None  # each subclass names its own: "_o_", "_x_", "_ds_"

    def __init__(self, operators, name, **hints):
        self._operators = operators
        name = name or self._JOIN.join(op.name for op in operators)
        super().__init__(operators[0].dtype, name=name, parameters=dict(operators=operators, name=name), **hints)

    @property
    def operators(self):
        """The operators, in order: the leftmost factor, or the top-left block, first."""
        return list(self._operators)


class LinearOperatorAdjoint(LinearOperator):
    """The adjoint ``A^H`` of an operator ``A``, without forming a matrix.

    >>> op = tx.linalg.LinearOperatorAdjoint(tx.linalg.LinearOperatorFullMatrix([[1., 2.], [3., 4.]]))
    >>> op.to_dense().numpy().tolist()
    [[1.0, 3.0], [2.0, 4.0]]
    """

    def __init__(self, operator, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name=None):
        self._operator = operator
        hints = []
        for own, text, attr in ((is_non_singular, "non-singular", "is_non_singular"),
                                (is_self_adjoint, "self-adjoint", "is_self_adjoint"),
                                (is_positive_definite, "positive-definite", "is_positive_definite"),
                                (is_square, "square", "is_square")):
            hints.append(_merge_hint(own, getattr(operator, attr), "An operator is %s if and only if its adjoint "
                                                                     "is %s." % (text, text)))
        name = name or operator.name + "_adjoint"
        super().__init__(operator.dtype, is_non_singular=hints[0], is_self_adjoint=hints[1],
                         is_positive_definite=hints[2], is_square=hints[3], name=name,
                         parameters=dict(operator=operator, name=name))

    @property
    def operator(self):
        """The operator this is the adjoint of."""
        return self._operator

    def _shape(self):
        s = self._operator.shape
        return s[:-2].concatenate([s[-1], s[-2]])

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return self._operator.matmul(x, adjoint=not adjoint, adjoint_arg=adjoint_arg)

    def _matvec(self, x, adjoint=False):
        return self._operator.matvec(x, adjoint=not adjoint)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._operator.solve(rhs, adjoint=not adjoint, adjoint_arg=adjoint_arg)

    def _solvevec(self, rhs, adjoint=False):
        return self._operator.solvevec(rhs, adjoint=not adjoint)

    def _determinant(self):
        return conj(self._operator.determinant())

    def _log_abs_determinant(self):
        return self._operator.log_abs_determinant()

    def _diag_part(self):
        return conj(self._operator.diag_part())

    def _trace(self):
        return conj(self._operator.trace())

    def _to_dense(self):
        return matrix_adjoint(self._operator.to_dense())

    def _eigvals(self):
        return conj(self._operator.eigvals())

    def _cond(self):
        return self._operator.cond()

    def _linop_adjoint(self):
        return self._operator


class LinearOperatorInversion(LinearOperator):
    """The inverse ``A^{-1}`` of a square, non-singular operator ``A``: its matmul is ``A``'s solve.

    >>> op = tx.linalg.LinearOperatorInversion(tx.linalg.LinearOperatorDiag([2., 4.]))
    >>> op.matvec([1., 1.]).numpy().tolist(), float(op.determinant())
    ([0.5, 0.25], 0.125)
    """

    def __init__(self, operator, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name=None):
        self._operator = operator
        for own, attr in ((is_non_singular, "is_non_singular"), (is_square, "is_square")):
            theirs = getattr(operator, attr)
            if own is False or theirs is False:
                raise ValueError("Argument `%s` or argument `operator` must have supplied hint `%s` equal to `True` "
                                 "or `None`. Found `operator.%s`: %s, `%s`: %s." % (
                                     attr, attr, attr, theirs, attr, own))
        is_self_adjoint = _merge_hint(is_self_adjoint, operator.is_self_adjoint,
                                      "An operator is self-adjoint if and only if its inverse is self-adjoint.")
        is_positive_definite = _merge_hint(is_positive_definite, operator.is_positive_definite,
                                           "An operator is positive-definite if and only if its inverse is "
                                           "positive-definite.")
        name = name or operator.name + "_inv"
        super().__init__(operator.dtype, is_non_singular=is_non_singular or operator.is_non_singular,
                         is_self_adjoint=is_self_adjoint, is_positive_definite=is_positive_definite,
                         is_square=is_square or operator.is_square, name=name,
                         parameters=dict(operator=operator, name=name))

    @property
    def operator(self):
        """The operator this is the inverse of."""
        return self._operator

    def _shape(self):
        return self._operator.shape

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return self._operator.solve(x, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._operator.matmul(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _determinant(self):
        return gen_ops.reciprocal(self._operator.determinant())

    def _log_abs_determinant(self):
        return gen_ops.neg(self._operator.log_abs_determinant())

    def _cond(self):
        return self._operator.cond()

    def _linop_inverse(self):
        return self._operator


class LinearOperatorComposition(_OperatorList):
    """The product ``A1 @ A2 @ ... @ AJ`` of operators, applied factor by factor.

    >>> a = tx.linalg.LinearOperatorDiag([1., 2.])
    >>> b = tx.linalg.LinearOperatorFullMatrix([[1., 1.], [0., 1.]])
    >>> tx.linalg.LinearOperatorComposition([a, b]).to_dense().numpy().tolist()
    [[1.0, 1.0], [0.0, 2.0]]
    """

    _JOIN = "_o_"

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name=None):
        operators = _check_operators(operators)
        for left, right in zip(operators[:-1], operators[1:]):
            assert_compatible(left.domain_dimension, right.range_dimension)
        is_non_singular = _implied_hint(operators, "is_non_singular", is_non_singular,
                                        "The composition of non-singular operators is always non-singular.")
        super().__init__(operators, name, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=is_square)

    def _shape(self):
        return broadcast_batch_shape(self._operators).concatenate(
            [self._operators[0].range_dimension, self._operators[-1].domain_dimension])

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        order = self._operators if adjoint else self._operators[::-1]
        x = order[0].matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg)
        for op in order[1:]:
            x = op.matmul(x, adjoint=adjoint)
        return x

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        order = self._operators[::-1] if adjoint else self._operators
        rhs = order[0].solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)
        for op in order[1:]:
            rhs = op.solve(rhs, adjoint=adjoint)
        return rhs

    def _all_square(self):
        return all(op.is_square for op in self._operators)

    def _determinant(self):
        if self._all_square():
            dets = [op.determinant() for op in self._operators]
            out = dets[0]
            for d in dets[1:]:
                out = multiply(out, d)
            return out
        return super()._determinant()

    def _log_abs_determinant(self):
        if self._all_square():
            return add_n([op.log_abs_determinant() for op in self._operators])
        return super()._log_abs_determinant()


def _kron_dense(a, b):
    """The Kronecker product of two (batch) matrices, batch dimensions broadcast."""
    p, m = a.shape[-2], a.shape[-1]
    q, n = b.shape[-2], b.shape[-1]
    prod = multiply(expand_dims(expand_dims(a, -1), -3), expand_dims(expand_dims(b, -3), -2))
    return reshape(prod, prod.shape.as_list()[:-4] + [p * q, m * n])


class LinearOperatorKronecker(_OperatorList):
    """The Kronecker product ``A1 x A2 x ... x AJ`` of operators.

    Determinant, trace, diagonal, inverse, adjoint and Cholesky factor come from the factors;
    products and solves go through the dense Kronecker product.

    >>> a = tx.linalg.LinearOperatorDiag([1., 2.])
    >>> b = tx.linalg.LinearOperatorFullMatrix([[1., 1.], [0., 1.]])
    >>> tx.linalg.LinearOperatorKronecker([a, b]).to_dense().numpy().tolist()
    [[1.0, 1.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 2.0, 2.0], [0.0, 0.0, 0.0, 2.0]]
    """

    _JOIN = "_x_"

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name=None):
        operators = _check_operators(operators)
        is_non_singular = _implied_hint(operators, "is_non_singular", is_non_singular,
                                        "The Kronecker product of non-singular operators is always non-singular.")
        is_self_adjoint = _implied_hint(operators, "is_self_adjoint", is_self_adjoint,
                                        "The Kronecker product of self-adjoint operators is always self-adjoint.")
        super().__init__(operators, name, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=is_square)

    def _shape(self):
        rows = int(np.prod([op.range_dimension for op in self._operators]))
        cols = int(np.prod([op.domain_dimension for op in self._operators]))
        return broadcast_batch_shape(self._operators).concatenate([rows, cols])

    def _to_dense(self):
        dense = self._operators[0].to_dense()
        for op in self._operators[1:]:
            dense = _kron_dense(dense, op.to_dense())
        batch = self.batch_shape.as_list()
        if dense.shape.as_list()[:-2] != batch:
            dense = broadcast_to(dense, batch + dense.shape.as_list()[-2:])
        return dense

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return dense_matmul(self._to_dense(), x, adjoint, adjoint_arg)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._linop_inverse().matmul(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _sizes(self):
        return [op.domain_dimension for op in self._operators]

    def _determinant(self):
        total = int(np.prod(self._sizes()))
        out = None
        for op, n in zip(self._operators, self._sizes()):
            term = gen_ops.pow(op.determinant(), gen_ops.cast(total // n, DstT=self.dtype))
            out = term if out is None else multiply(out, term)
        return out

    def _log_abs_determinant(self):
        total = int(np.prod(self._sizes()))
        return add_n([op.log_abs_determinant() * (total // n) for op, n in zip(self._operators, self._sizes())])

    def _diag_part(self):
        diag = self._operators[0].diag_part()
        for op in self._operators[1:]:
            other = op.diag_part()
            prod = multiply(expand_dims(diag, -1), expand_dims(other, -2))
            diag = reshape(prod, prod.shape.as_list()[:-2] + [prod.shape[-2] * prod.shape[-1]])
        return diag

    def _trace(self):
        out = self._operators[0].trace()
        for op in self._operators[1:]:
            out = multiply(out, op.trace())
        return out

    def _eigvals(self):
        vals = self._operators[0].eigvals()
        for op in self._operators[1:]:
            prod = multiply(expand_dims(vals, -1), expand_dims(op.eigvals(), -2))
            vals = reshape(prod, prod.shape.as_list()[:-2] + [prod.shape[-2] * prod.shape[-1]])
        return vals

    def _linop_inverse(self):
        return LinearOperatorKronecker([op.inverse() for op in self._operators], is_non_singular=True,
                                       is_self_adjoint=self.is_self_adjoint,
                                       is_positive_definite=self.is_positive_definite, is_square=True)

    def _linop_adjoint(self):
        return LinearOperatorKronecker([op.adjoint() for op in self._operators],
                                       is_non_singular=self.is_non_singular, is_self_adjoint=self.is_self_adjoint,
                                       is_positive_definite=self.is_positive_definite, is_square=self.is_square)

    def _linop_cholesky(self):
        return LinearOperatorKronecker([op.cholesky() for op in self._operators], is_non_singular=True,
                                       is_square=True)


class LinearOperatorBlockDiag(_OperatorList):
    """The block-diagonal operator ``diag(A1, ..., AJ)``; ``x`` is split by the blocks' columns.

    >>> op = tx.linalg.LinearOperatorBlockDiag([tx.linalg.LinearOperatorDiag([2.]),
    ...                                         tx.linalg.LinearOperatorFullMatrix([[1., 1.], [0., 1.]])])
    >>> op.matvec([1., 1., 1.]).numpy().tolist(), float(op.determinant())
    ([2.0, 2.0, 1.0], 2.0)
    """

    _JOIN = "_ds_"

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=True, name=None):
        operators = _check_operators(operators)
        is_non_singular = _implied_hint(operators, "is_non_singular", is_non_singular,
                                        "The direct sum of non-singular operators is always non-singular.")
        is_self_adjoint = _implied_hint(operators, "is_self_adjoint", is_self_adjoint,
                                        "The direct sum of self-adjoint operators is always self-adjoint.")
        is_positive_definite = _implied_hint(operators, "is_positive_definite", is_positive_definite,
                                             "The direct sum of positive definite operators is always positive "
                                             "definite.")
        super().__init__(operators, name, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=None)

    def _shape(self):
        return broadcast_batch_shape(self._operators).concatenate(
            [sum(op.range_dimension for op in self._operators), sum(op.domain_dimension for op in self._operators)])

    def _blocks_apply(self, x, sizes, fn, adjoint_arg):
        x = matrix_adjoint(x) if adjoint_arg else x
        parts = split(x, sizes, axis=-2)
        outs = [fn(op, part) for op, part in zip(self._operators, parts)]
        batch = list(np.broadcast_shapes(*[tuple(o.shape.as_list()[:-2]) for o in outs]))
        outs = [o if o.shape.as_list()[:-2] == batch else broadcast_to(o, batch + o.shape.as_list()[-2:])
                for o in outs]
        return concat(outs, axis=-2)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        sizes = [op.range_dimension if adjoint else op.domain_dimension for op in self._operators]
        return self._blocks_apply(x, sizes, lambda op, part: op.matmul(part, adjoint=adjoint), adjoint_arg)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        sizes = [op.domain_dimension if adjoint else op.range_dimension for op in self._operators]
        return self._blocks_apply(rhs, sizes, lambda op, part: op.solve(part, adjoint=adjoint), adjoint_arg)

    def _to_dense(self):
        batch = self.batch_shape.as_list()
        rows, total = [], self.domain_dimension
        start = 0
        for op in self._operators:
            dense = op.to_dense()
            dense = broadcast_to(dense, batch + dense.shape.as_list()[-2:])
            m, n = op.range_dimension, op.domain_dimension
            pieces = []
            if start:
                pieces.append(zeros(batch + [m, start], dtype=self.dtype))
            pieces.append(dense)
            if total - start - n:
                pieces.append(zeros(batch + [m, total - start - n], dtype=self.dtype))
            rows.append(concat(pieces, axis=-1) if len(pieces) > 1 else dense)
            start += n
        return concat(rows, axis=-2)

    def _concat_parts(self, parts):
        batch = self.batch_shape.as_list()
        return concat([broadcast_to(p, batch + p.shape.as_list()[-1:]) for p in parts], axis=-1)

    def _diag_part(self):
        if not all(op.is_square for op in self._operators):
            return super()._diag_part()
        return self._concat_parts([op.diag_part() for op in self._operators])

    def _determinant(self):
        return reduce_prod(gen_ops.pack([broadcast_to(op.determinant(), self.batch_shape.as_list())
                                         for op in self._operators], axis=0), axis=[0])

    def _log_abs_determinant(self):
        return add_n([op.log_abs_determinant() for op in self._operators]) + zeros(
            self.batch_shape.as_list(), dtype=self.dtype.real_dtype)

    def _trace(self):
        if not all(op.is_square for op in self._operators):
            return super()._trace()
        return add_n([op.trace() for op in self._operators]) + zeros(self.batch_shape.as_list(), dtype=self.dtype)

    def _eigvals(self):
        return self._concat_parts([op.eigvals() for op in self._operators])

    def _linop_inverse(self):
        return LinearOperatorBlockDiag([op.inverse() for op in self._operators], is_non_singular=True,
                                       is_self_adjoint=self.is_self_adjoint,
                                       is_positive_definite=self.is_positive_definite)

    def _linop_adjoint(self):
        return LinearOperatorBlockDiag([op.adjoint() for op in self._operators],
                                       is_non_singular=self.is_non_singular, is_self_adjoint=self.is_self_adjoint,
                                       is_positive_definite=self.is_positive_definite)

    def _linop_cholesky(self):
        return LinearOperatorBlockDiag([op.cholesky() for op in self._operators], is_non_singular=True)

