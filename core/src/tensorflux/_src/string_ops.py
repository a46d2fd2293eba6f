"""String functions (``tx.strings.*``, like ``tf.strings``), thin over the string ops.

String tensors hold byte strings; Python ``str`` values are encoded as UTF-8 and results come back
as ``bytes`` (docs/strings.md). Where TensorFlow returns a RaggedTensor (``split``,
``bytes_split`` of non-scalars), Tensorflux, which has no ragged type, returns the same values as
a `SparseStrings` triple: what TensorFlow's ``RaggedTensor.to_sparse()`` gives.
"""

import collections

import numpy as np

from tensorflux._src import dtypes as _dtypes
from tensorflux._src.array_ops import cast, concat, reshape, stack, transpose
from tensorflux._src.constant_op import convert_to_tensor
from tensorflux._src.gather_ops import gather, where
from tensorflux._src.generated import gen_ops
from tensorflux._src.index_ext import unravel_index
from tensorflux._src.math_ops import less
from tensorflux._src.reduce_ops import reduce_max
from tensorflux._src.shape_ops import range as _range
from tensorflux._src.shape_ops import rank as _rank
from tensorflux._src.shape_ops import shape as _shape
from tensorflux._src.shape_ops import ones_like, size

__all__ = ["as_string", "bytes_split", "format", "join", "length", "lower", "reduce_join", "regex_full_match",
           "regex_replace", "split", "strip", "substr", "to_hash_bucket", "to_hash_bucket_fast",
           "to_hash_bucket_strong", "to_number", "upper", "SparseStrings"]

SparseStrings = collections.namedtuple("SparseStrings", ["indices", "values", "dense_shape"])
SparseStrings.__doc__ = """The pieces of a split as a sparse matrix: int64 ``indices`` [n, rank + 1]
(the input element's coordinates, then the piece's position), string ``values`` [n], and int64
``dense_shape`` (the input's shape, then the most pieces of any element): TensorFlow's
``RaggedTensor.to_sparse()`` of the same split."""


def _strings(x, name="input"):
    return convert_to_tensor(x, dtype=_dtypes.string, name=name)


def join(inputs, separator="", name=None):
    """The strings of ``inputs`` (a list of string tensors of one shape, or scalars) joined
    element-wise with ``separator``.

    >>> tx.strings.join(["a", tx.constant(["x", "y"])], separator="-").numpy()
    array([b'a-x', b'a-y'], dtype=object)
    """
    return gen_ops.string_join([_strings(x) for x in inputs], separator=separator, name=name)


def length(input, unit="BYTE", name=None):  # noqa: A002 (TensorFlow's name)
    """The length of each string in bytes (``unit="BYTE"``) or UTF-8 characters (``"UTF8_CHAR"``), int32.

    >>> tx.strings.length(["héllo", ""]).numpy()
    array([6, 0], dtype=int32)
    >>> int(tx.strings.length("héllo", unit="UTF8_CHAR"))
    5
    """
    return gen_ops.string_length(_strings(input), unit=unit, name=name)


def substr(input, pos, len, unit="BYTE", name=None):  # noqa: A002 (TensorFlow's names)
    """The substrings of ``len`` units from ``pos`` (negative: from the end; ``len`` < 0: to the
    end); ``pos`` and ``len`` have one shape and broadcast against ``input``. A ``pos`` outside
    a string is an InvalidArgumentError.

    >>> tx.strings.substr(["hello", "world"], 1, 3).numpy()
    array([b'ell', b'orl'], dtype=object)
    """
    return gen_ops.substr(_strings(input), pos, len, unit=unit, name=name)


def strip(input, name=None):  # noqa: A002
    """Each string without leading and trailing ASCII whitespace.

    >>> tx.strings.strip("  hi \\n").numpy()
    b'hi'
    """
    return gen_ops.string_strip(_strings(input), name=name)


def lower(input, encoding="", name=None):  # noqa: A002
    """Each string lowercased: ASCII letters, or with ``encoding="utf-8"`` the letters of UTF-8
    text (Latin, Greek and Cyrillic; docs/strings.md).

    >>> tx.strings.lower("ÀB c").numpy().decode()
    'Àb c'
    >>> tx.strings.lower("ÀB c", encoding="utf-8").numpy().decode()
    'àb c'
    """
    return gen_ops.string_lower(_strings(input), encoding=encoding, name=name)


def upper(input, encoding="", name=None):  # noqa: A002
    """Each string uppercased, as `lower` lowercases.

    >>> tx.strings.upper("straße", encoding="utf-8").numpy().decode()
    'STRASSE'
    """
    return gen_ops.string_upper(_strings(input), encoding=encoding, name=name)


