"""The file cache's format. A cache file is a sequence of records, each framed as a TFRecord is but
with zlib's CRC-32 (fast in C) in place of CRC32C: the payload's length (uint64), the CRC-32 of
those 8 bytes (uint32), the payload, the payload's CRC-32 (uint32). The first payload byte is the
record's kind:

- ``H`` + JSON ``{"format": "tensorflux-data-cache-v1", "id": <hex>, "element_spec": <text>}``;
- ``E`` + each component in order: its rank (uint8), its dimensions (uint64 each), then for a string
  tensor the byte length of each string (uint64 each) followed by the strings' bytes, for any other
  dtype the values' bytes in C order (the dtype comes from the element spec);
- ``F`` + JSON ``{"elements": <count>}``.

The file holds one ``H`` record, the ``E`` records, one ``F`` record. All integers are
little-endian. Nothing is pickled: decoding only slices bytes."""

import json
import math
import os
import struct
import zlib

import numpy as np

import tensorflux as tx

from tensorflux_data import _structure

FORMAT = "tensorflux-data-cache-v1"
HEADER_RECORD, ELEMENT_RECORD, END_RECORD = b"H", b"E", b"F"
_U64 = np.dtype("<u8")


def corrupt(path, offset, what):
    """The DataLossError of a cache file that is not what it should be."""
    return tx.errors.DataLossError(None, None, "%s: corrupt cache file (%s) at byte offset %d; delete it to "
                                   "rewrite the cache" % (path, what, offset))


_HEAD = struct.Struct("<QI")
_CRC = struct.Struct("<I")


def frame(payload):
    """The bytes of one record holding ``payload``."""
    head = struct.pack("<Q", len(payload))
    return head + _CRC.pack(zlib.crc32(head)) + payload + _CRC.pack(zlib.crc32(payload))


class RecordReader:
    """The payloads of a cache file's records from byte ``offset`` on: ``next()`` returns one, or None
    at the end of the file; a bad checksum or a cut record is a DataLossError naming the file and
    the offset. ``offset`` is where the next record starts."""

    def __init__(self, path, offset=0):
        self.path, self.offset = path, offset
        try:
            self._f = open(path, "rb")  # noqa: SIM115 (closed by close())
            self._size = os.fstat(self._f.fileno()).st_size
        except OSError as e:
            raise tx.errors.NotFoundError(None, None, "cache: cannot read %s: %s" % (path, e.strerror)) from None
        self._f.seek(offset)

    def next(self):
        head = self._f.read(_HEAD.size)
        if not head:
            return None
        if len(head) < _HEAD.size:
            raise corrupt(self.path, self.offset, "a cut record header")
        length, crc = _HEAD.unpack(head)
        if zlib.crc32(head[:8]) != crc:
            raise corrupt(self.path, self.offset, "a bad length checksum")
        if length + 4 > self._size - self.offset - _HEAD.size:
            raise corrupt(self.path, self.offset, "a cut record: %d bytes announced, %d left"
                          % (length + 4, self._size - self.offset - _HEAD.size))
        body = self._f.read(length + 4)
        if zlib.crc32(body[:length]) != _CRC.unpack_from(body, length)[0]:
            raise corrupt(self.path, self.offset, "a bad data checksum")
        self.offset += _HEAD.size + length + 4
        return body[:length]

    def close(self):
        self._f.close()


def header_record(cache_id, spec_text):
    return HEADER_RECORD + json.dumps({"format": FORMAT, "id": cache_id, "element_spec": spec_text}).encode()


def end_record(count):
    return END_RECORD + json.dumps({"elements": count}).encode()


def _json(path, offset, body, what):
    try:
        obj = json.loads(body.decode())
    except (UnicodeDecodeError, ValueError):
        obj = None
    if not isinstance(obj, dict):
        raise corrupt(path, offset, "its %s record is not JSON" % what)
    return obj


def end_count(path, offset, body):
    """The element count of an end record's body."""
    n = _json(path, offset, body, "end").get("elements")
    if not isinstance(n, int):
        raise corrupt(path, offset, "its end record has no element count")
    return n


