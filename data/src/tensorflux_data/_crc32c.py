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
LOCKSTEP_MAX = 4096  # longer spans are checked one by one
_TABLE_LIST = TABLE.tolist()


def crc32c(data):
    """The CRC32C of ``data`` (bytes)."""
    crc = 0xFFFFFFFF
    t = _TABLE_LIST
    for b in data:
        crc = t[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def crc32c_many(chunks):
    """The CRC32C of each of ``chunks`` (a list of bytes) as a uint32 array."""
    n = len(chunks)
    if n < 4:  # lockstep pays only across many records
        return np.array([crc32c(c) for c in chunks], np.uint32)
    lens = np.fromiter((len(c) for c in chunks), np.int64, n)
    starts = np.concatenate([[0], np.cumsum(lens)[:-1]]).astype(np.int64)
    return crc32c_spans(np.frombuffer(b"".join(chunks), np.uint8), starts, lens)


def crc32c_spans(data, starts, lens):
    """The CRC32C of ``data[starts[i]:starts[i] + lens[i]]`` for each i (uint8 array ``data``),
    computed in lockstep: one table step per byte position across all spans, longest first."""
    n = len(starts)
    out = np.empty(n, np.uint32)
    if n == 0:
        return out
    long_spans = np.flatnonzero(lens > LOCKSTEP_MAX)
    if long_spans.size:  # a lockstep over a long span would be one NumPy call per byte
        for i in long_spans.tolist():
            out[i] = crc32c(data[starts[i]:starts[i] + lens[i]].tobytes())
        short = np.flatnonzero(lens <= LOCKSTEP_MAX)
        out[short] = crc32c_spans(data, starts[short], lens[short])
        return out
    order = np.argsort(-lens, kind="stable")
    lens_sorted, starts_sorted = lens[order], starts[order]
    state = np.full(n, 0xFFFFFFFF, np.uint32)
    width = int(lens_sorted[0])
    active = n - np.searchsorted(lens_sorted[::-1], np.arange(width), side="right")  # spans longer than j
    for j in range(width):
        k = active[j]
        s = state[:k]
        state[:k] = TABLE[(s ^ data[starts_sorted[:k] + j]) & 0xFF] ^ (s >> 8)
    out[order] = state ^ np.uint32(0xFFFFFFFF)
    return out


def mask(crc):
    """TensorFlow's masked CRC: rotated right by 15 bits plus a constant (crc32c::Mask); for an
    int or a uint32 array."""
    if isinstance(crc, int):
        return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF
    crc = np.asarray(crc, np.uint64)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF
