"""Conformance entries: neural-network ops."""


import numpy as np

from conformance.gen import FLOATS, NUMBERS, positive, rand
from conformance.harness import ErrorSample, OpEntry, Sample


def _bias_add_ref(value, bias, data_format="NHWC"):
    if data_format == "NCHW":
        return value + bias.reshape((1, -1) + (1,) * (value.ndim - 2))
    return value + bias


def _bias_samples():
    out = []
    for dt in NUMBERS:
        out.append(Sample({"value": rand((2, 3), dt, seed=8), "bias": rand((3,), dt, seed=9)}))
        out.append(Sample({"value": rand((2, 4, 5, 3), dt, seed=8), "bias": rand((3,), dt, seed=9)}, note="NHWC"))
        out.append(Sample({"value": rand((2, 3, 4, 5), dt, seed=8), "bias": rand((3,), dt, seed=9)},
                          {"data_format": "NCHW"}, note="NCHW"))
    return out


def _softmax_ref(logits):
    z = logits - logits.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return (e / e.sum(axis=-1, keepdims=True)).astype(logits.dtype)


def _log_softmax_ref(logits):
    z = logits.astype(np.float64) - logits.max(axis=-1, keepdims=True)
    return (z - np.log(np.exp(z).sum(axis=-1, keepdims=True))).astype(logits.dtype)


# ---------------------------------------------------------------------------- activations

_SELU_SCALE = 1.0507009873554804934193349852946
_SELU_ALPHA = 1.6732632423543772848170429916717


def _act_entry(op, fn, dtypes=FLOATS, **kw):
    samples = [Sample({"features": rand(s, dt, -6, 8, seed=12)}) for dt in dtypes for s in ((), (7,), (3, 5), (0, 2))]
    return OpEntry(op, samples, ref=lambda features, **a: np.asarray(fn(features.astype(np.float64), **a))
                   .astype(features.dtype), rtol=1e-5, atol=1e-6, **kw)


def _leaky_samples():
    out = [Sample({"features": rand(s, dt, -5, 5, seed=13)}) for dt in FLOATS for s in ((4,), (2, 3))]
    out.append(Sample({"features": rand((6,), np.float32, -5, 5, seed=14)}, {"alpha": 0.01}, note="alpha"))
    return out


# ---------------------------------------------------------------------------- losses


def _xent_ref(features, labels):
    f, lab = np.broadcast_arrays(features.astype(np.float64), labels.astype(np.float64))
    z = f - f.max(axis=1, keepdims=True)
    lse = np.log(np.exp(z).sum(axis=1, keepdims=True))
    loss = (lab * (lse - z)).sum(axis=1)
    back = np.exp(z - lse) - lab
    return loss.astype(features.dtype), back.astype(features.dtype)


def _xent_samples():
    out = []
    for dt in FLOATS:
        lab = rand((4, 5), dt, 0, 1, seed=21)
        lab = lab / lab.sum(axis=1, keepdims=True)
        out.append(Sample({"features": rand((4, 5), dt, -10, 10, seed=20), "labels": lab}))
        out.append(Sample({"features": rand((1, 5), dt, -10, 10, seed=22), "labels": lab}, note="broadcast logits"))
        out.append(Sample({"features": rand((4, 5), dt, -10, 10, seed=23), "labels": lab[:1]}, note="broadcast labels"))
    out.append(Sample({"features": np.array([[1000.0, 0.0, -1000.0]], np.float32),
                       "labels": np.array([[0.0, 1.0, 0.0]], np.float32)}, note="large logits stay finite"))
    return out


def _sparse_xent_ref(features, labels):
    z = features.astype(np.float64) - features.max(axis=1, keepdims=True)
    lse = np.log(np.exp(z).sum(axis=1, keepdims=True))
    rows = np.arange(features.shape[0])
    loss = lse[:, 0] - z[rows, labels]
    back = np.exp(z - lse)
    back[rows, labels] -= 1
    return loss.astype(features.dtype), back.astype(features.dtype)


