"""Per-element seeds for every stateful sampler in pipeline functions (Note [Element seeds]): each of
tx.random's samplers, tx.nn.dropout and tx.image's random_* in a map gives the same bytes at 1, 2 and
8 threads, in debug mode and after a restore, draws anew per element and per epoch, follows its
distribution; a stateful random op left in a deterministic pipeline's function is an error."""


import numpy as np
import pytest

import tensorflux as tx
import tensorflux_data as txd
from pipelines import assert_same_elements, flat_values


def _image(x):
    return tx.reshape(tx.cast(tx.range(48), tx.float32) / 48.0 + 0.01 * tx.cast(x, tx.float32), [4, 4, 3])


SAMPLERS = {
    "uniform": lambda x: tx.random.uniform([3], -2.0, 5.0),
    "uniform_int": lambda x: tx.random.uniform([4], 0, 1000, dtype=tx.int64),
    "normal": lambda x: tx.random.normal([3], 1.0, 2.0, dtype=tx.float64),
    "truncated_normal": lambda x: tx.random.truncated_normal([3]),
    "shuffle": lambda x: tx.random.shuffle(tx.range(12)),
    "shuffle_rows": lambda x: tx.random.shuffle(tx.reshape(tx.range(12), [6, 2])),
    "categorical": lambda x: tx.random.categorical(tx.math.log([[0.2, 0.3, 0.5]]), 8, dtype=tx.int32),
    "gamma": lambda x: tx.random.gamma([3], [0.5, 2.0], beta=2.0),
    "poisson": lambda x: tx.random.poisson([3], [1.0, 30.0], dtype=tx.int32),
    "dropout": lambda x: tx.nn.dropout(tx.ones([8]), 0.5),
    "candidate_sampler": lambda x: tx.random.uniform_candidate_sampler(tx.constant([[1, 2]], tx.int64), 2, 4, True,
                                                                       100)[0],
    "bounding_box": lambda x: tx.image.sample_distorted_bounding_box(
        [40, 60, 3], tx.constant([[[0.1, 0.1, 0.9, 0.9]]]), min_object_covered=0.3),
    "random_flip_left_right": lambda x: tx.image.random_flip_left_right(_image(x)),
    "random_flip_up_down": lambda x: tx.image.random_flip_up_down(_image(x)),
    "random_brightness": lambda x: tx.image.random_brightness(_image(x), 0.3),
    "random_contrast": lambda x: tx.image.random_contrast(_image(x), 0.5, 1.5),
    "random_crop": lambda x: tx.image.random_crop(_image(x), [2, 3, 3]),
    "random_saturation": lambda x: tx.image.random_saturation(_image(x), 0.5, 1.5),
    "random_hue": lambda x: tx.image.random_hue(_image(x), 0.2),
}


def _pipeline(name, n=16, **map_args):
    return txd.Dataset.range(n).map(SAMPLERS[name], num_parallel_calls=map_args.pop("num_parallel_calls", 8),
                                    **map_args)


def _values(ds, threads=None, debug=False):
    if threads is not None:
        o = txd.Options()
        o.threading.private_threadpool_size = threads
        ds = ds.with_options(o)
    with txd.debug_mode(debug):
        return [flat_values(tx.nest, e) for e in ds]


def _keys(values):
    return [b"".join(a.tobytes() for a in e) for e in values]


@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_same_bytes_at_1_2_and_8_threads_in_debug_mode_and_after_a_restore(name):
    want = _values(_pipeline(name), 1)
    for threads in (2, 8):
        assert_same_elements(_values(_pipeline(name), threads), want)
    assert_same_elements(_values(_pipeline(name), 1, debug=True), want)
    assert_same_elements(_values(_pipeline(name, num_parallel_calls=None)), want)
    it = iter(_pipeline(name))
    head = [flat_values(tx.nest, next(it)) for _ in range(5)]
    state = it.save()
    resumed = iter(_pipeline(name))  # a rebuilt pipeline, as in a new process
    resumed.restore(state)
    assert_same_elements(head + _values(resumed), want)


@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_draws_differ_per_element_and_per_epoch_and_follow_the_seed_option(name):
    def keys(seed=None):
        ds = _pipeline(name).repeat(2)
        if seed is not None:
            o = txd.Options()
            o.seed = seed
            ds = ds.with_options(o)
        return _keys(_values(ds))

    got = keys()
    assert len(set(got[:16])) > 1 and got[:16] != got[16:]
    assert keys() == got and keys(seed=7) == keys(seed=7) != got
    if name not in ("random_flip_left_right", "random_flip_up_down", "categorical", "dropout", "bounding_box",
                    "random_crop", "candidate_sampler"):
        assert len(set(got)) == 32  # continuous draws (or long permutations): every element its own


def _samples(fn, n=500):
    return np.stack([np.asarray(v) for v in txd.Dataset.range(n).map(fn, num_parallel_calls=2)])