def read_header(path, spec_text):
    """The header of cache file ``path`` as a dict; DataLossError when the file is not a cache,
    InvalidArgumentError when it was written for elements other than ``spec_text``."""
    reader = RecordReader(path)
    try:
        record = reader.next()
    except tx.errors.DataLossError:
        record = None
    finally:
        reader.close()
    if not record or record[:1] != HEADER_RECORD:
        raise corrupt(path, 0, "not a tensorflux-data cache: no header record")
    header = _json(path, 0, record[1:], "header")
    if header.get("format") != FORMAT or not isinstance(header.get("id"), str):
        raise corrupt(path, 0, "unknown cache format %r" % header.get("format"))
    if header.get("element_spec") != spec_text:
        raise tx.errors.InvalidArgumentError(
            None, None, "cache: %s holds elements %s but this dataset's elements are %s (it was written by "
            "another pipeline; delete it or use another filename)" % (path, header.get("element_spec"), spec_text))
    return header


def _le(array):
    """``array`` with little-endian values (a copy only on a big-endian host or array)."""
    return array if array.dtype.byteorder in "<|" or (array.dtype.byteorder == "=" and np.little_endian) \
        else array.astype(array.dtype.newbyteorder("<"))


def element_record(flat, specs):
    """The record of an element (a flat tuple of arrays) of flat specs ``specs``."""
    parts = [ELEMENT_RECORD]
    for a, spec in zip(flat, specs):
        a = np.asarray(a)
        parts.append(struct.pack("<B%dQ" % a.ndim, a.ndim, *a.shape))
        if spec.dtype == tx.string:  # an object array of bytes, or NumPy's bytes/str arrays
            data = [v.encode() if isinstance(v, str) else bytes(v) for v in a.reshape(-1)]
            parts.append(np.array([len(d) for d in data], _U64).tobytes())
            parts.extend(data)
        else:
            parts.append(np.ascontiguousarray(_le(a)).tobytes())
    return b"".join(parts)


def layout(specs):
    """Per component of flat specs ``specs``: (NumPy dtype of the stored values or None for strings,
    the spec's shape as a list or None for an unknown rank), what decoding needs."""
    return [(None if spec.dtype == tx.string else np.dtype(spec.dtype.as_numpy_dtype).newbyteorder("<"),
             _structure.shape_list(spec)) for spec in specs]


def _fits(shape, want):
    return want is None or (len(shape) == len(want) and all(w is None or w == d for d, w in zip(shape, want)))


def decode_element(path, offset, record, components):
    """The flat element of an element record; DataLossError when it does not decode to
    ``components`` (`layout`'s list)."""
    if record[:1] != ELEMENT_RECORD:
        raise corrupt(path, offset, "a record of unknown kind %r" % record[:1])
    pos, out = 1, []
    try:
        for i, (dtype, want) in enumerate(components):
            ndim = record[pos]
            shape = struct.unpack_from("<%dQ" % ndim, record, pos + 1)
            pos += 1 + 8 * ndim
            if not _fits(shape, want):
                raise ValueError("component %d has shape %s, the element spec says %s" % (i, list(shape), want))
            n = math.prod(shape)
            if dtype is None:
                lengths = np.frombuffer(record, _U64, n, pos)
                pos += 8 * n
                ends = pos + np.cumsum(lengths, dtype=np.int64)
                if n and ends[-1] > len(record):
                    raise ValueError("strings past the record's end")
                values = np.empty(n, object)
                for j, (s, e) in enumerate(zip(np.concatenate([[pos], ends[:-1]]).tolist(), ends.tolist())):
                    values[j] = record[s:e]
                pos = int(ends[-1]) if n else pos
                out.append(values.reshape(shape))
            else:
                out.append(np.frombuffer(record, dtype, n, pos).reshape(shape).astype(dtype.newbyteorder("=")))
                pos += n * dtype.itemsize
    except (IndexError, ValueError, OverflowError, struct.error) as e:
        raise corrupt(path, offset, "an element record does not decode: %s" % e) from None
    if pos != len(record):
        raise corrupt(path, offset, "an element record has %d bytes past its components" % (len(record) - pos))
    return tuple(out)
