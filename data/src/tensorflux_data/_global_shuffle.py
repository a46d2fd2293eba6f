"""global_shuffle: a random permutation of a random-access source's elements, drawn without holding
the permutation (a keyed bijection of the indices), so the iterator state is a position alone."""

import hashlib

from tensorflux_data._base import END, NodeIterator, check_int, invalid
from tensorflux_data._dataset import Dataset

_ROUNDS = 6
_MASK64 = (1 << 64) - 1


class IndexPermutation:
    """A pseudo-random bijection of range(n) keyed by ``key`` (bytes): a balanced Feistel network on
    the smallest even-bit domain holding n, with cycle-walking back into range(n)."""

    def __init__(self, n, key):
        self.n = n
        bits = max(2, (max(n - 1, 1)).bit_length())
        bits += bits % 2
        self._half, self._mask = bits // 2, (1 << (bits // 2)) - 1
        self._keys = [int.from_bytes(hashlib.blake2b(key + bytes([r]), digest_size=8).digest(), "little")
                      for r in range(_ROUNDS)]

    def _round(self, x, k):
        z = (x * 0x9E3779B97F4A7C15 + k) & _MASK64
        z ^= z >> 29
        z = (z * 0xBF58476D1CE4E5B9) & _MASK64
        return (z ^ (z >> 32)) & self._mask

    def _permute(self, i):
        left, right = i >> self._half, i & self._mask
        for k in self._keys:
            left, right = right, left ^ self._round(right, k)
        return (left << self._half) | right

    def __call__(self, i):
        j = self._permute(i)
        while j >= self.n:  # cycle-walk: the domain is at most 4n, so this ends fast
            j = self._permute(j)
        return j


class _GlobalShuffleIterator(NodeIterator):
    def __init__(self, node, ctx):
        self._node, self._i = node, 0
        key = (node._seed, tuple(ctx.key) if node._reshuffle else ())
        self._perm = IndexPermutation(node._inputs[0]._size, repr(key).encode())

    def next(self):
        src = self._node._inputs[0]
        if self._i >= src._size:
            return END
        self._i += 1
        return src._element(self._perm(self._i - 1))

    def save(self, w):
        w.put("position", self._i)

    def restore(self, r):
        self._i = r.get_int("position")


class GlobalShuffleDataset(Dataset):
    _kind = "global_shuffle"

    def __init__(self, input_ds, seed, reshuffle_each_iteration):
        if not hasattr(input_ds, "_element") or not hasattr(input_ds, "_size"):
            raise invalid("global_shuffle needs a random-access source (from_tensor_slices, range, from_tensors, "
                          "experimental.from_npy or from_safetensors) as its input, got %s" % input_ds._kind)
        import os
        self._seed = int.from_bytes(os.urandom(8), "little") if seed is None else check_int(seed, "seed", 0)
        self._reshuffle = bool(reshuffle_each_iteration)
        super().__init__((input_ds,), input_ds.element_spec)

    def _make_iter(self, ctx):
        return _GlobalShuffleIterator(self, ctx)

    def _cardinality(self):
        return self._inputs[0]._cardinality()

    def _params(self):
        return str(self._reshuffle)
