"""``einsum`` (any number of operands, implicit or explicit output) and ``tensordot``, over the Einsum op."""

from __future__ import annotations

import string

from tensorflux._src.constant_op import convert_to_tensor
from tensorflux._src.generated import gen_ops

_ELLIPSIS = "."  # one character standing for "..." while equations are rewritten


def _split(subscript):
    """Labels of one subscript, with '...' folded into one _ELLIPSIS entry."""
    return list(subscript.replace("...", _ELLIPSIS))


def _join(labels):
    return "".join(labels).replace(_ELLIPSIS, "...")


def _parse(equation, num_inputs):
    eq = equation.replace(" ", "")
    if "->" in eq:
        lhs, out = eq.split("->", 1)
        if "->" in out:
            raise ValueError("einsum equation %r has more than one '->'" % equation)
        out_labels = _split(out)
    else:
        lhs, out_labels = eq, None
    ins = [_split(s) for s in lhs.split(",")]
    if len(ins) != num_inputs:
        raise ValueError("einsum equation %r names %d operands but %d were given" % (equation, len(ins), num_inputs))
    for labels in ins + ([out_labels] if out_labels is not None else []):
        for ch in labels:
            if ch != _ELLIPSIS and ch not in string.ascii_letters:
                raise ValueError("einsum equation %r: invalid subscript character %r" % (equation, ch))
    if out_labels is None:  # implicit output: labels used once, sorted; the ellipsis first
        counts = {}
        for labels in ins:
            for ch in labels:
                counts[ch] = counts.get(ch, 0) + 1
        out_labels = ([_ELLIPSIS] if _ELLIPSIS in counts else []) + sorted(
            ch for ch, c in counts.items() if c == 1 and ch != _ELLIPSIS)
    return ins, out_labels


def einsum(equation, *inputs, **kwargs):
    """Tensor contraction given by ``equation`` (NumPy/TensorFlow syntax: 'ij,jk->ik', ellipses,
    repeated and summed labels, broadcasting of '...' dims). More than two operands are contracted
    left to right, two at a time."""
    name = kwargs.pop("name", None)
    kwargs.pop("optimize", None)
    if kwargs:
        raise TypeError("einsum() got unexpected keyword arguments: %s" % ", ".join(sorted(kwargs)))
    if len(inputs) == 1 and isinstance(inputs[0], (list, tuple)):
        inputs = tuple(inputs[0])
    if not inputs:
        raise ValueError("einsum needs at least one operand")
    ins, out = _parse(equation, len(inputs))
    tensors = [convert_to_tensor(x) for x in inputs]
    if len(tensors) <= 2:
        eq = ",".join(_join(s) for s in ins) + "->" + _join(out)
        return gen_ops.einsum(tensors, equation=eq, name=name)
    acc, acc_labels = tensors[0], ins[0]
    for i in range(1, len(tensors)):
        later = set(out).union(*[set(s) for s in ins[i + 1:]]) if i + 1 < len(ins) else set(out)
        if i + 1 == len(tensors):
            keep = out
        else:
            keep = []
            for ch in acc_labels + ins[i]:
                if (ch in later or ch == _ELLIPSIS) and ch not in keep:
                    keep.append(ch)
        eq = "%s,%s->%s" % (_join(acc_labels), _join(ins[i]), _join(keep))
        acc = gen_ops.einsum([acc, tensors[i]], equation=eq, name=name if i + 1 == len(tensors) else None)
        acc_labels = keep
    return acc


def tensordot(a, b, axes, name=None):
    """Sums products of ``a`` and ``b`` over ``axes``: an int N (a's last N with b's first N) or a
    pair of axis lists; needs the static ranks of ``a`` and ``b``."""
    a, b = convert_to_tensor(a), convert_to_tensor(b)
    ra, rb = a.shape.rank, b.shape.rank
    if ra is None or rb is None:
        raise ValueError("tensordot needs the static ranks of both operands")
    if isinstance(axes, int) or (hasattr(axes, "__index__") and not isinstance(axes, (list, tuple))):
        n = int(axes)
        if n < 0 or n > min(ra, rb):
            raise ValueError("tensordot: axes=%d must be in [0, %d]" % (n, min(ra, rb)))
        a_axes, b_axes = list(range(ra - n, ra)), list(range(n))
    else:
        if len(axes) != 2:
            raise ValueError("tensordot: axes must be an int or a pair of axis lists, got %r" % (axes,))
        a_axes, b_axes = axes
        a_axes = [a_axes] if isinstance(a_axes, int) else list(a_axes)
        b_axes = [b_axes] if isinstance(b_axes, int) else list(b_axes)
        if len(a_axes) != len(b_axes):
            raise ValueError("tensordot: the axis lists %r and %r differ in length" % (a_axes, b_axes))
    a_axes = [int(x) % ra for x in a_axes]
    b_axes = [int(x) % rb for x in b_axes]
    letters = iter(string.ascii_letters)
    la = [next(letters) for _ in range(ra)]
    lb = [next(letters) for _ in range(rb)]
    for i, j in zip(a_axes, b_axes):
        lb[j] = la[i]
    out = [la[i] for i in range(ra) if i not in a_axes] + [lb[j] for j in range(rb) if j not in b_axes]
    return gen_ops.einsum([a, b], equation="%s,%s->%s" % ("".join(la), "".join(lb), "".join(out)), name=name)
