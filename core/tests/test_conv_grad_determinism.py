"""Conv2DBackpropFilter sums its per-thread partial results in a fixed order (Note [Direct Conv2D
filter gradient], Note [Conv2D backprop on CPU]): repeated runs with the same thread count give
bit-identical float32 results, on the direct kernel and on the per-thread GEMM path."""

import numpy as np
import pytest

import tensorflux as tx
from tensorflux._src.generated import gen_ops


@pytest.mark.parametrize("depth", [32, 10], ids=["direct", "gemm"])
def test_filter_gradient_is_the_same_on_every_run(depth):
    rng = np.random.default_rng(7)
    x = rng.standard_normal((8, 16, 16, 64)).astype(np.float32)
    dy = rng.standard_normal((8, 16, 16, depth)).astype(np.float32)
    runs = []
    for _ in range(2):  # two sessions (fresh thread pools), several runs each
        with tx.Graph().as_default():
            xp, dyp = tx.placeholder(tx.float32, x.shape), tx.placeholder(tx.float32, dy.shape)
            dw = gen_ops.conv2d_backprop_filter(xp, tx.constant(np.array([3, 3, 64, depth], np.int32)), dyp,
                                                strides=[1, 1, 1, 1], padding="SAME")
            with tx.Session(config=dict(intra_op_parallelism_threads=2)) as s:
                runs.extend(s.run(dw, feed_dict={xp: x, dyp: dy}) for _ in range(4))
    for r in runs[1:]:
        np.testing.assert_array_equal(r, runs[0])
    # And it is the gradient: compare with a float64 im2col product.
    xp = np.pad(x.astype(np.float64), ((0, 0), (1, 1), (1, 1), (0, 0)))
    want = np.stack([np.stack([np.einsum("nhwc,nhwm->cm", xp[:, i:i + 16, j:j + 16], dy) for j in range(3)])
                     for i in range(3)])
    np.testing.assert_allclose(runs[0], want, rtol=1e-4, atol=1e-3)
