"""Conformance entries: gradient ops of the NN ops (conv/depthwise backprop, pooling grads, batch norm grad,
BiasAddGrad). References are float64 NumPy loops over the filter taps / pooling windows."""

import numpy as np

from conformance.entries_nn import _pads, _window
from conformance.gen import FLOATS, NUMBERS, positive, rand
from conformance.harness import ErrorSample, OpEntry, Sample

S1, S2 = [1, 1, 1, 1], [1, 2, 2, 1]


def _i32(v):
    return np.array(v, np.int32)


def _conv_taps(in_shape, f_shape, strides, padding, explicit_paddings, dilations):
    """Yields (a, b, row slice, col slice) into the padded input for every filter tap, plus the geometry."""
    n, h, w, _ = in_shape
    ph, pw = _pads(padding, explicit_paddings)
    oh, pt = _window(h, f_shape[0], dilations[1], strides[1], padding, ph)
    ow, pl = _window(w, f_shape[1], dilations[2], strides[2], padding, pw)
    padded = (n, pt + oh * strides[1] + f_shape[0] * dilations[1] + h, pl + ow * strides[2] + f_shape[1] * dilations[2]
              + w, in_shape[3])
    taps = []
    for a in range(f_shape[0]):
        for b in range(f_shape[1]):
            r0, c0 = a * dilations[1], b * dilations[2]
            rows = slice(r0, r0 + oh * strides[1], strides[1])
            taps.append((a, b, rows, slice(c0, c0 + ow * strides[2], strides[2])))
    return taps, padded, (pt, pl)


def _full_input_shape(input_sizes, filter, out_backprop):
    s = [int(v) for v in input_sizes]
    return s if len(s) == 4 else [out_backprop.shape[0], s[0], s[1], filter.shape[2]]


def _backprop_input_ref(input_sizes, filter, out_backprop, strides, padding, explicit_paddings=(),
                        dilations=(1, 1, 1, 1), depthwise=False, **_):
    shape = _full_input_shape(input_sizes, filter, out_backprop)
    w, dy = filter.astype(np.float64), out_backprop.astype(np.float64)
    taps, padded, (pt, pl) = _conv_taps(shape, w.shape, strides, padding, explicit_paddings, dilations)
    dxp = np.zeros(padded)
    for a, b, rows, cols in taps:
        if depthwise:
            n, oh, ow, _ = dy.shape
            dxp[:, rows, cols, :] += (dy.reshape(n, oh, ow, shape[3], w.shape[3]) * w[a, b]).sum(axis=-1)
        else:
            dxp[:, rows, cols, :] += dy @ w[a, b].T
    return dxp[:, pt:pt + shape[1], pl:pl + shape[2], :].astype(filter.dtype)


def _backprop_filter_ref(input, filter_sizes, out_backprop, strides, padding, explicit_paddings=(),
                         dilations=(1, 1, 1, 1), depthwise=False, **_):
    f_shape = [int(v) for v in filter_sizes]
    x, dy = input.astype(np.float64), out_backprop.astype(np.float64)
    taps, padded, (pt, pl) = _conv_taps(x.shape, f_shape, strides, padding, explicit_paddings, dilations)
    xp = np.zeros(padded)
    xp[:, pt:pt + x.shape[1], pl:pl + x.shape[2], :] = x
    dw = np.zeros(f_shape)
    for a, b, rows, cols in taps:
        patch = xp[:, rows, cols, :]
        if depthwise:
            n, oh, ow, _ = dy.shape
            dw[a, b] = np.einsum("nhwc,nhwcq->cq", patch, dy.reshape(n, oh, ow, f_shape[2], f_shape[3]))
        else:
            dw[a, b] = np.einsum("nhwc,nhwm->cm", patch, dy)
    return dw.astype(input.dtype)


# (input shape, filter shape, attrs, note): every geometry runs through both backprop ops.
_GEOMETRIES = [
    ((2, 7, 8, 3), (3, 3, 3, 4), {"strides": S1, "padding": "SAME"}, "3x3 SAME"),
    ((2, 7, 8, 3), (3, 2, 3, 5), {"strides": S2, "padding": "VALID"}, "strided VALID"),
    ((2, 7, 8, 3), (3, 3, 3, 2), {"strides": S2, "padding": "SAME"}, "strided SAME"),
    ((2, 7, 8, 3), (3, 3, 3, 2), {"strides": S1, "padding": "SAME", "dilations": [1, 2, 2, 1]}, "dilated"),
    ((2, 7, 8, 3), (2, 3, 3, 2), {"strides": [1, 1, 2, 1], "padding": "EXPLICIT",
                                  "explicit_paddings": [0, 0, 1, 2, 3, 0, 0, 0]}, "explicit"),
    ((2, 5, 6, 4), (1, 1, 4, 6), {"strides": S1, "padding": "SAME"}, "1x1"),
    ((2, 5, 6, 4), (1, 1, 4, 6), {"strides": S2, "padding": "VALID"}, "1x1 strided"),
    ((0, 5, 6, 3), (3, 3, 3, 2), {"strides": S1, "padding": "SAME"}, "zero batch"),
]


# Geometries for the float32 direct kernels (input depth C / output depth M multiples of 16,
# Notes [Direct Conv2D backprop input] and [Direct Conv2D filter gradient]), their edges and the
# per-thread GEMM paths beside them.
_DIRECT_GEOMETRIES = [
    ((2, 7, 9, 16), (3, 3, 16, 16), {"strides": S1, "padding": "SAME"}, "C=M=16 SAME"),
    ((1, 6, 7, 32), (3, 2, 32, 48), {"strides": S1, "padding": "VALID"}, "batch 1, VALID, odd sizes, M=48"),
    ((2, 9, 7, 16), (3, 3, 16, 32), {"strides": S1, "padding": "SAME", "dilations": [1, 2, 2, 1]}, "dilated"),
    ((1, 8, 9, 16), (3, 3, 16, 16), {"strides": S1, "padding": "SAME", "dilations": [1, 1, 2, 1]},
     "dilated along W only (one slice per tap)"),
    ((2, 7, 8, 16), (4, 4, 16, 16), {"strides": S1, "padding": "SAME"}, "even filter: top padding below bottom"),
    ((2, 6, 7, 16), (2, 3, 16, 32), {"strides": S1, "padding": "EXPLICIT",
                                     "explicit_paddings": [0, 0, 1, 0, 2, 1, 0, 0]}, "explicit within the window"),
    ((2, 6, 7, 16), (2, 3, 16, 16), {"strides": S1, "padding": "EXPLICIT",
                                     "explicit_paddings": [0, 0, 3, 1, 0, 4, 0, 0]},
     "explicit beyond the window (input grad not direct)"),
    ((2, 6, 7, 20), (3, 3, 20, 32), {"strides": S1, "padding": "SAME"}, "C=20: input grad on GEMMs"),
    ((2, 6, 7, 16), (3, 3, 16, 24), {"strides": S1, "padding": "SAME"}, "M=24: filter grad on GEMMs"),
    ((3, 9, 8, 32), (3, 3, 32, 16), {"strides": S2, "padding": "SAME"}, "stride 2: input grad on per-image GEMMs"),
    ((8, 16, 16, 16), (3, 3, 16, 32), {"strides": S1, "padding": "SAME"}, "several pixel units and chunks"),
    ((4, 16, 16, 64), (3, 3, 64, 10), {"strides": S1, "padding": "SAME"}, "per-thread GEMMs of several chunks"),
    ((2, 5, 6, 16), (1, 1, 16, 16), {"strides": S1, "padding": "VALID"}, "1x1"),
    ((2, 2, 5, 16), (3, 3, 16, 16), {"strides": S1, "padding": "VALID"}, "empty output (OH = 0)"),
    ((2, 5, 5, 16), (3, 3, 16, 0), {"strides": S1, "padding": "SAME"}, "M=0"),
]


