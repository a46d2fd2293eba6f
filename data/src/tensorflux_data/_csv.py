"""CsvDataset (tf.data.experimental.CsvDataset): the records of CSV files as tuples of scalars typed
by ``record_defaults``; resumable at the file and byte offset of the next record. A record is one
line (quoted fields may hold the delimiter and doubled quotes, not line breaks)."""

import csv

import numpy as np

import tensorflux as tx

from tensorflux_data import _files
from tensorflux_data._base import END, CountingIterator, invalid
from tensorflux_data._dataset import Dataset

_TYPES = (tx.float32, tx.float64, tx.int32, tx.int64, tx.string)


class _HeaderlessLines(_files._LineReader):
    """Lines of a CSV file after its header line (skipped when reading from the file's start)."""

    def __init__(self, path, wbits, offset=0):
        super().__init__(path, wbits, offset)
        if offset == 0:
            super().next()


class _CsvLines(_files._FileDataset):
    _kind = "csv_lines"

    def __init__(self, filenames, compression_type, header):
        self._reader = _HeaderlessLines if header else _files._LineReader
        super().__init__(filenames, compression_type)

    def _params(self):
        return "%s,%s" % (self._wbits, self._reader.__name__)


def _column(default):
    """(dtype, default array or None when the field is required) of one record_defaults entry."""
    if isinstance(default, tx.DType) or (isinstance(default, type) and issubclass(default, np.generic)):
        dtype = tx.as_dtype(default)
        value = None
    else:
        t = tx.convert_to_tensor(default)
        dtype = t.dtype
        value = np.asarray(t.numpy()) if t.shape.num_elements() else None
        if value is not None and value.ndim:
            if value.size != 1:
                raise ValueError("record_defaults: a default must be a scalar, got shape %s" % list(value.shape))
            value = value.reshape(())
    if dtype not in _TYPES:
        raise TypeError("record_defaults: unsupported type %s (float32, float64, int32, int64 or string)" % dtype.name)
    return dtype, value


def split_fields(text, delim, quote):
    """The fields of one CSV record ``text`` (quoted fields when ``quote``); csv.Error when malformed."""
    if quote:
        return next(csv.reader([text], delimiter=delim, quotechar='"', strict=True), [])
    return text.split(delim)


class _CsvIterator(CountingIterator):
    def next(self):
        x = self._in.next()
        if x is END:
            return END
        self._count += 1
        return self._node._parse(x[0].item(), self._count - 1)


class CsvDataset(Dataset):
    """Records of CSV files as tuples of scalars: ``record_defaults`` gives each column's type and,
    for an optional column, its default (a dtype alone: the field is required).

    >>> import os, tempfile, tensorflux as tx, tensorflux_data as txd
    >>> path = os.path.join(tempfile.mkdtemp(), "a.csv")
    >>> _ = open(path, "w").write("id,score,name\\n1,0.5,ann\\n2,,bob\\n")
    >>> ds = txd.experimental.CsvDataset(path, [tx.int64, 1.0, "?"], header=True)
    >>> [(int(a), float(b), c.numpy()) for a, b, c in ds]
    [(1, 0.5, b'ann'), (2, 1.0, b'bob')]
    """

    _kind = "csv"

    def __init__(self, filenames, record_defaults, compression_type=None, buffer_size=None, header=False,
                 field_delim=",", use_quote_delim=True, na_value="", select_cols=None, exclude_cols=None, name=None):
        columns = [_column(d) for d in record_defaults]
        if select_cols is not None and exclude_cols is not None:
            raise ValueError("select_cols and exclude_cols cannot both be given")
        self._select = None if select_cols is None else sorted(int(c) for c in select_cols)
        self._exclude = set() if exclude_cols is None else {int(c) for c in exclude_cols}
        if self._select is not None and len(self._select) != len(columns):
            raise ValueError("record_defaults has %d entries but select_cols selects %d columns"
                             % (len(columns), len(self._select)))
        if len(field_delim) != 1:
            raise ValueError("field_delim must be one character, got %r" % (field_delim,))
        self._columns, self._delim, self._quote, self._na = columns, field_delim, bool(use_quote_delim), na_value
        spec = tuple(tx.TensorSpec([], dtype) for dtype, _ in columns)
        super().__init__((_CsvLines(filenames, compression_type, header),), spec)

    def _fields(self, line, record):
        fields = split_fields(line.decode("utf-8", errors="replace"), self._delim, self._quote)
        if self._select is not None:
            if self._select and self._select[-1] >= len(fields):
                raise invalid("Expect at least %d fields but have %d in record %d" % (self._select[-1] + 1,
                                                                                    len(fields), record))
            return [fields[i] for i in self._select]
        fields = [f for i, f in enumerate(fields) if i not in self._exclude]
        if len(fields) != len(self._columns):
            raise invalid("Expect %d fields but have %d in record %d" % (len(self._columns), len(fields), record))
        return fields

    def _parse(self, line, record):
        try:
            fields = self._fields(line, record)
        except csv.Error as e:
            raise invalid("Malformed CSV in record %d: %s" % (record, e)) from None
        out = []
        for i, (field, (dtype, default)) in enumerate(zip(fields, self._columns)):
            if field == "" or field == self._na:
                if default is None:
                    raise invalid("Field %d is required but missing in record %d!" % (i, record))
                out.append(default)
                continue
            if dtype == tx.string:
                out.append(np.array(field.encode(), object))
                continue
            try:
                value = float(field) if dtype.is_floating else int(field)
            except ValueError:
                raise invalid("Field %d in record %d is not a valid %s: %s" % (
                    i, record, "float" if dtype.is_floating else "int", field)) from None
            try:
                with np.errstate(over="ignore"):  # a float too large for its type is inf, as in TensorFlow
                    out.append(np.asarray(value, dtype.as_numpy_dtype))
            except OverflowError:
                raise invalid("Field %d in record %d is not a valid %s: %s" % (i, record, dtype.name, field)) from None
        return tuple(out)

    def _make_iter(self, ctx):
        return _CsvIterator(self, ctx)

    def _params(self):
        return repr((self._delim, self._quote, self._na, self._select, sorted(self._exclude)))
