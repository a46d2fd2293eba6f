"""CRC32C (Castagnoli), the checksum of TFRecord files, and TensorFlow's masking of it. Records are
checked many at a time: one NumPy table step per byte position across all of them."""

import numpy as np

_POLY = 0x82F63B78  # reflected Castagnoli polynomial


def _table():
    t = np.arange(256, dtype=np.uint32)
    for _ in range(8):
        t = np.where(t & 1, (t >> 1) ^ np.uint32(_POLY), t >> 1).astype(np.uint32)
    return t


TABLE = _table()
_TABLE_LIST = TABLE.tolist()


def crc32c(data):
    """The CRC32C of ``data`` (bytes)."""
    crc = 0xFFFFFFFF
    t = _TABLE_LIST
    for b in data:
        crc = t[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def crc32c_many(chunks):
    """The CRC32C of each of ``chunks`` (a list of bytes) as a uint32 array, computed in lockstep."""
    n = len(chunks)
    if n == 0:
        return np.zeros(0, np.uint32)
    lens = np.fromiter((len(c) for c in chunks), np.int64, n)
    order = np.argsort(-lens, kind="stable")
    lens_sorted = lens[order]
    width = int(lens_sorted[0])
    mat = np.zeros((n, width), np.uint8)
    flat = np.frombuffer(b"".join(chunks[i] for i in order), np.uint8)
    if flat.size:
        rows = np.repeat(np.arange(n), lens_sorted)
        starts = np.concatenate([[0], np.cumsum(lens_sorted)[:-1]])
        cols = np.arange(flat.size) - np.repeat(starts, lens_sorted)
        mat[rows, cols] = flat
    state = np.full(n, 0xFFFFFFFF, np.uint32)
    active = n - np.searchsorted(lens_sorted[::-1], np.arange(width), side="right")  # rows longer than j
    for j in range(width):
        k = active[j]
        s = state[:k]
        state[:k] = TABLE[(s ^ mat[:k, j]) & 0xFF] ^ (s >> 8)
    out = np.empty(n, np.uint32)
    out[order] = state ^ np.uint32(0xFFFFFFFF)
    return out


def mask(crc):
    """TensorFlow's masked CRC: rotated right by 15 bits plus a constant (crc32c::Mask)."""
    crc = np.asarray(crc, np.uint64)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF
