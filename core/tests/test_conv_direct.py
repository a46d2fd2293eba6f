"""The direct float32 Conv2D kernel (Note [Direct Conv2D] in csrc/.../conv_direct.h) against a
float64 NumPy reference: every panel width (output channels a multiple of 8, of 16 and of 64,
with a narrower last panel), K cut into several blocks, 1x1 and dilated filters, strides,
SAME/explicit padding, outputs of one to a few hundred pixels, and the packed copy of a constant
filter (Note [Packed constant filters] in conv.cc), which must never outlive the values it was
packed from."""

import numpy as np
import pytest

import tensorflux as tx

pytestmark = pytest.mark.eager
RNG = np.random.default_rng(11)


def reference(x, w, strides, padding, dilations=(1, 1)):
    """Conv2D in float64 NumPy: x [N,H,W,C], w [KH,KW,C,M], padding 'VALID', 'SAME' or
    [[top, bottom], [left, right]]."""
    n, h, wd, c = x.shape
    kh, kw, _, m = w.shape
    sh, sw = strides
    dh, dw = dilations
    ekh, ekw = (kh - 1) * dh + 1, (kw - 1) * dw + 1
    if padding == "VALID":
        pads = [[0, 0], [0, 0]]
    elif padding == "SAME":
        oh, ow = -(-h // sh), -(-wd // sw)
        ph, pw = max((oh - 1) * sh + ekh - h, 0), max((ow - 1) * sw + ekw - wd, 0)
        pads = [[ph // 2, ph - ph // 2], [pw // 2, pw - pw // 2]]
    else:
        pads = padding
    xp = np.pad(x.astype(np.float64), [[0, 0], pads[0], pads[1], [0, 0]])
    oh = (xp.shape[1] - ekh) // sh + 1
    ow = (xp.shape[2] - ekw) // sw + 1
    y = np.zeros((n, oh, ow, m))
    for i in range(kh):
        for j in range(kw):
            patch = xp[:, i * dh:i * dh + (oh - 1) * sh + 1:sh, j * dw:j * dw + (ow - 1) * sw + 1:sw, :]
            y += patch @ w[i, j].astype(np.float64)
    return y


# (input shape, filter shape, strides, padding, dilations)
GEOMETRIES = [
    ((2, 3, 3, 512), (3, 3, 512, 24), (1, 1), "SAME", (1, 1)),      # K = 4608: several K blocks; 24 = 16 + 8
    ((1, 3, 3, 520), (1, 1, 520, 40), (1, 1), "VALID", (1, 1)),     # 1x1, 9 pixels, panels 16+16+8
    ((2, 6, 6, 64), (1, 1, 64, 80), (2, 2), "VALID", (1, 1)),       # 1x1 stride 2, 80 = 64 + 16
    ((1, 7, 9, 16), (3, 3, 16, 8), (1, 1), "SAME", (1, 1)),         # 8 channels: one AVX2 vector
    ((2, 13, 11, 8), (3, 3, 8, 136), (2, 1), "SAME", (1, 1)),       # 136 = 2 x 64 + 8
    ((1, 17, 19, 24), (3, 2, 24, 48), (1, 1), [[2, 0], [1, 3]], (1, 1)),
    ((1, 12, 12, 16), (3, 3, 16, 32), (1, 1), "SAME", (2, 3)),      # dilated along W: one slice per tap
    ((3, 20, 20, 3), (7, 7, 3, 64), (2, 2), "VALID", (1, 1)),       # stem-like, C = 3
    ((1, 1, 1, 256), (3, 3, 256, 64), (1, 1), "SAME", (1, 1)),      # 1 output pixel, 8 of 9 taps padding
    ((2, 9, 9, 32), (3, 3, 32, 256), (1, 1), "VALID", (1, 1)),      # 98 pixels x 16 AVX2 panels
]


def _ids(g):
    return "x".join(map(str, g[0])) + "_" + "x".join(map(str, g[1])) + "_s%d%d" % g[2]


@pytest.mark.parametrize("geometry", GEOMETRIES, ids=[_ids(g) for g in GEOMETRIES])
def test_eager_and_constant_filter_match_float64(geometry):
    xs, ws, strides, padding, dilations = geometry
    x = RNG.standard_normal(xs).astype(np.float32)
    w = (RNG.standard_normal(ws) / np.sqrt(np.prod(ws[:3]))).astype(np.float32)
    want = reference(x, w, strides, padding, dilations)
    explicit = [] if isinstance(padding, str) else [0, 0, *padding[0], *padding[1], 0, 0]
    kwargs = dict(strides=[1, *strides, 1], padding="EXPLICIT" if explicit else padding,
                  explicit_paddings=explicit, dilations=[1, *dilations, 1])
    eager = tx.raw_ops.Conv2D(input=tx.constant(x), filter=tx.constant(w), **kwargs).numpy()
    np.testing.assert_allclose(eager, want, rtol=1e-4, atol=1e-4)
    g = tx.Graph()
    with g.as_default():
        xp = tx.compat.v1.placeholder(tx.float32, xs)
        y = tx.raw_ops.Conv2D(input=xp, filter=tx.identity(tx.constant(w)), **kwargs)
    with tx.compat.v1.Session(graph=g) as sess:
        for _ in range(2):  # the second run uses the packed copy
            np.testing.assert_allclose(sess.run(y, {xp: x}), want, rtol=1e-4, atol=1e-4)


def test_fed_constant_filter_is_not_served_from_the_packed_copy():
    x = RNG.standard_normal((1, 5, 5, 16)).astype(np.float32)
    w1 = RNG.standard_normal((3, 3, 16, 24)).astype(np.float32)
    w2 = RNG.standard_normal((3, 3, 16, 24)).astype(np.float32)
    g = tx.Graph()
    with g.as_default():
        xp = tx.compat.v1.placeholder(tx.float32, x.shape)
        wc = tx.constant(w1)
        y = tx.nn.conv2d(xp, wc, strides=1, padding="SAME")
    with tx.compat.v1.Session(graph=g) as sess:
        np.testing.assert_allclose(sess.run(y, {xp: x}), reference(x, w1, (1, 1), "SAME"), rtol=1e-4, atol=1e-4)
        w_fed = w2.copy()
        np.testing.assert_allclose(sess.run(y, {xp: x, wc: w_fed}), reference(x, w2, (1, 1), "SAME"),
                                   rtol=1e-4, atol=1e-4)
        w_fed *= -1  # the same NumPy buffer, new values
        np.testing.assert_allclose(sess.run(y, {xp: x, wc: w_fed}), reference(x, -w2, (1, 1), "SAME"),
                                   rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(sess.run(y, {xp: x}), reference(x, w1, (1, 1), "SAME"), rtol=1e-4, atol=1e-4)


def test_variable_filter_sees_each_update():
    x = RNG.standard_normal((2, 4, 4, 8)).astype(np.float32)
    w = RNG.standard_normal((1, 1, 8, 16)).astype(np.float32)
    v = tx.Variable(w)

    @tx.function
    def f(x):
        return tx.nn.conv2d(x, v, strides=1, padding="VALID")

    np.testing.assert_allclose(f(x).numpy(), reference(x, w, (1, 1), "VALID"), rtol=1e-4, atol=1e-4)
    v.assign(2 * w)
    np.testing.assert_allclose(f(x).numpy(), reference(x, 2 * w, (1, 1), "VALID"), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("depth", [8, 24, 72])
def test_input_gradient_through_the_direct_kernel_matches_float64(depth):
    # Stride-1 Conv2DBackpropInput runs the direct kernel with input depth C as its output channels.
    x = RNG.standard_normal((2, 6, 7, depth)).astype(np.float32)
    w = RNG.standard_normal((3, 3, depth, 16)).astype(np.float32)
    dy = RNG.standard_normal((2, 6, 7, 16)).astype(np.float32)
    got = tx.raw_ops.Conv2DBackpropInput(input_sizes=list(x.shape), filter=tx.constant(w),
                                         out_backprop=tx.constant(dy), strides=[1, 1, 1, 1], padding="SAME").numpy()
    # d/dx of sum(conv(x, w) * dy), by the adjoint: pad dy and correlate with the flipped filter.
    want = reference(dy, np.transpose(w[::-1, ::-1], (0, 1, 3, 2)), (1, 1), "SAME")
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
