"""Byte streams of files, plain or compressed (TensorFlow's "ZLIB" and "GZIP" compression types),
readable from an offset of the uncompressed bytes."""

import zlib

import tensorflux as tx

COMPRESSION = {None: None, "": None, "ZLIB": zlib.MAX_WBITS, "GZIP": 16 + zlib.MAX_WBITS}
_CHUNK = 1 << 20


def compression_wbits(compression_type):
    """zlib's window bits for a compression type name; ValueError naming the accepted ones."""
    key = compression_type.upper() if isinstance(compression_type, str) else compression_type
    if hasattr(key, "numpy"):
        key = key.numpy().decode().upper()
    if key not in COMPRESSION:
        raise ValueError("compression_type must be '', 'ZLIB' or 'GZIP', got %r" % (compression_type,))
    return COMPRESSION[key]


def compression_code(wbits):
    """The native engine's number for a compression's window bits: 0 none, 1 ZLIB, 2 GZIP."""
    return {None: 0, COMPRESSION["ZLIB"]: 1, COMPRESSION["GZIP"]: 2}[wbits]


def as_path(filename):
    if hasattr(filename, "numpy"):
        filename = filename.numpy()
    return filename.decode() if isinstance(filename, bytes) else str(filename)


class ByteStream:
    """Reads ``path``'s (uncompressed) bytes from ``offset``: ``take(n)`` returns up to n bytes; a
    missing file is NotFoundError and a broken compressed stream DataLossError, naming the file."""

    def __init__(self, path, wbits, offset=0):
        self.path = path
        try:
            self._f = open(path, "rb")  # noqa: SIM115 (closed by close())
        except FileNotFoundError:
            raise tx.errors.NotFoundError(None, None, "%s: No such file or directory" % path) from None
        except OSError as e:
            raise tx.errors.InvalidArgumentError(None, None, "%s: cannot open: %s" % (path, e)) from None
        self._z = zlib.decompressobj(wbits) if wbits is not None else None
        self._buf, self._pos, self.offset, self._raw_seen, self._error, self._fault = b"", 0, 0, False, None, None
        if offset:
            if self._z is None:
                self._f.seek(offset)
                self.offset = offset
            else:
                while self.offset < offset and self.take(min(_CHUNK, offset - self.offset)):
                    pass

    def _more(self):
        """The next uncompressed bytes (b"" at the end); DataLossError when the stream breaks before
        any. Bytes decoded before a fault come first, the fault's error with the call after them,
        wherever the fault falls in a chunk, as in the native engine (Note [Inflate] in csrc/inflate.cc)."""
        if self._fault is not None:
            raise self._fault
        raw = self._f.read(_CHUNK)
        if self._z is None:
            return raw
        if not raw:
            try:
                tail = self._z.flush()
                if self._raw_seen and not self._z.eof and not tail:
                    raise zlib.error("the compressed stream is truncated")
            except zlib.error as e:
                raise self._data_loss(e) from None
            return tail
        self._raw_seen = True
        before = self._z.copy()
        try:
            return self._z.decompress(raw)
        except zlib.error:
            pass
        out = []  # zlib drops a failing call's output: find it by feeding the chunk a byte at a time
        for i in range(len(raw)):
            try:
                out.append(before.decompress(raw[i:i + 1]))
            except zlib.error as e:
                self._fault = self._data_loss(e, sum(len(o) for o in out))
                break
        data = b"".join(out)
        if not data and self._fault is not None:
            raise self._fault
        return data

    def _data_loss(self, e, ahead=0):
        return tx.errors.DataLossError(None, None, "%s: corrupt compressed data near byte %d of the uncompressed "
                                       "stream (%s)" % (self.path, self.offset + len(self._buf) - self._pos + ahead, e))

    def take(self, n):
        """Up to ``n`` next bytes (fewer only at the end of the stream, or before corrupt compressed
        bytes: their DataLossError comes with the next call, after the bytes before them)."""
        if self._error is not None:
            error, self._error = self._error, None
            raise error
        while len(self._buf) - self._pos < n:
            try:
                more = self._more()
            except tx.errors.DataLossError as e:
                if len(self._buf) == self._pos:
                    raise
                self._error, more = e, b""
            if not more:
                break
            self._buf = self._buf[self._pos:] + more
            self._pos = 0
        out = self._buf[self._pos:self._pos + n]
        self._pos += len(out)
        self.offset += len(out)
        return out

    def close(self):
        self._f.close()