def _out_shape(in_shape, f_shape, attrs, depthwise):
    ph, pw = _pads(attrs["padding"], attrs.get("explicit_paddings", ()))
    dil = attrs.get("dilations", S1)
    oh, _ = _window(in_shape[1], f_shape[0], dil[1], attrs["strides"][1], attrs["padding"], ph)
    ow, _ = _window(in_shape[2], f_shape[1], dil[2], attrs["strides"][2], attrs["padding"], pw)
    return (in_shape[0], oh, ow, in_shape[3] * f_shape[3] if depthwise else f_shape[3])


def _backprop_samples(filter_grad, depthwise, geometries, seed=100):
    out = []
    for k, (xs, fs, attrs, note) in enumerate(geometries):
        for dt in (FLOATS if k < 2 else (np.float32,)):
            dy = rand(_out_shape(xs, fs, attrs, depthwise), dt, seed=seed + k)
            if filter_grad:
                inputs = {"input": rand(xs, dt, seed=seed + 20 + k), "filter_sizes": _i32(fs), "out_backprop": dy}
            else:
                inputs = {"input_sizes": _i32(xs), "filter": rand(fs, dt, seed=seed + 40 + k), "out_backprop": dy}
            # TensorFlow 2.21's CPU depthwise backprop kernels ignore dilations (they return the
            # undilated gradient), and its portable (non-oneDNN) filter backprops leave the output
            # uninitialized when out_backprop is empty, so those samples are checked against the
            # reference only.
            tf_wrong = (depthwise and "dilations" in attrs) or (filter_grad and dy.size == 0)
            out.append(Sample(inputs, dict(attrs), note=note, cross_check=not tf_wrong))
    return out


_DEPTHWISE_GEOMETRIES = [
    ((2, 6, 7, 3), (3, 3, 3, 2), {"strides": S1, "padding": "SAME"}, "3x3 SAME, multiplier 2"),
    ((2, 6, 7, 4), (2, 3, 4, 1), {"strides": S2, "padding": "VALID"}, "strided VALID"),
    ((1, 6, 7, 2), (3, 3, 2, 1), {"strides": S1, "padding": "SAME", "dilations": [1, 2, 2, 1]}, "dilated"),
    ((1, 5, 6, 2), (2, 2, 2, 3), {"strides": S2, "padding": "EXPLICIT",
                                  "explicit_paddings": [0, 0, 2, 1, 0, 1, 0, 0]}, "explicit"),
    ((0, 5, 6, 2), (3, 3, 2, 1), {"strides": S1, "padding": "SAME"}, "zero batch"),
]