def to_number(input, out_type=_dtypes.float32, name=None):  # noqa: A002
    """Each string parsed as a number of ``out_type`` (float32, float64, int32, int64, uint32,
    uint64); surrounding whitespace is allowed, anything else unparsable is an InvalidArgumentError
    ("StringToNumberOp could not correctly convert string: ...").

    >>> tx.strings.to_number(["1.5", " -2 "]).numpy()
    array([ 1.5, -2. ], dtype=float32)
    >>> int(tx.strings.to_number("42", out_type=tx.int64))
    42
    """
    return gen_ops.string_to_number(_strings(input), out_type=out_type, name=name)


def as_string(input, precision=-1, scientific=False, shortest=False, width=-1, fill="", name=None):  # noqa: A002
    """Each element as text, printf-style: ``precision`` digits after the point (floats),
    ``scientific`` or ``shortest`` notation, padded to ``width`` with ``fill`` (one of " +-0#").

    >>> tx.strings.as_string([1.5, 2.0], precision=2).numpy()
    array([b'1.50', b'2.00'], dtype=object)
    >>> tx.strings.as_string(7, width=3, fill="0").numpy()
    b'007'
    """
    return gen_ops.as_string(input, precision=precision, scientific=scientific, shortest=shortest, width=width,
                             fill=fill, name=name)


def to_hash_bucket_fast(input, num_buckets, name=None):  # noqa: A002
    """FarmHash Fingerprint64 of each string modulo ``num_buckets``: the same bucket TensorFlow
    computes for the same bytes (int64).

    >>> int(tx.strings.to_hash_bucket_fast("hello world", 1000))
    11
    """
    return gen_ops.string_to_hash_bucket_fast(_strings(input), num_buckets=num_buckets, name=name)


def to_hash_bucket_strong(input, num_buckets, key, name=None):  # noqa: A002
    """SipHash-2-4 of each string under ``key`` (two integers) modulo ``num_buckets``, as TensorFlow.

    >>> int(tx.strings.to_hash_bucket_strong("hello world", 1000, [1, 2]))
    446
    """
    return gen_ops.string_to_hash_bucket_strong(_strings(input), num_buckets=num_buckets, key=list(key), name=name)


def to_hash_bucket(input, num_buckets, name=None):  # noqa: A002
    """TensorFlow's legacy Hash64 of each string modulo ``num_buckets`` (prefer `to_hash_bucket_fast`).

    >>> int(tx.strings.to_hash_bucket("hello world", 1000))
    655
    """
    return gen_ops.string_to_hash_bucket(_strings(input), num_buckets=num_buckets, name=name)


def _reduce_join_axes(inputs, axis):
    if axis is not None:
        return axis
    rank = inputs.shape.rank
    if rank is not None:
        return np.arange(rank - 1, -1, -1, dtype=np.int32)
    return _range(_rank(inputs) - 1, -1, -1)


def reduce_join(inputs, axis=None, keepdims=False, separator="", name=None):
    """The strings joined along ``axis`` (all axes when None) with ``separator``; with several
    axes the first listed varies fastest.

    >>> tx.strings.reduce_join([["a", "b"], ["c", "d"]], axis=1, separator=",").numpy()
    array([b'a,b', b'c,d'], dtype=object)
    >>> tx.strings.reduce_join([["a", "b"], ["c", "d"]]).numpy()
    b'abcd'
    """
    inputs = _strings(inputs)
    return gen_ops.reduce_join(inputs, _reduce_join_axes(inputs, axis), keep_dims=keepdims, separator=separator,
                               name=name)


def regex_full_match(input, pattern, name=None):  # noqa: A002
    """Whether each whole string matches ``pattern`` (RE2 syntax; docs/strings.md). A Python
    pattern is compiled once (StaticRegexFullMatch); a bad pattern is an InvalidArgumentError.

    >>> tx.strings.regex_full_match(["abc", "abd"], r"ab[c-z]?c").numpy()
    array([ True, False])
    """
    if isinstance(pattern, (str, bytes)):
        return gen_ops.static_regex_full_match(_strings(input), pattern=_text(pattern), name=name)
    return gen_ops.regex_full_match(_strings(input), _strings(pattern, "pattern"), name=name)


