"""Conformance entries: Erfc and Erfinv, the block rearrangements (SpaceToBatchND,
BatchToSpaceND, SpaceToDepth, DepthToSpace), LRN and LRNGrad, and the 3-D convolution and
pooling ops with their gradient ops. References are float64 NumPy/SciPy."""

import itertools

import numpy as np
import scipy.special

from conformance.gen import FLOATS, rand
from conformance.harness import ErrorSample, OpEntry, Sample

ALL = (np.float32, np.float64, np.int32, np.int64)

# ---------------------------------------------------------------------------- Erfc, Erfinv


def _unary(op, fn, low, high, specials, dtypes=FLOATS, grad_range=None, rtol=1e-5, atol=1e-6):
    samples = []
    for i, shape in enumerate([(), (7,), (2, 3, 5), (0, 4), (1000,)]):
        for dt in dtypes:
            samples.append(Sample({"x": rand(shape, dt, low, high, seed=i)}, note=f"{shape} {np.dtype(dt).name}"))
    for dt in dtypes:
        samples.append(Sample({"x": np.asarray(specials, dt)}, note=f"specials {np.dtype(dt).name}"))

    def ref(x):
        with np.errstate(all="ignore"):
            return np.asarray(fn(x.astype(np.float64))).astype(x.dtype)

    lo, hi = grad_range or (low, high)
    grads = [Sample({"x": rand((9,), np.float64, lo, hi, seed=40)}), Sample({"x": rand((2, 3), np.float64, lo, hi,
                                                                                      seed=41)})]
    return OpEntry(op, samples, ref=ref, rtol=rtol, atol=atol, grad_samples=grads)


_ERFC_SPECIALS = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5, 3.5, 8.0, 9.5, -6.0, 1e-30]
_ERFINV_SPECIALS = [np.nan, 1.0, -1.0, 0.0, -0.0, 0.5, -0.5, 2.0, -1.5, np.inf, 1e-30, 0.999, -0.9999, 0.99999]

# ---------------------------------------------------------------------------- block rearrangements


def _i(v, dt=np.int32):
    return np.asarray(v, dt)