def _sparse_samples():
    out = []
    for dt in FLOATS:
        for lt in (np.int32, np.int64):
            out.append(Sample({"features": rand((6, 7), dt, -10, 10, seed=24),
                               "labels": np.array([0, 6, 3, 2, 6, 1], lt)}))
    out.append(Sample({"features": np.zeros((0, 3), np.float32), "labels": np.zeros((0,), np.int64)}, note="empty"))
    return out


# ---------------------------------------------------------------------------- convolution and pooling


def _window(in_size, k, dilation, stride, padding, pads):
    """(output size, padding before) as TensorFlow computes them."""
    eff = (k - 1) * dilation + 1
    if padding == "VALID":
        return (in_size - eff + stride) // stride, 0
    if padding == "SAME":
        out = -(-in_size // stride)
        return out, max(0, (out - 1) * stride + eff - in_size) // 2
    return (in_size + pads[0] + pads[1] - eff + stride) // stride, pads[0]


def _pads(padding, explicit_paddings):
    if padding == "EXPLICIT":
        p = list(explicit_paddings)
        return (p[2], p[3]), (p[4], p[5])
    return (0, 0), (0, 0)


def _conv_ref(input, filter, strides, padding, explicit_paddings=(), dilations=(1, 1, 1, 1), depthwise=False,
              **_):
    """Direct convolution: for each filter tap, a strided slice of the zero-padded input."""
    x = input.astype(np.float64)
    w = filter.astype(np.float64)
    n, h, wd, c = x.shape
    kh, kw, _, m = w.shape
    ph, pw = _pads(padding, explicit_paddings)
    oh, pt = _window(h, kh, dilations[1], strides[1], padding, ph)
    ow, pl = _window(wd, kw, dilations[2], strides[2], padding, pw)
    big = (oh * strides[1] + kh * dilations[1], ow * strides[2] + kw * dilations[2])
    xp = np.zeros((n, pt + big[0] + h, pl + big[1] + wd, c))
    xp[:, pt:pt + h, pl:pl + wd, :] = x
    out = np.zeros((n, oh, ow, c * m if depthwise else m))
    for a in range(kh):
        for b in range(kw):
            r0, c0 = a * dilations[1], b * dilations[2]
            patch = xp[:, r0:r0 + oh * strides[1]:strides[1], c0:c0 + ow * strides[2]:strides[2], :]
            if depthwise:
                out += (patch[..., :, None] * w[a, b][None, None, None]).reshape(n, oh, ow, c * m)
            else:  # grouped when the filter's in-depth divides c: group i reads its c/G channels
                cg = w.shape[2]
                mg = m // (c // cg)
                for i in range(c // cg):
                    out[..., i * mg:(i + 1) * mg] += patch[..., i * cg:(i + 1) * cg] @ w[a, b][:, i * mg:(i + 1) * mg]
    return out.astype(input.dtype)


def _conv_samples():
    s1, s2 = [1, 1, 1, 1], [1, 2, 2, 1]
    out = []
    for dt in FLOATS:
        x = rand((2, 7, 8, 3), dt, seed=30)
        out.append(Sample({"input": x, "filter": rand((3, 3, 3, 4), dt, seed=31)}, {"strides": s1, "padding": "SAME"}))
        out.append(Sample({"input": x, "filter": rand((3, 2, 3, 5), dt, seed=32)}, {"strides": s2, "padding": "VALID"}))
    x = rand((2, 7, 8, 3), seed=33)
    out += [
        Sample({"input": x, "filter": rand((1, 1, 3, 6), seed=34)}, {"strides": s1, "padding": "SAME"}, note="1x1"),
        Sample({"input": x, "filter": rand((1, 1, 3, 6), seed=34)}, {"strides": s2, "padding": "VALID"},
               note="1x1 strided"),
        Sample({"input": x, "filter": rand((3, 3, 3, 2), seed=35)}, {"strides": s2, "padding": "SAME"}),
        Sample({"input": x, "filter": rand((3, 3, 3, 2), seed=35)},
               {"strides": s1, "padding": "SAME", "dilations": [1, 2, 2, 1]}, note="dilated"),
        Sample({"input": x, "filter": rand((2, 3, 3, 2), seed=36)},
               {"strides": [1, 1, 2, 1], "padding": "EXPLICIT", "explicit_paddings": [0, 0, 1, 2, 3, 0, 0, 0]},
               note="explicit"),
        Sample({"input": rand((1, 5, 6, 3), seed=37), "filter": rand((2, 2, 3, 4), seed=38)},
               {"strides": s1, "padding": "VALID", "dilations": [1, 2, 2, 1]}, note="batch 1 dilated, few rows"),
    ]
    # M a multiple of 16: float32 takes the direct AVX-512 kernel where the CPU has one (conv_direct.h).
    out += [
        Sample({"input": x, "filter": rand((3, 3, 3, 16), seed=45)}, {"strides": s1, "padding": "SAME"},
               note="direct"),
        Sample({"input": x, "filter": rand((2, 3, 3, 48), seed=46)},
               {"strides": [1, 1, 2, 1], "padding": "EXPLICIT", "explicit_paddings": [0, 0, 1, 2, 3, 0, 0, 0]},
               note="direct explicit strided"),
        Sample({"input": x, "filter": rand((3, 2, 3, 32), seed=47)},
               {"strides": [1, 2, 1, 1], "padding": "VALID", "dilations": [1, 1, 2, 1]}, note="direct dilated"),
        Sample({"input": x[:1], "filter": rand((1, 1, 3, 16), seed=48)}, {"strides": s2, "padding": "SAME"},
               note="direct 1x1 strided batch 1"),
        Sample({"input": rand((2, 9, 10, 16), seed=49), "filter": rand((3, 3, 16, 80), seed=51)},
               {"strides": s1, "padding": "SAME"}, note="direct 64+16 channels, tiles across rows"),
        Sample({"input": rand((1, 3, 9, 3), seed=52), "filter": rand((3, 3, 3, 16), seed=53)},
               {"strides": s1, "padding": "VALID"}, note="direct single output row of 7 pixels"),
        Sample({"input": rand((2, 7, 8, 6), seed=54), "filter": rand((3, 3, 2, 9), seed=55)},
               {"strides": s2, "padding": "SAME"}, note="grouped: 3 groups of 2 channels"),
        Sample({"input": rand((2, 6, 6, 8), seed=56), "filter": rand((3, 3, 1, 16), seed=57)},
               {"strides": s1, "padding": "VALID", "dilations": [1, 2, 2, 1]}, note="grouped: one channel per group"),
    ]
    for dt in FLOATS:
        # 510 output rows, K = 1152: several patch chunks per intra-op thread, chunks crossing images.
        out.append(Sample({"input": rand((2, 15, 17, 128), dt, seed=39), "filter": rand((3, 3, 128, 8), dt, seed=44)},
                          {"strides": s1, "padding": "SAME"}, note="multi-chunk"))
    # No empty-output sample: TensorFlow 2.21's CPU Conv2D returns a wrongly shaped tensor for it
    # (csrc/tests/nn_test.cc covers that shape).
    return out


def _depthwise_samples():
    out = []
    for dt in FLOATS:
        out.append(Sample({"input": rand((2, 6, 7, 3), dt, seed=40), "filter": rand((3, 3, 3, 2), dt, seed=41)},
                          {"strides": [1, 1, 1, 1], "padding": "SAME"}))
        out.append(Sample({"input": rand((2, 6, 7, 4), dt, seed=42), "filter": rand((2, 3, 4, 1), dt, seed=43)},
                          {"strides": [1, 2, 2, 1], "padding": "VALID"}))
    return out


def _pool_ref(input, ksize, strides, padding, explicit_paddings=(), is_max=True, **_):
    n, h, w, c = input.shape
    ph, pw = _pads(padding, explicit_paddings)
    oh, pt = _window(h, ksize[1], 1, strides[1], padding, ph)
    ow, pl = _window(w, ksize[2], 1, strides[2], padding, pw)
    out = np.zeros((n, oh, ow, c), input.dtype)
    for i in range(oh):
        for j in range(ow):
            r0, c0 = i * strides[1] - pt, j * strides[2] - pl
            win = input[:, max(r0, 0):max(r0 + ksize[1], 0), max(c0, 0):max(c0 + ksize[2], 0), :]
            out[:, i, j, :] = win.max(axis=(1, 2)) if is_max else win.astype(np.float64).mean(axis=(1, 2))
    return out


def _pool_samples(dtypes, name="input", explicit=True):
    out = []
    for dt in dtypes:
        x = rand((2, 7, 9, 3), dt, seed=50)
        out.append(Sample({name: x}, {"ksize": [1, 2, 2, 1], "strides": [1, 2, 2, 1], "padding": "VALID"}))
        out.append(Sample({name: x}, {"ksize": [1, 3, 3, 1], "strides": [1, 2, 2, 1], "padding": "SAME"}))
        out.append(Sample({name: x}, {"ksize": [1, 3, 2, 1], "strides": [1, 1, 3, 1], "padding": "SAME"}))
    if explicit:
        out.append(Sample({name: rand((1, 5, 5, 2), seed=51)},
                          {"ksize": [1, 3, 3, 1], "strides": [1, 2, 2, 1], "padding": "EXPLICIT",
                           "explicit_paddings": [0, 0, 1, 1, 2, 0, 0, 0]}, note="explicit"))
    return out


# ---------------------------------------------------------------------------- batch norm, L2 loss, in_top_k


def _fbn_ref(x, scale, offset, mean, variance, epsilon=1e-4, exponential_avg_factor=1.0, data_format="NHWC",
             is_training=True, **_):
    nchw = data_format == "NCHW"
    axes = (0, 2, 3) if nchw else (0, 1, 2)
    vec = (lambda v: np.reshape(v, (1, -1, 1, 1))) if nchw else (lambda v: v)  # noqa: E731
    x64 = x.astype(np.float64)
    if is_training:
        bm = x64.mean(axis=axes)
        bv = x64.var(axis=axes)
        n = x.size // x.shape[1 if nchw else -1]
        unbiased = bv * n / max(n - 1, 1)
        f = exponential_avg_factor
        run_m = bm if f == 1.0 else (1 - f) * mean + f * bm
        run_v = unbiased if f == 1.0 else (1 - f) * variance + f * unbiased
    else:
        bm, bv = mean.astype(np.float64), variance.astype(np.float64)
        run_m, run_v = mean, variance
    y = (x64 - vec(bm)) / np.sqrt(vec(bv) + epsilon) * vec(scale) + vec(offset)
    f32 = lambda a: np.asarray(a, np.float32)  # noqa: E731
    return f32(y), f32(run_m), f32(run_v), f32(bm), f32(bv), np.zeros((0,), np.float32)


def _fbn_samples():
    x = rand((2, 3, 4, 5), seed=60)
    sc, of = rand((5,), seed=61), rand((5,), seed=62)
    m, v = rand((5,), seed=63), positive((5,), seed=64)
    empty = np.zeros((0,), np.float32)
    return [
        Sample({"x": x, "scale": sc, "offset": of, "mean": empty, "variance": empty}, note="training"),
        Sample({"x": x, "scale": sc, "offset": of, "mean": m, "variance": v},
               {"exponential_avg_factor": 0.25, "epsilon": 0.01}, note="training, running average"),
        Sample({"x": x, "scale": sc, "offset": of, "mean": m, "variance": v}, {"is_training": False}, note="inference"),
        Sample({"x": rand((2, 5, 3, 4), seed=65), "scale": sc, "offset": of, "mean": empty, "variance": empty},
               {"data_format": "NCHW"}, note="NCHW training"),
        Sample({"x": rand((2, 5, 3, 4), seed=65), "scale": sc, "offset": of, "mean": m, "variance": v},
               {"data_format": "NCHW", "is_training": False}, note="NCHW inference"),
    ]


def _in_top_k_ref(predictions, targets, k):
    out = []
    for row, t in zip(predictions, targets):
        if t < 0 or t >= row.shape[0] or not np.isfinite(row[t]):
            out.append(False)
        else:
            out.append(int((row > row[t]).sum()) < k)
    return np.array(out, np.bool_)


def _in_top_k_samples():
    p = rand((5, 6), np.float32, seed=70)
    p[1, 2] = p[1, 3]  # a tie
    p[4, 0] = np.nan
    out = []
    for it in (np.int32, np.int64):
        for k in (1, 3):
            out.append(Sample({"predictions": p, "targets": np.array([0, 2, 5, 9, 0], it), "k": np.array(k, it)}))
    return out


_CONV_ERRORS = [
    ErrorSample({"input": rand((2, 5, 5, 3)), "filter": rand((3, 3, 4, 2))}, {"strides": [1, 1, 1, 1],
                "padding": "SAME"}, match="[Dd]epth|divisible"),
    ErrorSample({"input": rand((2, 5, 5, 6)), "filter": rand((3, 3, 2, 4))}, {"strides": [1, 1, 1, 1],
                "padding": "SAME"}, match="not a multiple of the number of groups"),
    ErrorSample({"input": rand((2, 5, 5)), "filter": rand((3, 3, 3, 2))}, {"strides": [1, 1, 1, 1], "padding": "SAME"},
                match="rank|4-dimensional|dimensional"),
    ErrorSample({"input": rand((1, 1, 1, 3)), "filter": rand((3, 3, 3, 2))}, {"strides": [1, 1, 1, 1],
                "padding": "VALID"}, match="negative"),
]

ENTRIES = [
    OpEntry("BiasAdd", _bias_samples(), ref=_bias_add_ref,
            errors=[ErrorSample({"value": rand((2, 3)), "bias": rand((4,))}, match=r"3.*4|4.*3|[Mm]ust")]),
    OpEntry("Relu", [Sample({"features": rand(s, dt, seed=10)}) for dt in NUMBERS for s in ((), (5,), (3, 4), (0,))],
            ref=lambda features: np.maximum(features, 0).astype(features.dtype)),
    OpEntry("Softmax", [Sample({"logits": rand(s, dt, -20, 20, seed=11)}) for dt in FLOATS
                        for s in ((5,), (3, 7), (2, 3, 4), (1, 1000))],
            ref=_softmax_ref, rtol=1e-5, atol=1e-6,
            errors=[ErrorSample({"logits": rand(())}, match="rank", when="static")]),
    OpEntry("LogSoftmax", [Sample({"logits": rand(s, dt, -20, 20, seed=15)}) for dt in FLOATS
                           for s in ((5,), (3, 7), (2, 3, 4), (1, 1000), (0, 3))],
            ref=_log_softmax_ref, rtol=1e-5, atol=1e-5,
            errors=[ErrorSample({"logits": rand(())}, match="rank|dimension")]),
    _act_entry("Relu6", lambda x: np.clip(x, 0, 6), dtypes=NUMBERS),
    _act_entry("Elu", lambda x: np.where(x > 0, x, np.expm1(x))),
    _act_entry("Selu", lambda x: _SELU_SCALE * np.where(x > 0, x, _SELU_ALPHA * np.expm1(x))),
    _act_entry("Softplus", lambda x: np.logaddexp(x, 0)),
    _act_entry("Softsign", lambda x: x / (1 + np.abs(x))),
    OpEntry("LeakyRelu", _leaky_samples(),
            ref=lambda features, alpha=0.2: np.where(features > 0, features, np.float32(alpha) * features)
            .astype(features.dtype), rtol=1e-6),
    OpEntry("SoftmaxCrossEntropyWithLogits", _xent_samples(), ref=_xent_ref, rtol=1e-5, atol=1e-5,
            errors=[ErrorSample({"features": rand((3, 4)), "labels": rand((2, 4))}, match="broadcastable"),
                    ErrorSample({"features": rand((4,)), "labels": rand((4,))}, match="rank|2-D")]),
    OpEntry("SparseSoftmaxCrossEntropyWithLogits", _sparse_samples(), ref=_sparse_xent_ref, rtol=1e-5, atol=1e-5,
            errors=[ErrorSample({"features": rand((2, 3)), "labels": np.array([0, 3], np.int64)},
                                match=r"label value of 3.*\[0, 3\)", when="runtime"),
                    ErrorSample({"features": rand((2, 3)), "labels": np.array([-1, 0], np.int32)},
                                match="label value of -1", when="runtime"),
                    ErrorSample({"features": rand((2, 3)), "labels": np.array([0, 1, 2], np.int64)},
                                match="first dimension")]),
    OpEntry("Conv2D", _conv_samples(), ref=_conv_ref, rtol=1e-4, atol=1e-4, errors=_CONV_ERRORS),
    OpEntry("DepthwiseConv2dNative", _depthwise_samples(), ref=lambda **kw: _conv_ref(depthwise=True, **kw),
            rtol=1e-4, atol=1e-4,
            errors=[ErrorSample({"input": rand((1, 4, 4, 3)), "filter": rand((2, 2, 2, 1))},
                                {"strides": [1, 1, 1, 1], "padding": "SAME"}, match="depth")]),
    OpEntry("MaxPool", _pool_samples(NUMBERS), ref=_pool_ref,
            errors=[ErrorSample({"input": rand((2, 4, 4))}, {"ksize": [1, 2, 2, 1], "strides": [1, 2, 2, 1],
                                "padding": "VALID"}, match="rank|4-dimensional"),
                    ErrorSample({"input": rand((2, 4, 4, 1))}, {"ksize": [2, 2, 2, 1], "strides": [1, 2, 2, 1],
                                "padding": "VALID"}, error=Exception, match="batch", when="static")]),
    OpEntry("AvgPool", _pool_samples(FLOATS, name="value", explicit=False),
            ref=lambda value, **a: _pool_ref(value, is_max=False, **a), rtol=1e-5, atol=1e-6,
            errors=[ErrorSample({"value": rand((2, 4, 4))}, {"ksize": [1, 2, 2, 1], "strides": [1, 2, 2, 1],
                                "padding": "VALID"}, match="rank|4-dimensional")]),
    OpEntry("FusedBatchNormV3", _fbn_samples(), ref=_fbn_ref, rtol=1e-4, atol=1e-4, cross_check_outputs=3,
            grad_checked_by="test_gradients_models.py::test_fused_batch_norm_gradients_match_composite",
            errors=[ErrorSample({"x": rand((2, 3, 3, 4)), "scale": rand((5,)), "offset": rand((4,)),
                                 "mean": rand((4,)), "variance": rand((4,))}, match="channel|scale")]),
    OpEntry("L2Loss", [Sample({"t": rand(s, dt, seed=80)}) for dt in FLOATS for s in ((), (7,), (3, 50), (0,))],
            ref=lambda t: np.asarray((t.astype(np.float64) ** 2).sum() / 2, t.dtype), rtol=1e-5),
    OpEntry("InTopKV2", _in_top_k_samples(), ref=_in_top_k_ref,
            errors=[ErrorSample({"predictions": rand((3, 4)), "targets": np.array([0, 1], np.int32),
                                 "k": np.array(1, np.int32)}, match="match|dimension")]),
]