def test_shuffle_gives_permutations_with_every_position_reached():
    perms = _samples(lambda x: tx.random.shuffle(tx.range(6)), 300)
    assert all(sorted(p) == list(range(6)) for p in perms.tolist())
    assert all(len(set(perms[:, j])) == 6 for j in range(6))
    assert abs(perms[:, 0].mean() - 2.5) < 0.5  # the first position's mean index: 2.5, std 1.71 / sqrt(300)
    strings = _samples(lambda x: tx.random.shuffle(tx.constant([b"a", b"b", b"c"])), 20)
    assert all(sorted(s) == [b"a", b"b", b"c"] for s in strings.tolist())
    assert [np.asarray(v).item() for v in txd.Dataset.range(2).map(lambda x: tx.random.shuffle(tx.constant(7)))] == [
        7, 7]  # a scalar comes back as is, as RandomShuffle returns it


def test_gamma_and_poisson_means_and_shapes():
    g = _samples(lambda x: tx.random.gamma([8], [0.5, 2.0, 5.0], beta=2.0))  # [500, 8, 3]
    assert g.shape == (500, 8, 3) and g.dtype == np.float32 and (g > 0).all()
    np.testing.assert_allclose(g.reshape(-1, 3).mean(0), [0.25, 1.0, 2.5], rtol=0.05)  # 4000 draws: < 2% s.e.
    p = _samples(lambda x: tx.random.poisson([8], [1.0, 30.0], dtype=tx.int64))
    assert p.shape == (500, 8, 2) and p.dtype == np.int64 and (p >= 0).all()
    np.testing.assert_allclose(p.reshape(-1, 2).mean(0), [1.0, 30.0], rtol=0.05)
    np.testing.assert_allclose(p.reshape(-1, 2).var(0), [1.0, 30.0], rtol=0.15)


def test_categorical_uniform_int_and_normal_distributions():
    c = _samples(lambda x: tx.random.categorical(tx.math.log([[0.2, 0.3, 0.5]]), 8))
    assert c.shape == (500, 1, 8) and c.dtype == np.int64
    np.testing.assert_allclose(np.bincount(c.ravel(), minlength=3) / c.size, [0.2, 0.3, 0.5], atol=0.03)
    u = _samples(lambda x: tx.random.uniform([8], 3, 9, dtype=tx.int32))
    assert u.dtype == np.int32 and set(u.ravel().tolist()) == set(range(3, 9))
    z = _samples(lambda x: tx.random.normal([8], 1.0, 2.0))
    assert abs(z.mean() - 1.0) < 0.15 and abs(z.std() - 2.0) < 0.15


def test_image_flips_happen_about_half_the_time():
    flipped = _samples(lambda x: tx.image.random_flip_left_right(_image(0)), 400)
    share = np.mean([not np.array_equal(f, _image(0).numpy()) for f in flipped])
    assert 0.4 < share < 0.6


def test_samplers_keep_their_static_shapes_dtypes_and_errors():
    spec = txd.Dataset.range(2).map(lambda x: (tx.random.shuffle(tx.zeros([5, 2])),
                                               tx.random.categorical([[0.0, 1.0]], 3, dtype=tx.int32),
                                               tx.random.gamma([4], [1.0, 2.0], dtype=tx.float64),
                                               tx.random.poisson([4], [1.0, 2.0, 3.0], dtype=tx.int32))).element_spec
    assert [(s.shape.as_list(), s.dtype) for s in spec] == [([5, 2], tx.float32), ([1, 3], tx.int32),
                                                           ([4, 2], tx.float64), ([4, 3], tx.int32)]
    box = txd.Dataset.range(1).map(SAMPLERS["bounding_box"]).element_spec
    assert type(box).__name__ == "SampleDistortedBoundingBoxV2"
    with pytest.raises(ValueError, match="maxval"):
        txd.Dataset.range(1).map(lambda x: tx.random.uniform([2], dtype=tx.int32))
    with pytest.raises(tx.errors.InvalidArgumentError, match="minval < maxval"):
        list(txd.Dataset.range(1).map(lambda x: tx.random.uniform([2], 3, 3, dtype=tx.int32)))


def _raw_uniform(x):
    return tx.raw_ops.RandomUniform(shape=[2], dtype=tx.float32)


def test_a_stateful_random_op_left_in_a_deterministic_pipeline_is_an_error():
    @tx.function
    def inner():
        return _raw_uniform(0)

    cases = [txd.Dataset.range(4).map(_raw_uniform, num_parallel_calls=2),
             txd.Dataset.range(4).map(lambda x: tx.cond(x > 1, lambda: inner(), lambda: tx.zeros([2]))).batch(2),
             txd.Dataset.range(4).filter(lambda x: _raw_uniform(x)[0] < 0.5).prefetch(2),
             txd.Dataset.range(2).interleave(lambda x: txd.Dataset.range(3).map(_raw_uniform), cycle_length=2)]
    for ds in cases:
        with pytest.raises(tx.errors.InvalidArgumentError, match="random op RandomUniform.*deterministic=False"):
            list(ds)
    with pytest.raises(tx.errors.InvalidArgumentError, match="the map function _raw_uniform"):
        iter(cases[0])


def test_deterministic_false_runs_stateful_random_ops_as_before():
    o = txd.Options()
    o.deterministic = False
    assert len(list(txd.Dataset.range(6).map(_raw_uniform, num_parallel_calls=2).with_options(o))) == 6
    assert len(list(txd.Dataset.range(6).map(_raw_uniform, num_parallel_calls=2, deterministic=False))) == 6
