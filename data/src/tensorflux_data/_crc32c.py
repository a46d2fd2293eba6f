"""CRC32C (Castagnoli), the checksum of TFRecord files, and TensorFlow's masking of it. Many spans
of a buffer are checked in one vectorised pass (Note [Vectorised CRC32C])."""

# Note [Vectorised CRC32C]: the CRC register update is linear over GF(2), which gives three tools.
# (1) Leading zero bytes do not change a CRC computed from a zero register, so spans of different
# lengths are left-padded with zeros to a common width W and become the rows of one (spans, W)
# matrix, processed eight bytes (a uint64 column) per step for all rows at once: the register after
# eight bytes is the XOR of four lookups, each indexed by 16 bits of (register ^ word) ("slicing by
# 8" with 16-bit tables, 1 MB in all; half a lookup per byte). (2) The all-ones initial register and
# the final inversion add a term that depends only on the span's length (ZEROS[length]). (3) A span
# longer than W is cut into W-byte blocks; each block's CRC is advanced over the zero bytes that
# follow it in the span (the register after n zero bytes is linear in the register: four 256-entry
# tables per power of two of n, SHIFT) and the blocks' CRCs are XORed. W (a multiple of 8) is chosen
# per call to minimise padding, per-block and per-step work. NumPy does every step for all rows, so
# the Python loop runs W / 8 times per call, not once per byte or per span.

import numpy as np

_POLY = 0x82F63B78  # reflected Castagnoli polynomial
_ONES = np.uint32(0xFFFFFFFF)


def _table():
    t = np.arange(256, dtype=np.uint32)
    for _ in range(8):
        t = np.where(t & 1, (t >> 1) ^ np.uint32(_POLY), t >> 1).astype(np.uint32)
    return t


TABLE = _table()
_TABLE_LIST = TABLE.tolist()


def _zero_byte(c):
    """Registers ``c`` (uint32 array) after one zero byte."""
    return TABLE[c & 0xFF] ^ (c >> 8)


def _slicing_tables():
    """Four 65536-entry tables: entry h of table i is the register after the 16 bits h at bytes 2i and
    2i + 1 of an 8-byte group, from a zero register (Note [Vectorised CRC32C])."""
    after = [TABLE]  # after[k][b]: byte b followed by k zero bytes
    for _ in range(7):
        after.append(_zero_byte(after[-1]))
    h = np.arange(65536, dtype=np.uint32)
    return [after[7 - 2 * i][h & 0xFF] ^ after[6 - 2 * i][h >> 8] for i in range(4)]


_SLICE16 = _slicing_tables()
_BYTE_BASIS = np.arange(256, dtype=np.uint32)[None, :] << (8 * np.arange(4, dtype=np.uint32))[:, None]
SHIFT = [_zero_byte(_BYTE_BASIS)]  # SHIFT[t][m][b]: the register (b << 8m) after 2**t zero bytes


def _apply(tables, c):
    """The linear map of 4x256 ``tables`` on registers ``c``."""
    return tables[0][c & 0xFF] ^ tables[1][(c >> 8) & 0xFF] ^ tables[2][(c >> 16) & 0xFF] ^ tables[3][c >> 24]


def shift_zeros(c, n):
    """Registers ``c`` (uint32 array) each advanced over ``n[i]`` zero bytes (int array)."""
    c = np.array(c, np.uint32)
    top = int(n.max()) if len(n) else 0
    t = 0
    while (1 << t) <= top:
        if t == len(SHIFT):
            SHIFT.append(_apply(SHIFT[-1], SHIFT[-1]))
        sel = np.flatnonzero(n & (1 << t))
        if sel.size:
            c[sel] = _apply(SHIFT[t], c[sel])
        t += 1
    return c


def _zeros_table(n):
    z, c = [], 0xFFFFFFFF
    for _ in range(n):
        z.append(c ^ 0xFFFFFFFF)
        c = _TABLE_LIST[c & 0xFF] ^ (c >> 8)
    return np.array(z, np.uint32)


ZEROS = _zeros_table(4096)  # ZEROS[n]: what the initial register and final inversion add to a CRC of n bytes
WIDTHS = tuple(range(8, 65, 8)) + (96, 128, 192, 256, 384, 512, 768, 1024)
_BLOCK_COST = 48  # per-block work, in bytes processed
_STEP_COST = 4096  # the Python and NumPy-call cost of one 8-byte step, in bytes processed
_MATRIX_BYTES = 1 << 20  # rows of the matrix processed at once
_BYTEWISE_MAX = 2048  # longer single inputs take the vectorised path


