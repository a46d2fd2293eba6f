"""Conformance entries: reductions (Prod, Max, Min, All, Any), ArgMax/ArgMin, Cumsum, BatchMatMulV2."""

import numpy as np

from conformance.gen import FLOATS, NUMBERS, rand
from conformance.harness import ErrorSample, OpEntry, Sample

import tensorflux as tx

AXES = ([], [0], [-1], [0, 2], [1, -3], [0, 1, 2])
AXIS_ERRORS = lambda x: [  # noqa: E731
    ErrorSample({"input": x, "reduction_indices": np.array([2], np.int32)}, match=r"Invalid reduction dimension"),
    ErrorSample({"input": x, "reduction_indices": np.array([1, -1], np.int32)}, match=r"duplicate", when="runtime"),
]


def _axes_tuple(x, reduction_indices):
    return tuple(int(a) % max(x.ndim, 1) for a in np.atleast_1d(reduction_indices))


def _fold_entry(op, fn, dtypes, low=-3, high=3, empty_value=None):
    samples = []
    for dt in dtypes:
        x = rand((3, 4, 5), dt, low, high, seed=3) if dt != np.bool_ else rand((3, 4, 5), dt, seed=3)
        for axes in AXES:
            for keep in (False, True):
                samples.append(Sample({"input": x, "reduction_indices": np.array(axes, np.int32)}, {"keep_dims": keep},
                                      note=f"{np.dtype(dt).name} axes={axes} keep={keep}"))
    dt0 = dtypes[0]
    samples += [
        Sample({"input": rand((), dt0, low, high), "reduction_indices": np.array([], np.int32)}, note="scalar"),
        Sample({"input": rand((0, 3), dt0, low, high), "reduction_indices": np.array([0], np.int64)},
               note="empty axis -> identity"),
        Sample({"input": rand((0, 3), dt0, low, high), "reduction_indices": np.array([1], np.int64)}, note="zero-size"),
        Sample({"input": rand((1, 7, 1, 3), dt0, low, high), "reduction_indices": np.array([1, 3], np.int64)},
               {"keep_dims": True}, note="size-1 dims"),
        Sample({"input": rand((70000,), dt0, low, high, seed=5), "reduction_indices": np.array([0], np.int32)},
               note="large full reduction (parallel split)"),
        Sample({"input": rand((300, 260), dt0, low, high, seed=6), "reduction_indices": np.array([0], np.int32)},
               note="large outer-axis reduction"),
    ]

    def ref(input, reduction_indices, keep_dims=False):
        axes = _axes_tuple(input, reduction_indices)
        if input.size == 0 and empty_value is not None and any(input.shape[a] == 0 for a in axes):
            shape = [1 if (i in axes) else d for i, d in enumerate(input.shape)] if keep_dims else \
                [d for i, d in enumerate(input.shape) if i not in axes]
            return np.full(shape, empty_value(input.dtype), input.dtype)
        return fn(input, axis=axes, keepdims=keep_dims).astype(input.dtype)

    x_err = rand((2, 3), dt0, low, high)
    return OpEntry(op, samples, ref=ref, errors=AXIS_ERRORS(x_err), rtol=1e-5, atol=1e-5)


def _lowest(dt):
    return -np.inf if np.dtype(dt).kind == "f" else np.iinfo(dt).min


def _highest(dt):
    return np.inf if np.dtype(dt).kind == "f" else np.iinfo(dt).max


def _nan_samples(op):
    x = np.array([[1, np.nan, 3], [np.nan, 2, 5], [1, 2, 3], [4, 4, 1]], np.float32)
    return [Sample({"input": x, "reduction_indices": np.array([1], np.int32)}, note="NaN propagates"),
            Sample({"input": x, "reduction_indices": np.array([0], np.int32)}, note="NaN propagates (outer)")]


def _with(entry, extra):
    entry.samples = list(entry.samples) + extra
    return entry


def _arg_entry(op, npfn):
    samples = []
    for dt in (*NUMBERS, np.uint8, np.bool_):
        x = rand((3, 4, 5), dt, 0 if dt == np.uint8 else -3, 3, seed=4)
        for dim in (0, 1, 2, -1):
            samples.append(Sample({"input": x, "dimension": np.array(dim, np.int32)},
                                  note=f"{np.dtype(dt).name} dim={dim}"))
    ties = np.array([[2, 7, 7, 1], [3, 3, 3, 3]], np.int32)
    nans = np.array([[1, np.nan, 3], [np.nan, 2, 5], [np.nan, np.nan, np.nan], [4, 4, np.nan]], np.float32)
    samples += [
        Sample({"input": ties, "dimension": np.array(1, np.int64)}, note="ties pick the first index"),
        Sample({"input": ties, "dimension": np.array(0, np.int32)}, {"output_type": tx.int32}, note="int32 output"),
        Sample({"input": rand((1000, 300), np.float32, seed=7), "dimension": np.array(1, np.int32)}, note="large rows"),
        Sample({"input": rand((300, 400), np.float64, seed=8), "dimension": np.array(0, np.int32)}, note="large cols"),
        Sample({"input": rand((0, 3), np.float32), "dimension": np.array(1, np.int32)}, note="zero-size output"),
        Sample({"input": rand((7,), np.float32), "dimension": np.array(0, np.int32)}, note="rank 1"),
        Sample({"input": nans, "dimension": np.array(1, np.int32)}, note="NaNs are skipped"),
        Sample({"input": nans, "dimension": np.array(0, np.int32)}, note="NaNs are skipped (outer)"),
    ]
    if op == "ArgMax":  # TensorFlow has int16 and uint16 indices for ArgMax only
        samples += [Sample({"input": rand((3, 4, 5), dt, seed=9), "dimension": np.array(1, np.int32)},
                           {"output_type": out}, note=f"{np.dtype(dt).name} input, {out.name} output")
                    for dt in (np.float32, np.int8, np.uint16) for out in (tx.int16, tx.uint16)]

    def ref(input, dimension, output_type=tx.int64):
        x = input
        if x.dtype.kind == "f" and np.isnan(x).any():  # NaNs never win; an all-NaN slice gives 0
            fill = -np.inf if npfn is np.argmax else np.inf
            x = np.where(np.isnan(x), fill, x)
        return npfn(x, axis=int(dimension)).astype(output_type.as_numpy_dtype)

    errors = [ErrorSample({"input": rand((2, 3)), "dimension": np.array(2, np.int32)},
                          match=r"Expected dimension in the range \[-2, 2\), but got 2"),
              ErrorSample({"input": rand((0, 3)), "dimension": np.array(0, np.int32)}, match=r"is empty",
                          when="runtime"),
              ErrorSample({"input": rand((2, 3)), "dimension": np.array([0], np.int32)}, match=r"rank 0|scalar")]
    if op == "ArgMax":  # an index past int16's range is an error (TensorFlow wraps it around)
        errors.append(ErrorSample({"input": rand((40000,)), "dimension": np.array(0, np.int32)},
                                  {"output_type": tx.int16}, match=r"more than output_type int16 can index",
                                  when="runtime"))
    return OpEntry(op, samples, ref=ref, errors=errors)


def _cumsum_samples():
    out = []
    for dt in (*NUMBERS, np.uint8):
        x = rand((3, 4, 5), dt, 0 if dt == np.uint8 else -3, 3, seed=9)
        for axis in (0, 1, 2, -1):
            for excl in (False, True):
                for rev in (False, True):
                    out.append(Sample({"x": x, "axis": np.array(axis, np.int32)}, {"exclusive": excl, "reverse": rev},
                                      note=f"{np.dtype(dt).name} axis={axis} excl={excl} rev={rev}"))
    out += [Sample({"x": rand((0, 3)), "axis": np.array(0, np.int64)}, note="zero-size"),
            Sample({"x": rand((5000,), np.float64, seed=2), "axis": np.array(0, np.int32)}, {"reverse": True},
                   note="long")]
    return out


def _cumsum_ref(x, axis, exclusive=False, reverse=False):
    a = int(axis) % x.ndim
    y = np.flip(x, a) if reverse else x
    s = np.cumsum(y, axis=a, dtype=x.dtype)
    if exclusive:
        s = np.concatenate([np.zeros_like(np.take(s, [0], axis=a)), np.take(s, np.arange(x.shape[a] - 1), axis=a)],
                           axis=a) if x.shape[a] else s
    return np.flip(s, a) if reverse else s


def _bmm_samples():
    out = []
    for dt in NUMBERS:
        for adj_x in (False, True):
            for adj_y in (False, True):
                xs = (2, 4, 3) if adj_x else (2, 3, 4)
                ys = (2, 5, 4) if adj_y else (2, 4, 5)
                out.append(Sample({"x": rand(xs, dt, seed=1), "y": rand(ys, dt, seed=2)},
                                  {"adj_x": adj_x, "adj_y": adj_y},
                                  note=f"{np.dtype(dt).name} adj_x={adj_x} adj_y={adj_y}"))
    for dt in FLOATS:
        out += [Sample({"x": rand((3, 4), dt), "y": rand((7, 1, 4, 5), dt)}, note="broadcast rank-2 x"),
                Sample({"x": rand((6, 1, 3, 4), dt), "y": rand((5, 4, 2), dt)}, note="broadcast both"),
                Sample({"x": rand((2, 3), dt), "y": rand((3, 4), dt)}, note="plain matrices")]
    out += [Sample({"x": rand((2, 0, 3)), "y": rand((2, 3, 4))}, note="empty rows"),
            Sample({"x": rand((2, 3, 0)), "y": rand((1, 0, 4))}, note="empty inner dim"),
            Sample({"x": rand((0, 3, 3)), "y": rand((3, 3))}, note="empty batch"),
            Sample({"x": rand((4, 64, 48), np.float32, seed=3), "y": rand((4, 48, 80), np.float32, seed=4)},
                   rtol=1e-4, atol=1e-4, note="bigger")]
    return out


