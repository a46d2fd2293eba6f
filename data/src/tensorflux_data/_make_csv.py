"""make_csv_dataset (tf.data.experimental.make_csv_dataset): batches of CSV records as a dict of
columns (and a label), column names read from the header and column types inferred from the first
rows as TensorFlow infers them (Note [CSV type inference])."""

# Note [CSV type inference]: a column's type is the least permissive of int32, int64, float32,
# float64, string that every non-missing field of the rows read so far fits, in that order. A
# field fits int32/int64 when it is a Python int literal in range; float32/float64 when it parses
# as a float whose value in that type is below +inf (so "1e39" is float64 and "nan" or "inf" a
# string, as in TensorFlow); anything fits string. Missing fields ("" or na_value) say nothing; a
# column that is missing everywhere is a string. Inferred columns default to 0 or "" when missing.

import collections
import csv
import glob

import numpy as np

import tensorflux as tx

from tensorflux_data import _files, _options, _streams
from tensorflux_data._csv import CsvDataset, split_fields
from tensorflux_data._dataset import Dataset

_INT32, _INT64 = np.iinfo(np.int32), np.iinfo(np.int64)


def _fits_int(text, info):
    try:
        v = int(text)
    except ValueError:
        return False
    return info.min <= v <= info.max


def _fits_float(text, np_type):
    try:
        with np.errstate(over="ignore"):
            return bool(np_type(float(text)) < np.inf)
    except ValueError:
        return False


_INFERENCE = ((tx.int32, lambda t: _fits_int(t, _INT32)), (tx.int64, lambda t: _fits_int(t, _INT64)),
              (tx.float32, lambda t: _fits_float(t, np.float32)), (tx.float64, lambda t: _fits_float(t, np.float64)),
              (tx.string, lambda t: True))
_RANK = {dtype: i for i, (dtype, _) in enumerate(_INFERENCE)}


def infer_type(text, na_value, previous):
    """The type of a column whose earlier fields gave ``previous`` (None: none yet) after the field
    ``text`` (Note [CSV type inference])."""
    if text in ("", na_value):
        return previous
    for dtype, fits in _INFERENCE[_RANK[previous] if previous is not None else 0:]:
        if fits(text):
            return dtype
    return tx.string  # unreachable: every field fits string


class _Rows:
    """Reads the records of CSV files as lists of fields (one record per line, as CsvDataset)."""

    def __init__(self, field_delim, use_quote_delim, compression_type, encoding):
        self._delim, self._quote, self._encoding = field_delim, use_quote_delim, encoding
        self._wbits = _streams.compression_wbits(compression_type)

    def _split(self, path, line, number):
        try:
            return split_fields(line.decode(self._encoding), self._delim, self._quote)
        except (UnicodeDecodeError, csv.Error) as e:
            raise ValueError("%s: line %d is not a CSV record (%s)" % (path, number, e)) from None

    def rows(self, path):
        """(line number, fields) of each line of ``path``."""
        reader = _files._LineReader(path, self._wbits)
        try:
            number = 0
            while True:
                line = reader.next()
                if line is None:
                    return
                number += 1
                yield number, self._split(path, line, number)
        finally:
            reader.close()


def _file_names(file_pattern):
    patterns = file_pattern if isinstance(file_pattern, (list, tuple)) else [file_pattern]
    if not patterns:
        raise ValueError("file_pattern should not be empty")
    names = sorted(m for p in patterns for m in glob.glob(_streams.as_path(p)))
    if not names:
        raise ValueError("No files match file_pattern %s" % (file_pattern,))
    return names


def _column_names(reader, names):
    header = None
    for path in names:
        first = next(reader.rows(path), None)
        if first is None:
            raise ValueError("Failed when reading the header line of %s. Is it an empty file?" % path)
        if header is None:
            header = first[1]
        elif first[1] != header:
            raise ValueError("All input CSV files should have the same column names in the header row. File %s has "
                             "different column names: %s (the first file's are %s)" % (path, first[1], header))
    return header


def _selected_indices(select_columns, column_names):
    index = {n: i for i, n in enumerate(column_names)}
    out = []
    for c in select_columns:
        if isinstance(c, (int, np.integer)) and not isinstance(c, bool):
            if not 0 <= c < len(column_names):
                raise ValueError("Column index %d in select_columns is out of range: there are %d columns"
                                 % (c, len(column_names)))
            out.append(int(c))
        elif c in index:
            out.append(index[c])
        else:
            raise ValueError("Column %r in select_columns is not one of the columns %s" % (c, list(column_names)))
    if len(set(out)) != len(out):
        raise ValueError("select_columns names a column more than once: %s" % (list(select_columns),))
    return sorted(out)


def _records(reader, names, n_columns, header):
    """The records (lists of ``n_columns`` fields) of the files, in order, headers skipped."""
    for path in names:
        for number, fields in reader.rows(path):
            if header and number == 1:
                continue
            if len(fields) != n_columns:
                raise ValueError("Problem inferring types: %s line %d has %d fields, expected %d"
                                 % (path, number, len(fields), n_columns))
            yield fields