_CONV_ATTRS = {"strides": S1, "padding": "SAME"}
_INPUT_ERRORS = [
    ErrorSample({"input_sizes": _i32([1, 6, 5, 2]), "filter": rand((3, 3, 2, 4)), "out_backprop": rand((1, 5, 5, 4))},
                _CONV_ATTRS, match="out_backprop", note="input_sizes do not match out_backprop"),
    ErrorSample({"input_sizes": _i32([1, 5, 5, 2]), "filter": rand((3, 3, 2)), "out_backprop": rand((1, 5, 5, 4))},
                _CONV_ATTRS, match="rank|4-dimensional"),
    ErrorSample({"input_sizes": _i32([1, 5, 5]), "filter": rand((3, 3, 2, 4)), "out_backprop": rand((1, 5, 5, 4))},
                _CONV_ATTRS, match="input_sizes"),
    ErrorSample({"input_sizes": _i32([1, 5, 5, 2]), "filter": rand((3, 3, 2, 4)), "out_backprop": rand((1, 5, 5, 4))},
                {"strides": [1, 1, 1], "padding": "SAME"}, match="4 values"),
    ErrorSample({"input_sizes": _i32([1, 5, 5, 2]), "filter": rand((3, 3, 2, 4)), "out_backprop": rand((1, 5, 5, 4))},
                {"strides": [1, 0, 1, 1], "padding": "SAME"}, match="[Ss]tride"),
]
_FILTER_ERRORS = [
    ErrorSample({"input": rand((1, 5, 5, 2)), "filter_sizes": _i32([3, 3, 2, 4]), "out_backprop": rand((1, 4, 5, 4))},
                _CONV_ATTRS, match="out_backprop", note="out_backprop does not match the forward output"),
    ErrorSample({"input": rand((1, 5, 5, 2)), "filter_sizes": _i32([3, 3, 3, 4]), "out_backprop": rand((1, 5, 5, 4))},
                _CONV_ATTRS, match="depth"),
    ErrorSample({"input": rand((5, 5, 2)), "filter_sizes": _i32([3, 3, 2, 4]), "out_backprop": rand((1, 5, 5, 4))},
                _CONV_ATTRS, match="rank|4-dimensional"),
    ErrorSample({"input": rand((1, 5, 5, 2)), "filter_sizes": _i32([3, 3, 2, 4]), "out_backprop": rand((1, 5, 5, 4))},
                {"strides": [2, 1, 1, 1], "padding": "SAME"}, error=Exception, match="batch"),
]
_DEPTHWISE_ERRORS = [
    ErrorSample({"input_sizes": _i32([1, 5, 5, 2]), "filter": rand((3, 3, 2, 2)), "out_backprop": rand((1, 5, 5, 2))},
                _CONV_ATTRS, match="out_backprop"),
    ErrorSample({"input_sizes": _i32([1, 5, 5, 3]), "filter": rand((3, 3, 2, 2)), "out_backprop": rand((1, 5, 5, 6))},
                _CONV_ATTRS, match="depth"),
]
_DEPTHWISE_FILTER_ERRORS = [
    ErrorSample({"input": rand((1, 5, 5, 2)), "filter_sizes": _i32([3, 3, 2, 2]), "out_backprop": rand((1, 5, 4, 4))},
                _CONV_ATTRS, match="out_backprop"),
    ErrorSample({"input": rand((1, 5, 5, 2)), "filter_sizes": _i32([3, 3, 2]), "out_backprop": rand((1, 5, 5, 4))},
                _CONV_ATTRS, match="filter_sizes"),
]


# ---------------------------------------------------------------------------- pooling


def _pool_geometry(shape, ksize, strides, padding, explicit_paddings):
    ph, pw = _pads(padding, explicit_paddings)
    oh, pt = _window(shape[1], ksize[1], 1, strides[1], padding, ph)
    ow, pl = _window(shape[2], ksize[2], 1, strides[2], padding, pw)
    for i in range(oh):
        for j in range(ow):
            r0, c0 = i * strides[1] - pt, j * strides[2] - pl
            yield i, j, slice(max(r0, 0), max(r0 + ksize[1], 0)), slice(max(c0, 0), max(c0 + ksize[2], 0))


def _first_max(win):
    """Index of each [n, c] column's maximum over axis 1 by TensorFlow's rule: start at the first
    element, move only to a strictly greater one (ties and NaNs keep the earlier element)."""
    best, idx = win[:, 0].copy(), np.zeros((win.shape[0], win.shape[2]), np.int64)
    for i in range(1, win.shape[1]):
        up = win[:, i] > best
        best, idx = np.where(up, win[:, i], best), np.where(up, i, idx)
    return idx


