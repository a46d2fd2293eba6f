"""TextVectorization: raw strings to token indices or token-count vectors (standardize, split,
n-grams, then a StringLookup), on the engine's string ops.

Note [Split text without RaggedTensor]
Keras splits text into a RaggedTensor. Here a split batch is `Tokens`: the flat token strings
with each token's row and column, and the number of rows. N-grams are built on that form (the
k tokens starting at i form a k-gram when they share i's row; a row's k-grams follow its shorter
n-grams, as tf.strings.ngrams orders them); the int output is scattered into a [rows, length]
tensor padded with 0, and the counting outputs sum per row, so no ragged type is needed.
"""

import collections

import numpy as np

from tensorflux._src import array_ops, math_ops, reduce_ops, string_ops
from tensorflux._src import context as _context
from tensorflux._src.boolean_mask import boolean_mask
from tensorflux._src.constant_op import constant
from tensorflux._src.generated import gen_ops
from tensorflux._src.keras import serialization
from tensorflux._src.keras.layer import Layer
from tensorflux._src.keras.layers.category_encoding import raw_batches
from tensorflux._src.keras.layers.core import base_config
from tensorflux._src.keras.layers.lookup import StringLookup

# Keras's punctuation class for "strip_punctuation" (ASCII punctuation).
_PUNCTUATION = r'[!"#$%&()\*\+,-\./:;<=>?@\[\\\]^_`{|}~\']'
_STANDARDIZE = ("lower_and_strip_punctuation", "lower", "strip_punctuation")
_SPLIT = ("whitespace", "character")

Tokens = collections.namedtuple("Tokens", ["values", "rows", "cols", "nrows"])
Tokens.__doc__ = "A split batch of text (Note [Split text without RaggedTensor]): int64 rows and columns."


def _i64(x):
    return math_ops.cast(x, "int64")


def _from_sparse(parts):
    """`Tokens` of a 2-D SparseStrings (tx.strings.split of a vector)."""
    return Tokens(parts.values, _i64(parts.indices[:, 0]), _i64(parts.indices[:, 1]), _i64(parts.dense_shape[0]))


def _characters(flat):
    """`Tokens` of the UTF-8 characters of each string of vector ``flat``."""
    lengths = _i64(string_ops.length(flat, unit="UTF8_CHAR"))
    widest = reduce_ops.reduce_max(gen_ops.concat_v2([lengths, constant([0], dtype="int64")], 0))
    positions = gen_ops.range(constant(0, dtype="int64"), widest, constant(1, dtype="int64"))
    where = gen_ops.where(gen_ops.less(gen_ops.expand_dims(positions, 0), gen_ops.expand_dims(lengths, 1)))
    rows, cols = where[:, 0], where[:, 1]
    pieces = gen_ops.substr(gen_ops.gather_v2(flat, rows, 0), math_ops.cast(cols, "int32"),
                            gen_ops.ones_like(math_ops.cast(cols, "int32")), unit="UTF8_CHAR")
    return Tokens(pieces, rows, cols, _i64(gen_ops.size(flat)))


def ngrams(tokens, widths):
    """The ``widths``-grams of each row of ``tokens`` joined by spaces, each row's in order of
    width (Note [Split text without RaggedTensor])."""
    n = gen_ops.size(tokens.values, out_type="int64")
    one = constant(1, dtype="int64")
    lengths = gen_ops.unsorted_segment_sum(gen_ops.ones_like(tokens.rows), tokens.rows, tokens.nrows)
    starts = reduce_ops.cumsum(lengths, exclusive=True)
    offset = gen_ops.zeros_like(lengths)
    values, rows, cols = [], [], []
    for k in widths:
        k_t = constant(k, dtype="int64")
        count = gen_ops.maximum(n - k_t + one, constant(0, dtype="int64"))
        first = gen_ops.range(constant(0, dtype="int64"), count, one)
        last = first + k_t - one
        same_row = gen_ops.equal(gen_ops.gather_v2(tokens.rows, first, 0), gen_ops.gather_v2(tokens.rows, last, 0))
        first = boolean_mask(first, same_row)
        row = gen_ops.gather_v2(tokens.rows, first, 0)
        parts = [gen_ops.gather_v2(tokens.values, first + constant(j, dtype="int64"), 0) for j in range(k)]
        values.append(parts[0] if k == 1 else gen_ops.string_join(parts, separator=" "))
        rows.append(row)
        cols.append(gen_ops.gather_v2(offset, row, 0) + first - gen_ops.gather_v2(starts, row, 0))
        offset = offset + gen_ops.maximum(lengths - k_t + one, gen_ops.zeros_like(lengths))
    return Tokens(gen_ops.concat_v2(values, 0), gen_ops.concat_v2(rows, 0), gen_ops.concat_v2(cols, 0),
                  tokens.nrows)


def _function_config(fn):
    return {"module": getattr(fn, "__module__", None), "class_name": "function", "config": fn.__name__,
            "registered_name": serialization.get_registered_name(fn)}


@serialization.register("layers")
class TextVectorization(Layer):
    """Strings to token indices ("int", padded with 0 to ``output_sequence_length`` or the longest
    text) or to "multi_hot" / "count" / "tf_idf" vectors over a vocabulary that is given or learned
    by `adapt`: ``standardize`` ("lower_and_strip_punctuation", "lower", "strip_punctuation",
    None or a callable), ``split`` ("whitespace", "character", None or a callable returning
    `tx.strings.SparseStrings`), ``ngrams`` (an int n for 1..n, or a tuple of widths). Index 0 is
    padding ("") and 1 the OOV token, as in Keras.

    >>> tv = tx.keras.layers.TextVectorization(vocabulary=["the", "cat", "sat"])
    >>> tv(tx.constant(["The cat sat.", "The dog"])).numpy()
    array([[2, 3, 4],
           [2, 1, 0]])
    """

    def __init__(self, max_tokens=None, standardize="lower_and_strip_punctuation", split="whitespace", ngrams=None,
                 output_mode="int", output_sequence_length=None, pad_to_max_tokens=False, vocabulary=None,
                 idf_weights=None, sparse=False, ragged=False, encoding="utf-8", name=None, **kwargs):
        if not (standardize is None or callable(standardize) or standardize in _STANDARDIZE):
            raise ValueError("Invalid value for argument `standardize`. Expected one of %s, None or a callable. "
                             "Received: standardize=%r" % (_STANDARDIZE, standardize))
        if not (split is None or callable(split) or split in _SPLIT):
            raise ValueError("Invalid value for argument `split`. Expected one of %s, None or a callable. Received: "
                             "split=%r" % (_SPLIT, split))
        output_mode = {"binary": "multi_hot", "tf-idf": "tf_idf"}.get(output_mode, output_mode)
        if isinstance(ngrams, list):
            ngrams = tuple(ngrams)
        if not (ngrams is None or isinstance(ngrams, int) or
                isinstance(ngrams, tuple) and all(isinstance(i, int) for i in ngrams)):
            raise ValueError("`ngrams` must be None, an integer, or a tuple of integers. Received: ngrams=%r"
                             % (ngrams,))
        if output_mode == "int" and not (output_sequence_length is None or isinstance(output_sequence_length, int)):
            raise ValueError("`output_sequence_length` must be either None or an integer when `output_mode` is "
                             "'int'. Received: output_sequence_length=%r" % (output_sequence_length,))
        if output_mode != "int" and output_sequence_length is not None:
            raise ValueError("`output_sequence_length` must not be set if `output_mode` is not 'int'. Received "
                             "output_sequence_length=%r." % (output_sequence_length,))
        if ragged:
            raise NotImplementedError("TextVectorization(ragged=True): tx.keras has no RaggedTensor; outputs are "
                                      "padded with 0")
        if ngrams is not None and split is None:
            raise NotImplementedError("TextVectorization(ngrams=..., split=None) is not supported by tx.keras")
        has_input_vocabulary = kwargs.pop("has_input_vocabulary", vocabulary is not None)
        vocabulary_size = kwargs.pop("vocabulary_size", None)
        super().__init__(name=name, **kwargs)
        self._standardize, self._split, self._ngrams_arg = standardize, split, ngrams
        self._ngrams = tuple(range(1, ngrams + 1)) if isinstance(ngrams, int) else ngrams
        self._output_mode, self._output_sequence_length = output_mode, output_sequence_length
        self._encoding, self._ragged = encoding, False
        self.autocast = False
        self._lookup_layer = StringLookup(max_tokens=max_tokens, vocabulary=vocabulary, idf_weights=idf_weights,
                                          pad_to_max_tokens=pad_to_max_tokens, mask_token="", output_mode=output_mode,
                                          sparse=sparse, has_input_vocabulary=has_input_vocabulary,
                                          encoding=encoding, vocabulary_size=vocabulary_size)
        self.built = True

    # ------------------------------------------------------------------ preprocessing
    def _preprocess(self, inputs):
        """Standardized text, split into `Tokens` (a dense string tensor when ``split`` is None)."""
        x = inputs
        if self._standardize in ("lower", "lower_and_strip_punctuation"):
            x = string_ops.lower(x)
        if self._standardize in ("strip_punctuation", "lower_and_strip_punctuation"):
            x = string_ops.regex_replace(x, _PUNCTUATION, "")
        if callable(self._standardize):
            x = self._standardize(x)
        if self._split is None:
            return x
        if x.shape.rank is not None and x.shape.rank > 1:
            if x.shape.as_list()[-1] != 1:
                raise ValueError("When using `TextVectorization` to tokenize strings, the input rank must be 1 or "
                                 "the last shape dimension must be 1. Received: inputs.shape=%s with rank=%d"
                                 % (tuple(x.shape.as_list()), x.shape.rank))
            x = gen_ops.squeeze(x, [-1])
        if x.shape.rank == 0:
            x = gen_ops.reshape(x, [1])
        if self._split == "whitespace":
            tokens = _from_sparse(string_ops.split(x))
        elif self._split == "character":
            tokens = _characters(x)
        else:
            out = self._split(x)
            if not isinstance(out, string_ops.SparseStrings):
                raise TypeError("TextVectorization: a callable `split` must return a tx.strings.SparseStrings (as "
                                "tx.strings.split does for a vector), got %r" % (type(out).__name__,))
            tokens = _from_sparse(out)
        if self._ngrams is not None:
            tokens = ngrams(tokens, self._ngrams)
        return tokens

    def call(self, inputs):
        pieces = self._preprocess(inputs)
        lookup = self._lookup_layer
        if not isinstance(pieces, Tokens):
            out = lookup(pieces)
            if self._output_mode == "int" and self._output_sequence_length is not None:
                length = self._output_sequence_length
                out = out[..., :length]
                pad = constant(length, dtype="int64") - _i64(gen_ops.shape(out))[-1]
                last = gen_ops.reshape(array_ops.stack([constant(0, dtype="int64"), pad]), [1, 2])
                zeros = [constant([[0, 0]] * (out.shape.rank - 1), dtype="int64")] if out.shape.rank > 1 else []
                paddings = gen_ops.concat_v2(zeros + [last], 0) if zeros else last
                out = gen_ops.pad(out, paddings)
            return out
        lookup._called = lookup._tokens is not None
        ids = lookup.lookup(pieces.values)
        if self._output_mode != "int":
            return lookup.encode(ids, rows=pieces.rows, nrows=pieces.nrows)
        cols, rows = pieces.cols, pieces.rows
        if self._output_sequence_length is not None:
            width = constant(self._output_sequence_length, dtype="int64")
            keep = gen_ops.less(cols, width)
            cols, rows, ids = boolean_mask(cols, keep), boolean_mask(rows, keep), boolean_mask(ids, keep)
        else:
            width = reduce_ops.reduce_max(gen_ops.concat_v2([cols + constant(1, dtype="int64"),
                                                             constant([0], dtype="int64")], 0))
        out = gen_ops.scatter_nd(array_ops.stack([rows, cols], axis=1), ids, array_ops.stack([pieces.nrows, width]))
        if self._output_sequence_length is not None:
            out = gen_ops.reshape(out, [-1, self._output_sequence_length])
        if inputs.shape.rank == 0:
            out = gen_ops.squeeze(out, [0])
        return out

    # ------------------------------------------------------------------ vocabulary
    def adapt(self, data, batch_size=None, steps=None):
        """Learns the vocabulary (and idf weights) from the standardized, split text of ``data``
        (an array or tensor of strings, or an iterable of batches), as Keras does."""
        lookup = self._lookup_layer
        if lookup._has_input_vocabulary:
            raise ValueError("Cannot adapt layer '%s' after setting a static vocabulary via `vocabulary` argument "
                             "or `set_vocabulary()` method." % self.name)
        counts, docs, n_docs = collections.Counter(), collections.Counter(), 0
        with _context.init_scope():
            for array, whole in raw_batches(data, steps):
                if whole and array.ndim == 1:
                    array = array[:, None]
                rows = self._documents(self._preprocess(constant(array.astype(object))))
                for row in rows:
                    counts.update(row)
                    docs.update(set(row))
                n_docs += len(rows)
        lookup.finalize_counts(counts, docs, n_docs)

    @staticmethod
    def _documents(pieces):
        def decode(v):
            return v.decode("utf-8") if isinstance(v, bytes) else str(v)
        if not isinstance(pieces, Tokens):
            array = np.asarray(pieces.numpy(), dtype=object)
            return [[decode(v) for v in r] for r in array.reshape(array.shape[0] if array.ndim else 1, -1)]
        rows = [[] for _ in range(int(pieces.nrows.numpy()))]
        for v, r in zip(pieces.values.numpy().tolist(), pieces.rows.numpy().tolist()):
            rows[r].append(decode(v))
        return rows

    def set_vocabulary(self, vocabulary, idf_weights=None):
        """Sets the vocabulary (and, for "tf_idf", the idf weights), as StringLookup does."""
        self._lookup_layer.set_vocabulary(vocabulary, idf_weights=idf_weights)

    def get_vocabulary(self, include_special_tokens=True):
        """The vocabulary in index order ("" and "[UNK]" first in "int" mode)."""
        return self._lookup_layer.get_vocabulary(include_special_tokens)

    def vocabulary_size(self):
        """The number of indices, special tokens included."""
        return self._lookup_layer.vocabulary_size()

    # ------------------------------------------------------------------ saving
    def get_config(self):
        lookup = self._lookup_layer
        lookup_config = lookup.get_config()
        return base_config(self, {
            "max_tokens": lookup.max_tokens,
            "standardize": _function_config(self._standardize) if callable(self._standardize) else self._standardize,
            "split": _function_config(self._split) if callable(self._split) else self._split,
            "ngrams": self._ngrams_arg,
            "output_mode": self._output_mode, "output_sequence_length": self._output_sequence_length,
            "pad_to_max_tokens": lookup.pad_to_max_tokens, "sparse": False, "ragged": False,
            "vocabulary": lookup_config["vocabulary"], "idf_weights": lookup_config["idf_weights"],
            "encoding": self._encoding, "vocabulary_size": self.vocabulary_size()})

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        for key in ("standardize", "split"):
            if isinstance(config.get(key), dict):
                spec = config[key]
                config[key] = serialization.lookup("functions", spec.get("config"), spec.get("registered_name"),
                                                   custom_objects)
        return cls(**config)

    def save_own_variables(self, store):
        self._lookup_layer.save_own_variables(store)

    def load_own_variables(self, store):
        self._lookup_layer.load_own_variables(store)

    def save_assets(self):
        return self._lookup_layer.save_assets()

    def load_assets(self, files):
        self._lookup_layer.load_assets(files)