def regex_replace(input, pattern, rewrite, replace_global=True, name=None):  # noqa: A002
    """Each string with the matches of ``pattern`` (RE2 syntax) replaced by ``rewrite``, in which
    ``\\0``-``\\9`` insert groups; every match, or the first when ``replace_global`` is False.

    >>> tx.strings.regex_replace("2024-01-31", r"(\\d+)-(\\d+)-(\\d+)", r"\\3/\\2/\\1").numpy()
    b'31/01/2024'
    """
    if isinstance(pattern, (str, bytes)) and isinstance(rewrite, (str, bytes)):
        return gen_ops.static_regex_replace(_strings(input), pattern=_text(pattern), rewrite=_text(rewrite),
                                            replace_global=replace_global, name=name)
    return gen_ops.regex_replace(_strings(input), _strings(pattern, "pattern"), _strings(rewrite, "rewrite"),
                                 replace_global=replace_global, name=name)


def _text(s):
    return s.decode("utf-8", "surrogateescape") if isinstance(s, bytes) else s


def format(template, inputs, placeholder="{}", summarize=3, name=None):  # noqa: A001 (TensorFlow's name)
    """``template`` with each ``placeholder`` replaced by the next of ``inputs`` (a tensor or a list),
    formatted as tf.print shows tensors (the first and last ``summarize`` entries per dimension).

    >>> tx.strings.format("x={} y={}", [tx.constant([1, 2, 3, 4, 5]), "s"], summarize=2).numpy()
    b'x=[1 2 ... 4 5] y="s"'
    """
    if not isinstance(inputs, (list, tuple)):
        inputs = [inputs]
    if template.count(placeholder) != len(inputs):
        raise ValueError("The template expects %d tensors, but the inputs only has %d. Please ensure the number of "
                         "placeholders in template matches inputs length." % (template.count(placeholder), len(inputs)))
    return gen_ops.string_format([convert_to_tensor(x) for x in inputs], template=template, placeholder=placeholder,
                                 summarize=summarize, name=name)


def split(input, sep=None, maxsplit=-1, name=None):  # noqa: A002
    """The pieces of each string at ``sep`` (runs of ASCII whitespace when None, skipping empty
    pieces), at most ``maxsplit`` splits per string (all when -1). A scalar input gives a 1-D tensor
    of pieces, as in TensorFlow; other inputs give a `SparseStrings` (TensorFlow's ragged result,
    converted with ``to_sparse()``).

    >>> tx.strings.split("a b  c").numpy()
    array([b'a', b'b', b'c'], dtype=object)
    >>> parts = tx.strings.split(["a,b", "c"], sep=",")
    >>> parts.values.numpy(), parts.dense_shape.numpy()
    (array([b'a', b'b', b'c'], dtype=object), array([2, 2]))
    """
    return _split_or_bytes(input, lambda flat: gen_ops.string_split_v2(flat, "" if sep is None else sep,
                                                                        maxsplit=maxsplit, name=name))


def bytes_split(input, name=None):  # noqa: A002
    """Each string split into its bytes: a 1-D tensor for a scalar input, else a `SparseStrings`.

    >>> tx.strings.bytes_split("abc").numpy()
    array([b'a', b'b', b'c'], dtype=object)
    """
    return _split_or_bytes(input, _bytes_pieces)


def _bytes_pieces(flat):
    """StringSplitV2-style (indices, values, shape) of the bytes of each string of vector ``flat``."""
    lengths = gen_ops.string_length(flat)
    widest = reduce_max(concat([lengths, [0]], 0))
    mask = less(_range(widest)[None, :], lengths[:, None])
    indices = where(mask)
    starts = cast(indices[:, 1], _dtypes.int32)
    values = gen_ops.substr(gather(flat, indices[:, 0]), starts, ones_like(starts))
    return indices, values, stack([cast(size(flat), _dtypes.int64), cast(widest, _dtypes.int64)])


def _split_or_bytes(input, pieces):  # noqa: A002
    """Runs ``pieces`` (vector -> indices, values, shape) on ``input`` and shapes the result like
    TensorFlow's: a vector for a scalar input, else a `SparseStrings` over the input's
    coordinates (an input of unknown rank counts as non-scalar)."""
    x = _strings(input)
    if x.shape.rank == 0:
        return pieces(reshape(x, [1]))[1]
    indices, values, shape = pieces(reshape(x, [-1]))
    if x.shape.rank == 1:
        return SparseStrings(indices, values, shape)
    in_shape = cast(_shape(x), _dtypes.int64)
    coords = unravel_index(indices[:, 0], in_shape)  # [rank, n]
    full = transpose(concat([coords, indices[None, :, 1]], 0))
    return SparseStrings(full, values, concat([in_shape, shape[1:]], 0))