def _inferred_defaults(reader, names, n_columns, header, na_value, rows_for_inference, selected):
    types = [None] * len(selected)
    for i, fields in enumerate(_records(reader, names, n_columns, header)):
        if rows_for_inference is not None and i >= rows_for_inference:
            break
        types = [infer_type(fields[c], na_value, t) for c, t in zip(selected, types)]
    return [tx.constant([b"" if t in (None, tx.string) else 0], t or tx.string) for t in types]


def make_csv_dataset(file_pattern, batch_size, column_names=None, column_defaults=None, label_name=None,
                     select_columns=None, field_delim=",", use_quote_delim=True, na_value="", header=True,
                     num_epochs=None, shuffle=True, shuffle_buffer_size=10000, shuffle_seed=None,
                     prefetch_buffer_size=None, num_parallel_reads=None, sloppy=False, num_rows_for_inference=100,
                     compression_type=None, ignore_errors=False, encoding="utf-8"):
    """Batches of ``batch_size`` records of the CSV files matching ``file_pattern``, each an ordered
    dict of column name to a batched tensor, or ``(features, label)`` when ``label_name`` is given;
    names come from the header and types are inferred from the first ``num_rows_for_inference``
    rows unless given (TensorFlow's rules; the dataset repeats ``num_epochs`` times, forever when
    None, with full batches only then).

    >>> import os, tempfile, tensorflux_data as txd
    >>> path = os.path.join(tempfile.mkdtemp(), "a.csv")
    >>> _ = open(path, "w").write("x,y,name\\n1,0.5,ann\\n2,,bob\\n3,2.5,cy\\n")
    >>> ds = txd.experimental.make_csv_dataset(path, 2, label_name="y", num_epochs=1, shuffle=False)
    >>> features, label = next(iter(ds))
    >>> {k: v.dtype.name for k, v in features.items()}, label.numpy().tolist()
    ({'x': 'int32', 'name': 'string'}, [0.5, 0.0])
    """
    names = _file_names(file_pattern)
    reader = _Rows(field_delim, use_quote_delim, compression_type, encoding)
    if column_names is None:
        if not header:
            raise ValueError("make_csv_dataset needs column_names or header=True to name the columns")
        column_names = _column_names(reader, names)
    column_names = list(column_names)
    if len(set(column_names)) != len(column_names):
        dups = sorted({n for n in column_names if column_names.count(n) > 1})
        raise ValueError("The column names (column_names or the header) name a column more than once: %s" % dups)
    selected = None if select_columns is None else _selected_indices(select_columns, column_names)
    wanted = list(range(len(column_names))) if selected is None else selected
    if column_defaults is None:
        column_defaults = _inferred_defaults(reader, names, len(column_names), header, na_value,
                                             num_rows_for_inference, wanted)
    column_defaults = list(column_defaults)
    if len(column_defaults) != len(wanted):
        raise ValueError("column_defaults has %d entries but %s %d columns" % (
            len(column_defaults), "select_columns selects" if selected is not None else "there are", len(wanted)))
    column_names = [column_names[i] for i in wanted]
    if label_name is not None and label_name not in column_names:
        raise ValueError("label_name must be one of the columns %s, got %r" % (column_names, label_name))

    def file_dataset(filename):
        ds = CsvDataset(filename, column_defaults, compression_type=compression_type, header=header,
                        field_delim=field_delim, use_quote_delim=use_quote_delim, na_value=na_value,
                        select_cols=selected)
        return ds.ignore_errors() if ignore_errors else ds

    def to_features(*columns):
        features = collections.OrderedDict(zip(column_names, columns))
        if label_name is None:
            return features
        label = features.pop(label_name)
        return features, label

    ds = Dataset.from_tensor_slices(np.array([n.encode() for n in names], object))
    if shuffle:
        ds = ds.shuffle(len(names), shuffle_seed)
    reads = 1 if num_parallel_reads is None else num_parallel_reads
    if reads == _options.AUTOTUNE:
        ds = ds.interleave(file_dataset, num_parallel_calls=_options.AUTOTUNE)
        options = _options.Options()
        options.deterministic = not sloppy
        ds = ds.with_options(options)
    else:
        ds = ds.interleave(file_dataset, cycle_length=reads, block_length=1, num_parallel_calls=reads,
                           deterministic=not sloppy)
    if shuffle:
        ds = ds.shuffle(shuffle_buffer_size, shuffle_seed)
    if num_epochs != 1:
        ds = ds.repeat(num_epochs)
    ds = ds.batch(batch_size, drop_remainder=num_epochs is None).map(to_features)
    return ds.prefetch(_options.AUTOTUNE if prefetch_buffer_size is None else prefetch_buffer_size)