def _bmm_ref(x, y, adj_x=False, adj_y=False, grad_x=False, grad_y=False):
    xa = np.swapaxes(x, -1, -2) if adj_x else x
    ya = np.swapaxes(y, -1, -2) if adj_y else y
    return np.matmul(xa, ya)


def _pair_ties(x, axes):
    """x with the largest and the smallest element of every reduced slice each tied with exactly one other
    (finite differences see a two-way tie as the even split 1/2 that the gradient gives)."""
    rest = [i for i in range(x.ndim) if i not in axes]
    moved = np.transpose(x, rest + list(axes)).copy()
    rows = moved.reshape(-1, int(np.prod([x.shape[a] for a in axes])))
    for row in rows:
        order = np.argsort(row)
        row[order[1]], row[order[-2]] = row[order[0]], row[order[-1]]
    return np.transpose(rows.reshape(moved.shape), np.argsort(rest + list(axes)))


def _grad_samples():
    """float64 gradient samples: zeros for Prod, ties for Max/Min, negative axes, keep_dims, zero-size."""
    x = rand((3, 4, 5), np.float64, seed=3)
    zeros = x.copy()
    zeros[0, 1, 2] = 0.0
    zeros[1, 2, :2] = 0.0  # two zeros in one reduced row
    ax = lambda *a: np.array(a, np.int32)  # noqa: E731
    fold = lambda v, axes, keep=False, note="": Sample({"input": v, "reduction_indices": axes},  # noqa: E731
                                                       {"keep_dims": keep}, note=note)
    extrema = [fold(_pair_ties(x, (1,)), ax(1), note="ties"),
               fold(_pair_ties(x, (0, 2)), ax(0, -1), True, "ties, negative axis, keep"),
               fold(x, ax(), note="no axes"), fold(rand((0, 3), np.float64), ax(1), note="zero-size")]
    cum = lambda axis, excl, rev: Sample({"x": x, "axis": np.array(axis, np.int32)},  # noqa: E731
                                         {"exclusive": excl, "reverse": rev}, note=f"axis={axis} {excl} {rev}")
    return {
        "Prod": [fold(zeros, ax(1), note="zeros"), fold(zeros, ax(2, -3), True, "zeros, two axes, keep"),
                 fold(x, ax(), note="no axes"), fold(rand((0, 3), np.float64), ax(0), note="zero-size")],
        "Max": extrema,
        "Min": extrema,
        "Cumsum": [cum(1, False, False), cum(-1, True, False), cum(0, False, True), cum(2, True, True)],
    }


ENTRIES = [
    # Integer products stay small (values in [-1, 2]) so they do not overflow.
    _fold_entry("Prod", np.prod, NUMBERS, low=-1, high=2),
    _with(_fold_entry("Max", np.max, (*NUMBERS, np.uint8, np.int8), low=-3, high=3, empty_value=_lowest),
          _nan_samples("Max")),
    _with(_fold_entry("Min", np.min, (*NUMBERS, np.uint8, np.int16), low=0, high=9, empty_value=_highest),
          _nan_samples("Min")),
    _fold_entry("All", np.all, (np.bool_,)),
    _fold_entry("Any", np.any, (np.bool_,)),
    _arg_entry("ArgMax", np.argmax),
    _arg_entry("ArgMin", np.argmin),
    OpEntry("Cumsum", _cumsum_samples(), ref=_cumsum_ref, rtol=1e-5, atol=1e-5,
            errors=[ErrorSample({"x": rand((2, 3)), "axis": np.array(-3, np.int32)},
                                match=r"Expected scan axis in the range \[-2, 2\)"),
                    ErrorSample({"x": rand((2, 3)), "axis": np.array([0], np.int32)}, match=r"rank 0|scalar")]),
    OpEntry("BatchMatMulV2", _bmm_samples(), ref=_bmm_ref, rtol=1e-5, atol=1e-5,
            errors=[ErrorSample({"x": rand((2, 3, 4)), "y": rand((2, 5, 6))}, match=r"[Mm]atrix size-incompatible"),
                    ErrorSample({"x": rand((2, 3, 4)), "y": rand((3, 4, 6))}, match=r"batch dimensions"),
                    ErrorSample({"x": rand((4,)), "y": rand((4, 6))}, match=r"rank 2|ndims must be >= 2")]),
]

_GRAD_SAMPLES = _grad_samples()
for _entry in ENTRIES:
    _entry.grad_samples = _GRAD_SAMPLES.get(_entry.op, ())