def _s2b_ref(input, block_shape, paddings):
    block, pads = list(block_shape), np.asarray(paddings).reshape(-1, 2)
    m = len(block)
    x = np.pad(input, [(0, 0)] + [tuple(p) for p in pads] + [(0, 0)] * (input.ndim - 1 - m))
    b = x.shape[0]
    view = [b]
    for i in range(m):
        view += [x.shape[1 + i] // block[i], block[i]]
    view += list(x.shape[1 + m:])
    x = x.reshape(view)
    perm = [2 + 2 * i for i in range(m)] + [0] + [1 + 2 * i for i in range(m)] + list(range(1 + 2 * m, len(view)))
    x = x.transpose(perm)
    return x.reshape([b * int(np.prod(block))] + [view[1 + 2 * i] for i in range(m)] + list(view[1 + 2 * m:]))


def _b2s_ref(input, block_shape, crops):
    block, crops = list(block_shape), np.asarray(crops).reshape(-1, 2)
    m = len(block)
    b = input.shape[0] // int(np.prod(block))
    x = input.reshape(block + [b] + list(input.shape[1:]))
    perm = [m]
    for i in range(m):
        perm += [m + 1 + i, i]
    perm += list(range(2 * m + 1, x.ndim))
    x = x.transpose(perm)
    full = [b] + [input.shape[1 + i] * block[i] for i in range(m)] + list(input.shape[1 + m:])
    x = x.reshape(full)
    idx = tuple([slice(None)] + [slice(crops[i][0], full[1 + i] - crops[i][1]) for i in range(m)])
    return x[idx]


def _s2b_samples():
    out = []
    for dt in ALL:
        out.append(Sample({"input": rand((1, 4, 4, 1), dt, seed=1), "block_shape": _i([2, 2]),
                           "paddings": _i([[0, 0], [0, 0]])}, note=np.dtype(dt).name))
    out.append(Sample({"input": rand((2, 5, 3), np.float64, seed=2), "block_shape": _i([3]),
                       "paddings": _i([[1, 0]])}, note="1-D block, rest dims"))
    out.append(Sample({"input": rand((2, 3, 5, 2, 2), np.float64, seed=3), "block_shape": _i([2, 3], np.int64),
                       "paddings": _i([[1, 0], [0, 1]], np.int64)}, note="int64 block and paddings"))
    out.append(Sample({"input": rand((0, 4, 2), np.float32, seed=4), "block_shape": _i([2]),
                       "paddings": _i([[0, 0]])}, note="empty batch"))
    return out


def _b2s_samples():
    out = []
    for dt in ALL:
        out.append(Sample({"input": rand((4, 2, 2, 1), dt, seed=5), "block_shape": _i([2, 2]),
                           "crops": _i([[0, 0], [0, 0]])}, note=np.dtype(dt).name))
    out.append(Sample({"input": rand((6, 2, 3), np.float64, seed=6), "block_shape": _i([3]), "crops": _i([[1, 2]])},
                      note="crops"))
    out.append(Sample({"input": rand((12, 2, 2, 3), np.float64, seed=7), "block_shape": _i([2, 3], np.int64),
                       "crops": _i([[1, 0], [0, 2]], np.int64)}, note="int64"))
    return out


def _depth_view(input, block_size, data_format, to_depth):
    b = block_size
    if data_format == "NCHW":
        input = input.transpose(0, 2, 3, 1)
    n, h, w, c = input.shape
    if to_depth:
        x = input.reshape(n, h // b, b, w // b, b, c).transpose(0, 1, 3, 2, 4, 5).reshape(n, h // b, w // b, b * b * c)
    else:
        x = input.reshape(n, h, w, b, b, c // (b * b)).transpose(0, 1, 3, 2, 4, 5).reshape(n, h * b, w * b,
                                                                                             c // (b * b))
    return x.transpose(0, 3, 1, 2) if data_format == "NCHW" else x


def _depth_samples(to_depth):
    out = []
    shape = (2, 4, 6, 3) if to_depth else (2, 2, 3, 12)
    for dt in ALL:
        out.append(Sample({"input": rand(shape, dt, seed=8)}, {"block_size": 2}, note=np.dtype(dt).name))
    out.append(Sample({"input": rand((1, 6, 3, 2) if to_depth else (1, 2, 1, 18), np.float64, seed=9)},
                      {"block_size": 3}, note="block 3"))
    out.append(Sample({"input": rand((2, 3, 4, 6) if to_depth else (2, 12, 2, 3), np.float64, seed=10)},
                      {"block_size": 2, "data_format": "NCHW"}, cross_check=False,
                      note="NCHW (TensorFlow has no CPU kernel)"))
    return out


def _depth_errors(to_depth):
    op_shape = (1, 3, 4, 1) if to_depth else (1, 2, 2, 6)
    return [ErrorSample({"input": rand(op_shape)}, {"block_size": 2}, match="divisible"),
            ErrorSample({"input": rand((2, 4, 4))}, {"block_size": 2}, match="rank|4-dimensional|4-D")]


# ---------------------------------------------------------------------------- LRN


def _lrn_norm(x, depth_radius, bias, alpha):
    sq = x.astype(np.float64) ** 2
    d = x.shape[-1]
    s = np.zeros_like(sq)
    for j in range(d):
        s[..., j] = sq[..., max(0, j - depth_radius):min(d, j + depth_radius + 1)].sum(-1)
    return bias + alpha * s


def _lrn_ref(input, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5):
    return (input / _lrn_norm(input, depth_radius, bias, alpha) ** beta).astype(input.dtype)


def _lrn_grad_ref(input_grads, input_image, output_image, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5):
    x, y, dy = (a.astype(np.float64) for a in (input_image, output_image, input_grads))
    norm = _lrn_norm(x, depth_radius, bias, alpha)
    d = x.shape[-1]
    dx = dy * norm ** -beta
    coef = -2 * alpha * beta * y / norm * dy
    for k in range(d):
        lo, hi = max(0, k - depth_radius), min(d, k + depth_radius + 1)
        dx[..., k] += coef[..., lo:hi].sum(-1) * x[..., k]
    return dx.astype(input_grads.dtype)


_LRN_ATTRS = [{}, {"depth_radius": 2, "bias": 2.0, "alpha": 0.5, "beta": 0.75}, {"depth_radius": 0, "beta": 1.0},
              {"depth_radius": 1, "bias": 0.5, "alpha": 1e-3}]


def _lrn_samples():
    return [Sample({"input": rand((2, 3, 4, 7), seed=20 + i)}, a, note=str(a)) for i, a in enumerate(_LRN_ATTRS)] + [
        Sample({"input": rand((1, 2, 2, 0), seed=30)}, note="empty depth")]


def _lrn_grad_samples():
    out = []
    for i, a in enumerate(_LRN_ATTRS):
        x = rand((2, 2, 3, 6), seed=31 + i)
        out.append(Sample({"input_grads": rand((2, 2, 3, 6), seed=40 + i), "input_image": x,
                           "output_image": _lrn_ref(x, **a)}, a, note=str(a)))
    return out


# ---------------------------------------------------------------------------- 3-D convolution and pooling


def _geom(size, k, dil, stride, padding):
    eff = (k - 1) * dil + 1
    if padding == "VALID":
        return (size - eff + stride) // stride, 0
    out = (size + stride - 1) // stride
    return out, max(0, (out - 1) * stride + eff - size) // 2


def _to_last(a, fmt):
    return a if fmt == "NDHWC" else a.transpose(0, 2, 3, 4, 1)


def _from_last(a, fmt):
    return a if fmt == "NDHWC" else a.transpose(0, 4, 1, 2, 3)


def _sp(v, fmt):
    return list(v[1:4]) if fmt == "NDHWC" else list(v[2:5])


def _conv3d_setup(in_shape, k_shape, strides, padding, dilations, fmt):
    """(output spatial sizes, leading pads, padded spatial size, list of (tap, slices))."""
    strides, dil = _sp(strides, fmt), _sp(dilations, fmt)
    sp = in_shape[1:4]
    outs, pads = zip(*[_geom(sp[i], k_shape[i], dil[i], strides[i], padding) for i in range(3)])
    padded = [pads[i] + outs[i] * strides[i] + k_shape[i] * dil[i] + sp[i] for i in range(3)]
    taps = []
    for a in range(k_shape[0]):
        for b in range(k_shape[1]):
            for c in range(k_shape[2]):
                sl = tuple(slice(t * dil[i], t * dil[i] + outs[i] * strides[i], strides[i])
                           for i, t in enumerate((a, b, c)))
                taps.append(((a, b, c), sl))
    return outs, pads, padded, taps


def _conv3d_ref(input, filter, strides, padding, data_format="NDHWC", dilations=(1, 1, 1, 1, 1)):
    x = _to_last(input.astype(np.float64), data_format)
    w = filter.astype(np.float64)
    outs, pads, padded, taps = _conv3d_setup(x.shape, w.shape, strides, padding, dilations, data_format)
    xp = np.zeros([x.shape[0]] + padded + [x.shape[4]])
    xp[:, pads[0]:pads[0] + x.shape[1], pads[1]:pads[1] + x.shape[2], pads[2]:pads[2] + x.shape[3]] = x
    y = np.zeros([x.shape[0]] + list(outs) + [w.shape[4]])
    for t, sl in taps:
        y += xp[(slice(None),) + sl] @ w[t]
    return _from_last(y, data_format).astype(input.dtype)


def _conv3d_input_ref(input_sizes, filter, out_backprop, strides, padding, data_format="NDHWC",
                      dilations=(1, 1, 1, 1, 1)):
    shape = [int(v) for v in input_sizes]
    shape = shape if data_format == "NDHWC" else [shape[0]] + shape[2:] + [shape[1]]
    w, dy = filter.astype(np.float64), _to_last(out_backprop.astype(np.float64), data_format)
    outs, pads, padded, taps = _conv3d_setup(shape, w.shape, strides, padding, dilations, data_format)
    dxp = np.zeros([shape[0]] + padded + [shape[4]])
    for t, sl in taps:
        dxp[(slice(None),) + sl] += dy @ w[t].T
    dx = dxp[:, pads[0]:pads[0] + shape[1], pads[1]:pads[1] + shape[2], pads[2]:pads[2] + shape[3]]
    return _from_last(dx, data_format).astype(filter.dtype)


def _conv3d_filter_ref(input, filter_sizes, out_backprop, strides, padding, data_format="NDHWC",
                       dilations=(1, 1, 1, 1, 1)):
    x, dy = _to_last(input.astype(np.float64), data_format), _to_last(out_backprop.astype(np.float64), data_format)
    f_shape = [int(v) for v in filter_sizes]
    outs, pads, padded, taps = _conv3d_setup(x.shape, f_shape, strides, padding, dilations, data_format)
    xp = np.zeros([x.shape[0]] + padded + [x.shape[4]])
    xp[:, pads[0]:pads[0] + x.shape[1], pads[1]:pads[1] + x.shape[2], pads[2]:pads[2] + x.shape[3]] = x
    dw = np.zeros(f_shape)
    for t, sl in taps:
        dw[t] = np.einsum("ndhwc,ndhwo->co", xp[(slice(None),) + sl], dy)
    return dw.astype(input.dtype)


S1, S2 = [1, 1, 1, 1, 1], [1, 2, 2, 2, 1]
_CONV3D_CASES = [  # (input shape, filter shape, attrs)
    ((2, 4, 5, 4, 3), (2, 2, 2, 3, 4), {"strides": S1, "padding": "VALID"}),
    ((1, 5, 4, 6, 2), (3, 2, 3, 2, 3), {"strides": S2, "padding": "SAME"}),
    ((1, 5, 5, 5, 2), (2, 2, 2, 2, 2), {"strides": [1, 1, 2, 1, 1], "padding": "SAME"}),
    ((1, 6, 5, 6, 2), (2, 2, 2, 2, 1), {"strides": S1, "padding": "VALID", "dilations": [1, 2, 1, 2, 1]}),
]


def _conv3d_samples():
    out = []
    for dt in FLOATS:
        for i, (xs, ws, a) in enumerate(_CONV3D_CASES):
            # TensorFlow's CPU Conv3D dilates only in float32 (through oneDNN).
            cc = "dilations" not in a or dt == np.float32
            out.append(Sample({"input": rand(xs, dt, seed=50 + i), "filter": rand(ws, dt, seed=60 + i)}, a,
                              cross_check=cc, note=str(a)))
    out.append(Sample({"input": rand((1, 2, 4, 5, 4)), "filter": rand((2, 2, 2, 2, 3))},
                      {"strides": S1, "padding": "SAME", "data_format": "NCDHW"}, cross_check=False,
                      note="NCDHW (TensorFlow has no CPU kernel)"))
    return out


def _conv3d_out_shape(xs, ws, a):
    y = _conv3d_ref(np.zeros(xs), np.zeros(ws), **a)
    return y.shape


def _conv3d_input_samples():
    out = []
    for dt in FLOATS:
        for i, (xs, ws, a) in enumerate(_CONV3D_CASES):
            dy = rand(_conv3d_out_shape(xs, ws, a), dt, seed=70 + i)
            # TensorFlow's CPU Conv3D backprops have no dilated kernels.
            out.append(Sample({"input_sizes": _i(xs), "filter": rand(ws, dt, seed=60 + i), "out_backprop": dy}, a,
                              cross_check="dilations" not in a, note=str(a)))
    return out


def _conv3d_filter_samples():
    out = []
    for dt in FLOATS:
        for i, (xs, ws, a) in enumerate(_CONV3D_CASES):
            dy = rand(_conv3d_out_shape(xs, ws, a), dt, seed=70 + i)
            out.append(Sample({"input": rand(xs, dt, seed=50 + i), "filter_sizes": _i(ws), "out_backprop": dy}, a,
                              cross_check="dilations" not in a, note=str(a)))
    return out


def _pool_windows(x_shape, ksize, strides, padding, fmt):
    """Yields (output index, input slices) in NDHWC terms, clipped to the input."""
    k, s = _sp(ksize, fmt), _sp(strides, fmt)
    sp = x_shape[1:4]
    geo = [_geom(sp[i], k[i], 1, s[i], padding) for i in range(3)]
    for od in range(geo[0][0]):
        for oh in range(geo[1][0]):
            for ow in range(geo[2][0]):
                sl = []
                for i, o in enumerate((od, oh, ow)):
                    lo = o * s[i] - geo[i][1]
                    sl.append(slice(max(lo, 0), min(max(lo + k[i], 0), sp[i])))
                yield (od, oh, ow), tuple(sl)


def _pool3d_out(x, ksize, strides, padding, fmt):
    k, s = _sp(ksize, fmt), _sp(strides, fmt)
    return [_geom(x.shape[1 + i], k[i], 1, s[i], padding)[0] for i in range(3)]


def _pool3d_ref(input, ksize, strides, padding, data_format="NDHWC", is_max=True):
    x = _to_last(input.astype(np.float64), data_format)
    y = np.zeros([x.shape[0]] + _pool3d_out(x, ksize, strides, padding, data_format) + [x.shape[4]])
    for o, sl in _pool_windows(x.shape, ksize, strides, padding, data_format):
        win = x[(slice(None),) + sl]
        y[(slice(None),) + o] = win.max(axis=(1, 2, 3)) if is_max else win.mean(axis=(1, 2, 3))
    return _from_last(y, data_format).astype(input.dtype)


def _max_pool3d_grad_ref(orig_input, orig_output, grad, ksize, strides, padding, data_format="NDHWC"):
    x, y, g = (_to_last(a.astype(np.float64), data_format) for a in (orig_input, orig_output, grad))
    dx = np.zeros_like(x)
    for o, sl in _pool_windows(x.shape, ksize, strides, padding, data_format):
        win = x[(slice(None),) + sl]
        yo = y[(slice(None),) + o][:, None, None, None, :]
        dx[(slice(None),) + sl] += (win == yo) * g[(slice(None),) + o][:, None, None, None, :]
    return _from_last(dx, data_format).astype(grad.dtype)


def _avg_pool3d_grad_ref(orig_input_shape, grad, ksize, strides, padding, data_format="NDHWC"):
    shape = [int(v) for v in orig_input_shape]
    shape = shape if data_format == "NDHWC" else [shape[0]] + shape[2:] + [shape[1]]
    g = _to_last(grad.astype(np.float64), data_format)
    dx = np.zeros(shape)
    for o, sl in _pool_windows(shape, ksize, strides, padding, data_format):
        cnt = np.prod([s.stop - s.start for s in sl])
        dx[(slice(None),) + sl] += g[(slice(None),) + o][:, None, None, None, :] / cnt
    return _from_last(dx, data_format).astype(grad.dtype)


_POOL3D_CASES = [
    ((2, 4, 5, 4, 3), {"ksize": [1, 2, 2, 2, 1], "strides": S2, "padding": "VALID"}),
    ((1, 5, 4, 6, 2), {"ksize": [1, 3, 2, 3, 1], "strides": S2, "padding": "SAME"}),
    ((1, 3, 5, 4, 2), {"ksize": [1, 2, 3, 1, 1], "strides": [1, 1, 2, 1, 1], "padding": "SAME"}),
]


def _pool3d_samples(dtypes):
    out = []
    for dt in dtypes:
        for i, (xs, a) in enumerate(_POOL3D_CASES):
            # TensorFlow has float32 CPU kernels only for the 3-D pools.
            out.append(Sample({"input": rand(xs, dt, seed=80 + i)}, a, cross_check=dt == np.float32, note=str(a)))
    out.append(Sample({"input": rand((1, 2, 4, 5, 4), dtypes[0], seed=85)},
                      {"ksize": [1, 1, 2, 2, 2], "strides": [1, 1, 2, 2, 2], "padding": "SAME", "data_format": "NCDHW"},
                      cross_check=False, note="NCDHW (TensorFlow has no CPU kernel)"))
    return out


def _max_pool3d_grad_samples():
    out = []
    for i, (xs, a) in enumerate(_POOL3D_CASES):
        x = rand(xs, seed=80 + i)
        y = _pool3d_ref(x, **a)
        out.append(Sample({"orig_input": x, "orig_output": y, "grad": rand(y.shape, seed=90 + i)}, a, note=str(a)))
    x = np.round(rand((1, 4, 4, 4, 1), seed=95))  # many ties
    a = {"ksize": [1, 2, 2, 2, 1], "strides": [1, 1, 1, 1, 1], "padding": "VALID"}
    y = _pool3d_ref(x, **a)
    out.append(Sample({"orig_input": x, "orig_output": y, "grad": rand(y.shape, seed=96)}, a, note="ties"))
    return out


def _avg_pool3d_grad_samples():
    out = []
    for dt in FLOATS:
        for i, (xs, a) in enumerate(_POOL3D_CASES):
            y = _pool3d_ref(np.zeros(xs), **a)
            out.append(Sample({"orig_input_shape": _i(xs), "grad": rand(y.shape, dt, seed=90 + i)}, a,
                              cross_check=dt == np.float32, note=str(a)))
    return out


# ---------------------------------------------------------------------------- CTCLoss


def _ctc_collapse(path, blank, merge):
    out, prev = [], None
    for k in path:
        if k != blank and not (merge and k == prev):
            out.append(k)
        prev = k
    return tuple(out)


def _ctc_brute_loss(logits, label, blank, merge):
    """-log of the summed probability of every alignment (all classes ** time paths) whose
    collapse is `label`: independent of the forward-backward recursion."""
    t, c = logits.shape
    if t == 0:
        return 0.0 if not label else np.inf
    logp = logits - scipy.special.logsumexp(logits, axis=1, keepdims=True)
    paths = np.array(list(itertools.product(range(c), repeat=t)))
    keep = np.array([_ctc_collapse(p, blank, merge) == tuple(label) for p in paths])
    if not keep.any():
        return np.inf
    return -scipy.special.logsumexp(logp[np.arange(t), paths[keep]].sum(axis=1))


def _ctc_ref(inputs, labels_indices, labels_values, sequence_length, preprocess_collapse_repeated=False,
             ctc_merge_repeated=True, ignore_longer_outputs_than_inputs=False):
    x = inputs.astype(np.float64)
    max_time, batch, classes = x.shape
    blank = classes - 1
    loss, grad = np.zeros(batch), np.zeros_like(x)
    for b in range(batch):
        label = [int(v) for (bi, _), v in zip(labels_indices, labels_values) if bi == b]
        if len(label) > sequence_length[b]:
            continue  # only reached with ignore_longer_outputs_than_inputs: zeros
        if preprocess_collapse_repeated:
            label = [k for i, k in enumerate(label) if i == 0 or label[i - 1] != k]
        t = int(sequence_length[b])
        f = lambda z: _ctc_brute_loss(z, label, blank, ctc_merge_repeated)  # noqa: E731
        loss[b] = f(x[:t, b])
        if np.isinf(loss[b]):  # no alignment: TensorFlow's gradient is the softmax itself
            grad[:t, b] = scipy.special.softmax(x[:t, b], axis=1)
            continue
        for idx in np.ndindex(t, classes):  # the gradient by central differences of the brute-force loss
            hi, lo = x[:t, b].copy(), x[:t, b].copy()
            hi[idx] += 1e-5
            lo[idx] -= 1e-5
            grad[idx[0], b, idx[1]] = (f(hi) - f(lo)) / 2e-5
    return loss.astype(inputs.dtype), grad.astype(inputs.dtype)


def _ctc_sample(dt, labels, seq_len, attrs=None, max_time=5, classes=4, seed=0, note=""):
    idx = np.array([[b, i] for b, lab in enumerate(labels) for i in range(len(lab))], np.int64).reshape(-1, 2)
    vals = np.array([v for lab in labels for v in lab], np.int32)
    return Sample({"inputs": rand((max_time, len(labels), classes), dt, seed=seed), "labels_indices": idx,
                   "labels_values": vals, "sequence_length": np.array(seq_len, np.int32)}, attrs or {}, note=note)


def _ctc_samples():
    out = []
    for dt in FLOATS:
        out.append(_ctc_sample(dt, [[0, 1, 1], [2]], [5, 3], seed=1, note="repeat needs a blank"))
    out.append(_ctc_sample(np.float64, [[0, 0], [1], [1, 2, 1]], [4, 2, 5], seed=2, note="three entries"))
    out.append(_ctc_sample(np.float64, [[0, 1, 1], [0, 0]], [3, 2], seed=6, note="no time for the blank: inf"))
    out.append(_ctc_sample(np.float64, [[1, 1, 0], [2, 2]], [3, 4], {"preprocess_collapse_repeated": True},
                           seed=3, note="collapse repeated"))
    out.append(_ctc_sample(np.float64, [[1, 1, 0], [0]], [3, 2], {"ctc_merge_repeated": False}, seed=4,
                           note="no merging"))
    out.append(_ctc_sample(np.float32, [[0, 1, 1, 2], [2]], [3, 3], {"ignore_longer_outputs_than_inputs": True},
                           seed=5, note="too long ignored"))
    return out


def _ctc_error(labels, seq_len, match, idx=None, attrs=None):
    s = _ctc_sample(np.float32, labels, seq_len, attrs)
    if idx is not None:
        s.inputs["labels_indices"] = np.array(idx, np.int64)
    return ErrorSample(s.inputs, s.attrs, match=match, when="runtime")


_CTC_ERRORS = [
    _ctc_error([[0, 3], [1]], [5, 5], "num_classes - 1"),
    _ctc_error([[0, 1], [1]], [5, 6], "sequence_length"),
    _ctc_error([[0, 1, 1, 2], [1]], [3, 5], "Not enough time"),
    _ctc_error([[0, 1], []], [5, 5], "Labels length is zero in batch 1"),
    _ctc_error([[0, 1], [1]], [5, 5], "ordered", idx=[[0, 1], [0, 0], [1, 0]]),
    _ctc_error([[0, 1], [1]], [5, 5], "batch index", idx=[[0, 0], [0, 1], [2, 0]]),
    ErrorSample({"inputs": rand((5, 4)), "labels_indices": np.zeros((0, 2), np.int64),
                 "labels_values": np.zeros((0,), np.int32), "sequence_length": np.array([5], np.int32)},
                match="rank|3"),
]

_CONV3D_ERRORS = [
    ErrorSample({"input": rand((1, 4, 4, 4, 3)), "filter": rand((2, 2, 2, 2, 4))}, {"strides": S1, "padding": "SAME"},
                match="depth|divisible"),
    ErrorSample({"input": rand((1, 4, 4, 3)), "filter": rand((2, 2, 2, 3, 4))}, {"strides": S1, "padding": "SAME"},
                match="rank|5"),
    ErrorSample({"input": rand((1, 1, 4, 4, 3)), "filter": rand((3, 2, 2, 3, 4))}, {"strides": S1, "padding": "VALID"},
                match="negative"),
    ErrorSample({"input": rand((1, 4, 4, 4, 3)), "filter": rand((2, 2, 2, 3, 4))},
                {"strides": [2, 1, 1, 1, 1], "padding": "SAME"}, error=Exception, match="batch"),
]

ENTRIES = [
    OpEntry("CTCLoss", _ctc_samples(), ref=_ctc_ref, rtol=1e-5, atol=1e-5, errors=_CTC_ERRORS, grad_outputs=(0,),
            grad_samples=[s for s in _ctc_samples() if s.inputs["inputs"].dtype == np.float64 and "inf" not in s.note]),
    _unary("Erfc", scipy.special.erfc, -4.0, 9.0, _ERFC_SPECIALS),
    _unary("Erfinv", scipy.special.erfinv, -0.999, 0.999, _ERFINV_SPECIALS, grad_range=(-0.9, 0.9), rtol=2e-5),
    OpEntry("SpaceToBatchND", _s2b_samples(), ref=_s2b_ref, constant_inputs=("block_shape", "paddings"),
            errors=[ErrorSample({"input": rand((1, 5, 4, 1)), "block_shape": _i([2, 2]),
                                 "paddings": _i([[0, 0], [0, 0]])}, match="divisible"),
                    ErrorSample({"input": rand((1, 4, 4, 1)), "block_shape": _i([2, 2]),
                                 "paddings": _i([[-1, 1], [0, 0]])}, match="non-negative"),
                    ErrorSample({"input": rand((1, 4, 4, 1)), "block_shape": _i([0, 2]),
                                 "paddings": _i([[0, 0], [0, 0]])}, match=">= 1"),
                    ErrorSample({"input": rand((1, 4, 4, 1)), "block_shape": _i([2, 2]),
                                 "paddings": _i([[0, 0]])}, match="shape"),
                    ErrorSample({"input": rand((4,)), "block_shape": _i([2]), "paddings": _i([[0, 0]])},
                                match="rank")]),
    OpEntry("BatchToSpaceND", _b2s_samples(), ref=_b2s_ref, constant_inputs=("block_shape", "crops"),
            errors=[ErrorSample({"input": rand((3, 2, 2, 1)), "block_shape": _i([2, 2]),
                                 "crops": _i([[0, 0], [0, 0]])}, match="divisible"),
                    ErrorSample({"input": rand((4, 2, 2, 1)), "block_shape": _i([2, 2]),
                                 "crops": _i([[3, 2], [0, 0]])}, match="exceed"),
                    ErrorSample({"input": rand((4, 2, 2, 1)), "block_shape": _i([2, 2]),
                                 "crops": _i([[0, -1], [0, 0]])}, match="non-negative")]),
    OpEntry("SpaceToDepth", _depth_samples(True), ref=lambda input, block_size, data_format="NHWC":
            _depth_view(input, block_size, data_format, True), errors=_depth_errors(True)),
    OpEntry("DepthToSpace", _depth_samples(False), ref=lambda input, block_size, data_format="NHWC":
            _depth_view(input, block_size, data_format, False), errors=_depth_errors(False)),
    OpEntry("LRN", _lrn_samples(), ref=_lrn_ref, rtol=1e-5, atol=1e-6,
            grad_checked_by="test_nn_ext.py::test_lrn_gradient_matches_finite_differences",
            errors=[ErrorSample({"input": rand((2, 3, 4))}, match="rank|4"),
                    ErrorSample({"input": rand((1, 2, 2, 3))}, {"depth_radius": -1}, match="depth_radius",
                                when="runtime")]),
    OpEntry("LRNGrad", _lrn_grad_samples(), ref=_lrn_grad_ref, rtol=1e-4, atol=1e-5,
            errors=[ErrorSample({"input_grads": rand((1, 2, 2, 3)), "input_image": rand((1, 2, 2, 4)),
                                 "output_image": rand((1, 2, 2, 3))}, match="same shape")]),
    OpEntry("Conv3D", _conv3d_samples(), ref=_conv3d_ref, rtol=1e-4, atol=1e-4, errors=_CONV3D_ERRORS),
    OpEntry("Conv3DBackpropInputV2", _conv3d_input_samples(), ref=_conv3d_input_ref, rtol=1e-4, atol=1e-4,
            constant_inputs=("input_sizes",),
            errors=[ErrorSample({"input_sizes": _i([1, 4, 4, 4, 3]), "filter": rand((2, 2, 2, 3, 2)),
                                 "out_backprop": rand((1, 2, 2, 2, 2))}, {"strides": S1, "padding": "VALID"},
                                match="out_backprop", when="runtime")]),
    OpEntry("Conv3DBackpropFilterV2", _conv3d_filter_samples(), ref=_conv3d_filter_ref, rtol=1e-4, atol=1e-4,
            constant_inputs=("filter_sizes",),
            errors=[ErrorSample({"input": rand((1, 4, 4, 4, 3)), "filter_sizes": _i([2, 2, 2, 3, 2]),
                                 "out_backprop": rand((1, 2, 2, 2, 2))}, {"strides": S1, "padding": "VALID"},
                                match="out_backprop", when="runtime")]),
    OpEntry("MaxPool3D", _pool3d_samples((np.float32,)), ref=_pool3d_ref,
            grad_checked_by="test_nn_ext.py::test_max_pool3d_gradient_matches_finite_differences",
            errors=[ErrorSample({"input": rand((2, 4, 4, 4))}, {"ksize": [1, 2, 2, 2, 1], "strides": S2,
                                "padding": "VALID"}, match="rank|5"),
                    ErrorSample({"input": rand((1, 4, 4, 4, 1))}, {"ksize": [2, 2, 2, 2, 1], "strides": S2,
                                "padding": "VALID"}, error=Exception, match="batch")]),
    OpEntry("AvgPool3D", _pool3d_samples(FLOATS), ref=lambda input, **a: _pool3d_ref(input, is_max=False, **a),
            rtol=1e-5, atol=1e-6,
            errors=[ErrorSample({"input": rand((1, 1, 4, 4, 1))}, {"ksize": [1, 3, 2, 2, 1], "strides": S1,
                                "padding": "VALID"}, match="negative")]),
    OpEntry("MaxPool3DGrad", _max_pool3d_grad_samples(), ref=_max_pool3d_grad_ref, rtol=1e-5, atol=1e-6,
            errors=[ErrorSample({"orig_input": rand((1, 4, 4, 4, 1)), "orig_output": rand((1, 2, 2, 2, 1)),
                                 "grad": rand((1, 3, 2, 2, 1))}, {"ksize": [1, 2, 2, 2, 1], "strides": S2,
                                "padding": "VALID"}, match="pooled shape", when="runtime")]),
    OpEntry("AvgPool3DGrad", _avg_pool3d_grad_samples(), ref=_avg_pool3d_grad_ref, rtol=1e-5, atol=1e-6,
            constant_inputs=("orig_input_shape",),
            errors=[ErrorSample({"orig_input_shape": _i([1, 4, 4, 4, 1]), "grad": rand((1, 3, 2, 2, 1))},
                                {"ksize": [1, 2, 2, 2, 1], "strides": S2, "padding": "VALID"}, match="pooled shape",
                                when="runtime")]),
]