def _max_pool_grad_ref(orig_input, orig_output, grad, ksize, strides, padding, explicit_paddings=(), **_):
    n, h, w, c = orig_input.shape
    dx = np.zeros(orig_input.shape, np.float64)
    for i, j, rows, cols in _pool_geometry(orig_input.shape, ksize, strides, padding, explicit_paddings):
        win = orig_input[:, rows, cols, :]
        wh, ww = win.shape[1:3]
        first = _first_max(win.reshape(n, wh * ww, c))
        for b in range(n):
            for ch in range(c):
                dx[b, rows.start + first[b, ch] // ww, cols.start + first[b, ch] % ww, ch] += grad[b, i, j, ch]
    return dx.astype(orig_input.dtype)


def _avg_pool_grad_ref(orig_input_shape, grad, ksize, strides, padding, **_):
    shape = tuple(int(v) for v in orig_input_shape)
    dx = np.zeros(shape, np.float64)
    for i, j, rows, cols in _pool_geometry(shape, ksize, strides, padding, ()):
        count = len(range(shape[1])[rows]) * len(range(shape[2])[cols])
        dx[:, rows, cols, :] += grad[:, i:i + 1, j:j + 1, :].astype(np.float64) / count
    return dx.astype(grad.dtype)


def _pooled(x, ksize, strides, padding, explicit_paddings=()):
    """MaxPool's output (the orig_output input of MaxPoolGrad)."""
    cells = list(_pool_geometry(x.shape, ksize, strides, padding, explicit_paddings))
    out_h, out_w = len({c[0] for c in cells}), len({c[1] for c in cells})
    out = np.zeros((x.shape[0], out_h, out_w, x.shape[3]), x.dtype)
    if x.shape[0]:
        for i, j, rows, cols in cells:
            out[:, i, j, :] = x[:, rows, cols, :].max(axis=(1, 2))
    return out


_POOL_CASES = [
    ({"ksize": [1, 2, 2, 1], "strides": S2, "padding": "VALID"}, "2x2/2 VALID"),
    ({"ksize": [1, 3, 3, 1], "strides": S2, "padding": "SAME"}, "3x3/2 SAME (overlapping)"),
    ({"ksize": [1, 3, 2, 1], "strides": [1, 1, 3, 1], "padding": "SAME"}, "3x2 SAME"),
]


def _max_pool_grad_samples():
    out = []
    for dt in NUMBERS:
        x = rand((2, 7, 9, 3), dt, -3, 3, seed=150)  # integers: many ties within windows
        for attrs, note in _POOL_CASES:
            y = _pooled(x, **attrs)
            out.append(Sample({"orig_input": x, "orig_output": y, "grad": rand(y.shape, dt, seed=151)}, dict(attrs),
                              note=f"{note} {np.dtype(dt).name}"))
    x = np.ones((1, 4, 4, 2), np.float32)
    attrs = {"ksize": [1, 3, 3, 1], "strides": [1, 1, 1, 1], "padding": "VALID"}
    out.append(Sample({"orig_input": x, "orig_output": _pooled(x, **attrs), "grad": rand((1, 2, 2, 2), seed=152)},
                      attrs, note="all ties: the first position gets the gradient"))
    x = rand((1, 5, 5, 2), seed=153)
    attrs = {"ksize": [1, 3, 3, 1], "strides": S2, "padding": "EXPLICIT", "explicit_paddings": [0, 0, 1, 1, 2, 0, 0, 0]}
    y = _pooled(x, **attrs)
    out.append(Sample({"orig_input": x, "orig_output": y, "grad": rand(y.shape, seed=154)}, attrs, note="explicit"))
    # Windows tiling the input (every dx element written directly), with ties, several channel blocks.
    for dt in NUMBERS:
        x = np.round(rand((2, 8, 6, 70), dt, -3, 3, seed=155))
        for attrs in ({"ksize": [1, 2, 2, 1], "strides": S2, "padding": "VALID"},
                      {"ksize": [1, 2, 3, 1], "strides": [1, 2, 3, 1], "padding": "SAME"}):
            y = _pooled(x, **attrs)
            out.append(Sample({"orig_input": x, "orig_output": y, "grad": rand(y.shape, dt, seed=156)}, attrs,
                              note=f"tiling windows {np.dtype(dt).name}"))
    x = rand((1, 7, 9, 5), seed=157)
    attrs = {"ksize": [1, 2, 2, 1], "strides": S2, "padding": "VALID"}
    out.append(Sample({"orig_input": x, "orig_output": _pooled(x, **attrs), "grad": rand((1, 3, 4, 5), seed=158)},
                      attrs, note="odd sizes: the last row and column get no gradient"))
    nan = np.nan
    x = np.array([[nan, 1, 2, 3], [0, 5, nan, 1], [2, 2, -0.0, 0.0], [1, nan, 0.0, -0.0]], np.float32)
    x = np.stack([x, x[::-1], x[:, ::-1]], axis=-1)[None]
    for attrs in ({"ksize": [1, 2, 2, 1], "strides": S2, "padding": "VALID"},
                  {"ksize": [1, 3, 3, 1], "strides": S1, "padding": "VALID"}):
        y = _pooled(x, **attrs)
        out.append(Sample({"orig_input": x, "orig_output": y, "grad": rand(y.shape, seed=159)}, attrs,
                          note="NaN and signed zeros: a NaN counts only as the first element"))
    x = np.zeros((0, 4, 4, 2), np.float32)
    out.append(Sample({"orig_input": x, "orig_output": np.zeros((0, 2, 2, 2), np.float32),
                       "grad": np.zeros((0, 2, 2, 2), np.float32)}, dict(_POOL_CASES[0][0]), note="zero batch"))
    return out


def _avg_pool_grad_samples():
    out = []
    for dt in FLOATS:
        for attrs, note in _POOL_CASES:
            y = _pooled(np.zeros((2, 7, 9, 3)), **attrs)
            out.append(Sample({"orig_input_shape": _i32([2, 7, 9, 3]), "grad": rand(y.shape, dt, seed=160)},
                              dict(attrs), note=note))
    out.append(Sample({"orig_input_shape": _i32([0, 4, 4, 2]), "grad": np.zeros((0, 2, 2, 2), np.float32)},
                      dict(_POOL_CASES[0][0]), note="zero batch"))
    return out


_POOL_ATTRS = {"ksize": [1, 2, 2, 1], "strides": S2, "padding": "VALID"}
_MAX_POOL_GRAD_ERRORS = [
    ErrorSample({"orig_input": rand((1, 4, 4, 2)), "orig_output": rand((1, 3, 2, 2)), "grad": rand((1, 3, 2, 2))},
                _POOL_ATTRS, match="orig_output", when="runtime"),
    ErrorSample({"orig_input": rand((1, 4, 4, 2)), "orig_output": rand((1, 2, 2, 2)), "grad": rand((1, 2, 3, 2))},
                _POOL_ATTRS, match="grad"),
    ErrorSample({"orig_input": rand((4, 4, 2)), "orig_output": rand((1, 2, 2, 2)), "grad": rand((1, 2, 2, 2))},
                _POOL_ATTRS, match="rank|4-dimensional"),
]
_AVG_POOL_GRAD_ERRORS = [
    ErrorSample({"orig_input_shape": _i32([1, 4, 4, 2]), "grad": rand((1, 3, 2, 2))}, _POOL_ATTRS, match="grad",
                when="runtime"),
    ErrorSample({"orig_input_shape": _i32([1, 4, 4]), "grad": rand((1, 2, 2, 2))}, _POOL_ATTRS,
                match="orig_input_shape"),
    ErrorSample({"orig_input_shape": _i32([1, 4, 4, 2]), "grad": rand((1, 2, 2, 2))},
                {"ksize": [1, 2, 2, 1], "strides": [1, 2, 2], "padding": "VALID"}, error=Exception, match="4",
                when="runtime"),
]


# ---------------------------------------------------------------------------- batch norm grad, BiasAddGrad


def _fbn_grad_ref(y_backprop, x, scale, reserve_space_1, reserve_space_2, reserve_space_3, epsilon=1e-4,
                  data_format="NHWC", is_training=True, **_):
    cdim = 1 if data_format in ("NCHW", "NCDHW") else x.ndim - 1
    axes = tuple(d for d in range(x.ndim) if d != cdim)
    vec = lambda v: np.reshape(np.asarray(v, np.float64), [-1 if d == cdim else 1 for d in range(x.ndim)])  # noqa
    dy, x64 = y_backprop.astype(np.float64), x.astype(np.float64)
    inv = 1 / np.sqrt(reserve_space_2.astype(np.float64) + epsilon)
    xc = x64 - vec(reserve_space_1)
    offset_bp = dy.sum(axis=axes)
    scale_bp = (dy * xc).sum(axis=axes) * inv
    if is_training and dy.size:
        count = dy.size // dy.shape[cdim]
        dx = vec(scale * inv) * (dy - vec(offset_bp / count) - xc * vec(inv ** 2 * (dy * xc).sum(axis=axes) / count))
    else:
        dx = dy * vec(scale * inv)
    f32 = lambda a: np.asarray(a, np.float32)  # noqa: E731
    return f32(dx), f32(scale_bp), f32(offset_bp), np.zeros((0,), np.float32), np.zeros((0,), np.float32)


def _fbn_grad_sample(shape, data_format, is_training, seed, note):
    cdim = 1 if data_format in ("NCHW", "NCDHW") else len(shape) - 1
    x = rand(shape, seed=seed)
    axes = tuple(d for d in range(len(shape)) if d != cdim)
    ch = shape[cdim]
    if is_training and x.size:
        mean, var = x.mean(axis=axes).astype(np.float32), x.var(axis=axes).astype(np.float32)
    else:
        mean, var = rand((ch,), seed=seed + 1), positive((ch,), seed=seed + 2)
    return Sample({"y_backprop": rand(shape, seed=seed + 3), "x": x, "scale": rand((ch,), seed=seed + 4),
                   "reserve_space_1": mean, "reserve_space_2": var, "reserve_space_3": np.zeros((0,), np.float32)},
                  {"data_format": data_format, "is_training": is_training, "epsilon": 0.001}, note=note)


def _fbn_grad_samples():
    return [
        _fbn_grad_sample((2, 3, 4, 5), "NHWC", True, 170, "NHWC training"),
        _fbn_grad_sample((2, 3, 4, 5), "NHWC", False, 175, "NHWC inference"),
        _fbn_grad_sample((2, 5, 3, 4), "NCHW", True, 180, "NCHW training"),
        _fbn_grad_sample((2, 5, 3, 4), "NCHW", False, 185, "NCHW inference"),
        _fbn_grad_sample((2, 2, 3, 4, 3), "NDHWC", True, 190, "NDHWC training"),
        _fbn_grad_sample((0, 3, 4, 5), "NHWC", True, 195, "zero batch"),
    ]


def _bias_add_grad_ref(out_backprop, data_format="NHWC"):
    cdim = 1 if data_format == "NCHW" else out_backprop.ndim - 1
    axes = tuple(d for d in range(out_backprop.ndim) if d != cdim)
    acc = np.float64 if out_backprop.dtype.kind == "f" else np.int64
    return out_backprop.astype(acc).sum(axis=axes).astype(out_backprop.dtype)


def _bias_add_grad_samples():
    out = []
    for dt in NUMBERS:
        out.append(Sample({"out_backprop": rand((4, 3), dt, seed=200)}))
        out.append(Sample({"out_backprop": rand((2, 4, 5, 3), dt, seed=201)}, note="NHWC"))
        out.append(Sample({"out_backprop": rand((2, 3, 4, 5), dt, seed=202)}, {"data_format": "NCHW"}, note="NCHW"))
    out.append(Sample({"out_backprop": rand((2, 3, 2, 2, 2), seed=203)}, {"data_format": "NCHW"}, note="rank 5 NCHW"))
    out.append(Sample({"out_backprop": rand((300, 70), seed=204)}, note="many rows"))
    out.append(Sample({"out_backprop": np.zeros((0, 4), np.float32)}, note="zero rows"))
    return out


_FBN_INPUTS = {"y_backprop": rand((2, 3, 3, 4)), "x": rand((2, 3, 3, 4)), "scale": rand((4,)),
               "reserve_space_1": rand((4,)), "reserve_space_2": positive((4,)),
               "reserve_space_3": np.zeros((0,), np.float32)}

ENTRIES = [
    OpEntry("Conv2DBackpropInput",
            _backprop_samples(False, False, _GEOMETRIES) + _backprop_samples(False, False, _DIRECT_GEOMETRIES, 300) + [
                Sample({"input_sizes": _i32([7, 8]), "filter": rand((3, 3, 3, 4), seed=145),
                        "out_backprop": rand((2, 7, 8, 4), seed=146)}, {"strides": S1, "padding": "SAME"},
                       note="input_sizes of [H, W]")],
            ref=_backprop_input_ref, rtol=1e-4, atol=1e-3, errors=_INPUT_ERRORS),
    OpEntry("Conv2DBackpropFilter",
            _backprop_samples(True, False, _GEOMETRIES) + _backprop_samples(True, False, _DIRECT_GEOMETRIES, 300),
            ref=_backprop_filter_ref,
            rtol=1e-4, atol=1e-3, errors=_FILTER_ERRORS),
    OpEntry("DepthwiseConv2dNativeBackpropInput", _backprop_samples(False, True, _DEPTHWISE_GEOMETRIES),
            ref=lambda **kw: _backprop_input_ref(depthwise=True, **kw), rtol=1e-4, atol=1e-3,
            errors=_DEPTHWISE_ERRORS),
    OpEntry("DepthwiseConv2dNativeBackpropFilter", _backprop_samples(True, True, _DEPTHWISE_GEOMETRIES),
            ref=lambda **kw: _backprop_filter_ref(depthwise=True, **kw), rtol=1e-4, atol=1e-3,
            errors=_DEPTHWISE_FILTER_ERRORS),
    OpEntry("MaxPoolGrad", _max_pool_grad_samples(), ref=_max_pool_grad_ref, errors=_MAX_POOL_GRAD_ERRORS),
    OpEntry("AvgPoolGrad", _avg_pool_grad_samples(), ref=_avg_pool_grad_ref, rtol=1e-5, atol=1e-6,
            errors=_AVG_POOL_GRAD_ERRORS),
    # No automatic TF cross-check: with oneDNN (the default on x86) TensorFlow's kernel returns scalars for
    # reserve_space_4/5 where its shape function and portable kernel give [0]; core/tests/test_nn_grad.py
    # compares the three gradients with tf.raw_ops instead.
    OpEntry("FusedBatchNormGradV3", _fbn_grad_samples(), ref=_fbn_grad_ref, rtol=1e-4, atol=1e-4, cross_check=False,
            errors=[ErrorSample(dict(_FBN_INPUTS, scale=rand((5,))), match="scale"),
                    ErrorSample(dict(_FBN_INPUTS, x=rand((2, 3, 4, 4))), match="shape"),
                    ErrorSample(dict(_FBN_INPUTS, x=rand((2, 3, 4)), y_backprop=rand((2, 3, 4))),
                                match="rank|dimensional")]),
    OpEntry("BiasAddGrad", _bias_add_grad_samples(), ref=_bias_add_grad_ref, rtol=1e-5, atol=1e-5,
            errors=[ErrorSample({"out_backprop": rand((4,))}, match="rank|2-dimensional")]),
]