def crc32c(data):
    """The CRC32C of ``data`` (bytes): one byte at a time in Python when short, else `crc32c_spans`."""
    if len(data) > _BYTEWISE_MAX:
        return int(crc32c_spans(np.frombuffer(data, np.uint8), [0], [len(data)])[0])
    crc = 0xFFFFFFFF
    t = _TABLE_LIST
    for b in data:
        crc = t[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def crc32c_many(chunks):
    """The CRC32C of each of ``chunks`` (a list of bytes) as a uint32 array."""
    lens = np.fromiter((len(c) for c in chunks), np.int64, len(chunks))
    starts = np.cumsum(lens) - lens
    return crc32c_spans(np.frombuffer(b"".join(chunks), np.uint8), starts, lens)


def _width(lens):
    if lens.min() == lens.max() and lens[0] <= WIDTHS[-1]:
        return max(8, -(-int(lens[0]) // 8) * 8)
    costs = [(int(np.maximum(1, -(-lens // w)).sum()) * (w + _BLOCK_COST) + w // 8 * _STEP_COST, w) for w in WIDTHS]
    return min(costs)[1]


def _raw_rows(m):
    """The CRC from a zero register, without inversion, of each row of uint8 matrix ``m`` (rows, W)."""
    rows, width = m.shape
    words = np.ascontiguousarray(m.view(np.uint64).T)  # (W / 8, rows)
    c = np.zeros(rows, np.uint32)
    t0, t1, t2, t3 = _SLICE16
    for j in range(width // 8):
        h = (words[j] ^ c).view(np.uint16).reshape(rows, 4)
        c = t0[h[:, 0]] ^ t1[h[:, 1]] ^ t2[h[:, 2]] ^ t3[h[:, 3]]
    return c


def crc32c_spans(data, starts, lens):
    """The CRC32C of ``data[starts[i]:starts[i] + lens[i]]`` for each i (``data`` a uint8 array), as a
    uint32 array, computed for all spans at once (Note [Vectorised CRC32C])."""
    starts, lens = np.asarray(starts, np.int64), np.asarray(lens, np.int64)
    n = len(starts)
    if n == 0:
        return np.empty(0, np.uint32)
    width = _width(lens)
    blocks = np.maximum(1, -(-lens // width))
    pad = blocks * width - lens  # zeros before each span's first block
    total = int(blocks.sum())
    if total == n:
        span_of, index, firsts = None, None, None
        block_start = starts - pad + width
    else:
        firsts = np.cumsum(blocks) - blocks
        span_of = np.repeat(np.arange(n), blocks)
        index = np.arange(total) - firsts[span_of]
        block_start = (starts - pad)[span_of] + index * width + width
    padded = np.concatenate([np.zeros(width, np.uint8), data])  # + width: a first block may start before data
    windows = np.lib.stride_tricks.sliding_window_view(padded, width)
    columns = np.arange(width)
    raw = np.empty(total, np.uint32)
    step = max(1, _MATRIX_BYTES // width)
    for lo in range(0, total, step):
        hi = min(lo + step, total)
        m = windows[block_start[lo:hi]]
        rows = slice(None) if span_of is None else np.flatnonzero(index[lo:hi] == 0)
        p = pad[lo:hi] if span_of is None else pad[span_of[lo + rows]]
        most = int(p.max()) if len(p) else 0
        if most:  # zero the bytes before each span
            m[rows, :most] *= columns[:most] >= p[:, None]
        raw[lo:hi] = _raw_rows(m)
    if span_of is not None:
        raw = np.bitwise_xor.reduceat(shift_zeros(raw, (blocks[span_of] - 1 - index) * width), firsts)
    if lens.max() < len(ZEROS):
        return raw ^ ZEROS[lens]
    return raw ^ shift_zeros(np.full(n, _ONES), lens) ^ _ONES


def mask(crc):
    """TensorFlow's masked CRC: rotated right by 15 bits plus a constant (crc32c::Mask); for an
    int or a uint32 array."""
    if isinstance(crc, int):
        return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF
    crc = np.asarray(crc, np.uint64)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF
