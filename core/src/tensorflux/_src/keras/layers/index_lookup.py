"""IntegerLookup and StringLookup: Keras's IndexLookup (vocabulary, `adapt`, OOV buckets, the int,
one_hot, multi_hot, count and tf_idf outputs, `invert`) on the engine's ops.

Note [Vocabulary lookup]
TensorFlow's Keras looks tokens up in a hash table op. Here the vocabulary is a constant: each
token's int64 key (the integer itself, or for strings FarmHash's Fingerprint64 folded into
[0, 2^63 - 1) by StringToHashBucketFast) is kept sorted next to the token's index, a token's key is
found by binary search (LowerBound), and a string hit is confirmed by comparing the vocabulary
string itself, so a lookup is exact: a string whose fingerprint happens to equal a vocabulary
entry's still maps to the OOV index. Two vocabulary strings with the same 63-bit key (never seen;
it would take ~3e9 tokens to expect one) are refused when the vocabulary is set. The vocabulary,
like Keras's table, is fixed when a call is traced: set it (or `adapt`) before tracing a model.
"""

import collections

import numpy as np

from tensorflux._src import context as _context
from tensorflux._src import math_ops, reduce_ops
from tensorflux._src.array_ext import searchsorted
from tensorflux._src.constant_op import constant
from tensorflux._src.generated import gen_ops
from tensorflux._src.graph import control_dependencies
from tensorflux._src.keras.layer import Layer
from tensorflux._src.keras.layers.category_encoding import encode_ids, preprocessing_batches
from tensorflux._src.keras.layers.core import base_config
from tensorflux._src.keras.saving import loading_in_safe_mode
from tensorflux._src.check_ops import Assert
from tensorflux._src.boolean_mask import boolean_mask

_KEY_BUCKETS = 2 ** 63 - 1  # StringToHashBucketFast(x, this) is Fingerprint64(x) mod (2^63 - 1)
_MODES = ("int", "one_hot", "multi_hot", "count", "tf_idf")


def string_keys(flat):
    """The int64 lookup key of each string of ``flat`` (Note [Vocabulary lookup])."""
    return gen_ops.string_to_hash_bucket_fast(flat, _KEY_BUCKETS)


def hash_buckets(strings, num_buckets, salt):
    """FarmHash (or, with a ``salt`` pair, keyed SipHash) bucket of each string, as TensorFlow's
    Keras hashes OOV values and the Hashing layer's inputs."""
    if salt is not None:
        return gen_ops.string_to_hash_bucket_strong(strings, num_buckets, key=list(salt))
    return gen_ops.string_to_hash_bucket_fast(strings, num_buckets)


def salt_pair(salt, owner):
    """``salt`` as Keras keeps it: None, or a list of two integers (an int is used for both)."""
    if salt is None:
        return None
    if isinstance(salt, (tuple, list)) and len(salt) == 2:
        return [int(s) for s in salt]
    if isinstance(salt, int) and not isinstance(salt, bool):
        return [salt, salt]
    raise ValueError("The `salt` argument for `%s` can only be a tuple of 2 integers, or a single integer. "
                     "Received: salt=%r." % (owner, salt))


def _shaped_like(out, x):
    """``out`` with the static shape of ``x`` (graph tensors lose it through Reshape/Fill)."""
    if not _context.executing_eagerly() and hasattr(out, "set_shape"):
        out.set_shape(x.shape)
    return out


class IndexLookup(Layer):
    """The shared lookup of IntegerLookup and StringLookup (Note [Vocabulary lookup]); not exported,
    as in Keras."""

    def __init__(self, max_tokens, num_oov_indices, mask_token, oov_token, vocabulary_dtype, vocabulary=None,
                 idf_weights=None, invert=False, output_mode="int", sparse=False, pad_to_max_tokens=False,
                 oov_method="floormod", salt=None, vocabulary_size=None, has_input_vocabulary=None, **kwargs):
        owner = type(self).__name__
        if max_tokens is not None and max_tokens <= 1:
            raise ValueError("If set, `max_tokens` must be greater than 1. Received: max_tokens=%s" % max_tokens)
        if pad_to_max_tokens and max_tokens is None:
            raise ValueError("If pad_to_max_tokens is True, must set `max_tokens`. Received: max_tokens=None")
        if num_oov_indices < 0:
            raise ValueError("`num_oov_indices` must be greater than or equal to 0. Received: num_oov_indices=%s"
                             % num_oov_indices)
        if oov_method not in ("floormod", "farmhash"):
            raise ValueError("Unknown value for `oov_method` of %s: %r (floormod or farmhash)" % (owner, oov_method))
        if salt is not None and vocabulary_dtype != "string" and oov_method != "farmhash":
            raise ValueError("`salt` can only be used when `oov_method='farmhash'`. Received: oov_method=%s"
                             % oov_method)
        output_mode = {"binary": "multi_hot", "tf-idf": "tf_idf"}.get(output_mode, output_mode)
        if output_mode not in _MODES:
            raise ValueError("Unknown value for `output_mode` of %s: %r (one of %s)" % (owner, output_mode,
                                                                                      ", ".join(_MODES)))
        if invert and output_mode != "int":
            raise ValueError("`output_mode` must be `'int'` when `invert` is true. Received: output_mode=%s"
                             % output_mode)
        if sparse:
            raise NotImplementedError("%s(sparse=True): tx.keras has no SparseTensor; the outputs are dense" % owner)
        if idf_weights is not None and output_mode != "tf_idf":
            raise ValueError("`idf_weights` should only be set if `output_mode` is `'tf_idf'`. Received: "
                             "idf_weights=%s and output_mode=%s" % (idf_weights, output_mode))
        kwargs.pop("dtype", None)
        kwargs.pop("trainable", None)
        super().__init__(**kwargs)
        self.autocast = False
        self.max_tokens, self.num_oov_indices = max_tokens, int(num_oov_indices)
        self.mask_token, self.oov_token, self.invert = mask_token, oov_token, invert
        self.output_mode, self.sparse, self.pad_to_max_tokens = output_mode, False, pad_to_max_tokens
        self.vocabulary_dtype, self.oov_method, self.salt = vocabulary_dtype, oov_method, salt_pair(salt, owner)
        self.input_vocabulary = vocabulary if not isinstance(vocabulary, str) else None
        self.input_idf_weights = idf_weights
        self._has_input_vocabulary = (vocabulary is not None) if has_input_vocabulary is None \
            else has_input_vocabulary
        self._frozen_vocab_size = vocabulary_size
        self._tokens, self._idf = None, None
        if output_mode == "tf_idf" and self._has_input_vocabulary and idf_weights is None:
            raise ValueError("When specifying the `vocabulary` argument, in TF-IDF output mode, the `idf_weights` "
                             "argument must also be provided.")
        if vocabulary is not None:
            self.set_vocabulary(vocabulary, idf_weights)
        self.built = True

    # ------------------------------------------------------------------ vocabulary
    def _oov_start(self):
        return 1 if self.mask_token is not None and self.output_mode == "int" else 0

    def _token_start(self):
        return self._oov_start() + self.num_oov_indices

    def _token(self, value):
        if self.vocabulary_dtype == "string":
            return value.decode("utf-8") if isinstance(value, bytes) else str(value)
        return int(value)

    def _read_vocabulary(self, vocabulary):
        if isinstance(vocabulary, str):
            if loading_in_safe_mode():
                raise ValueError("Requested the loading of a vocabulary file outside of the model archive "
                                 "(%s); pass safe_mode=False to the loading function if you trust it." % vocabulary)
            with open(vocabulary, encoding="utf-8") as f:
                return f.read().splitlines()
        if hasattr(vocabulary, "numpy"):
            vocabulary = vocabulary.numpy()
        return [self._token(v) for v in np.asarray(vocabulary, dtype=object).reshape(-1)]

    def set_vocabulary(self, vocabulary, idf_weights=None):
        """Sets the vocabulary (a list, array, tensor or text file with one token per line; the mask
        and OOV tokens may lead it, in Keras's order) and, for "tf_idf", the idf weights."""
        if self.output_mode == "tf_idf" and idf_weights is None:
            raise ValueError("`idf_weights` must be set if output_mode is 'tf_idf'.")
        if self.output_mode != "tf_idf" and idf_weights is not None:
            raise ValueError("`idf_weights` should only be set if output_mode is `'tf_idf'`. Received: "
                             "output_mode=%s and idf_weights=%s" % (self.output_mode, idf_weights))
        vocab = self._read_vocabulary(vocabulary)
        if not vocab:
            raise ValueError("Cannot set an empty vocabulary. Received: vocabulary=%s" % (vocabulary,))
        start = self._token_start()
        specials = [self.mask_token] * self._oov_start() + [self.oov_token] * self.num_oov_indices
        found_specials = vocab[:start] == specials
        tokens = vocab[start:] if found_specials else vocab
        repeated = sorted(v for v, c in collections.Counter(tokens).items() if c > 1)
        if repeated:
            raise ValueError("The passed vocabulary has at least one repeated term. Please uniquify your dataset. "
                             "The repeated terms are: %s" % repeated)
        for name, tok in (("mask", self.mask_token), ("OOV", self.oov_token if self.invert else None)):
            if tok is not None and tok in tokens:
                raise ValueError("Found reserved %s token at unexpected location in `vocabulary`. Either remove all "
                                 "mask and OOV tokens, or include them only at the start of the vocabulary in "
                                 "precisely this order: %s. Received: %s_token=%r" % (name, specials, name.lower(),
                                                                                       tok))
        if self.max_tokens is not None and start + len(tokens) > self.max_tokens:
            raise ValueError("Attempted to set a vocabulary larger than the maximum vocab size. Received vocabulary "
                             "size is %d; `max_tokens` is %d." % (start + len(tokens), self.max_tokens))
        keys = self._keys_of(tokens)
        if len(set(keys.tolist())) != len(keys):
            raise ValueError("Two tokens of the vocabulary of %s have the same 63-bit lookup key (Note [Vocabulary "
                             "lookup]); rename one of them" % self.name)
        self._tokens, self._keys = tokens, keys
        if self.output_mode == "tf_idf":
            self._set_idf(np.asarray(idf_weights.numpy() if hasattr(idf_weights, "numpy") else idf_weights,
                                     np.float32), len(vocab), 0 if found_specials else start)
        self._record_vocabulary_size()

    def _set_idf(self, weights, vocab_len, front):
        if weights.ndim != 1:
            raise ValueError("TF-IDF data must be a 1-index array. Received: idf_weights of shape %s" %
                             (weights.shape,))
        if len(weights) != vocab_len:
            raise ValueError("`idf_weights` must be the same length as vocabulary. len(idf_weights) is %d; "
                             "len(vocabulary) is %d" % (len(weights), vocab_len))
        back = self.max_tokens - front - len(weights) if self.pad_to_max_tokens else 0
        self._idf = np.concatenate([np.full([front], np.average(weights), np.float32), weights,
                                    np.zeros([back], np.float32)]).astype(np.float32)

    def _keys_of(self, tokens):
        if self.vocabulary_dtype != "string":
            return np.asarray(tokens, np.int64).reshape(-1)
        if not tokens:
            return np.zeros([0], np.int64)
        with _context.init_scope():
            return np.asarray(string_keys(constant(np.asarray(tokens, dtype=object))).numpy(), np.int64)

    def _record_vocabulary_size(self):
        size = self.vocabulary_size()
        if self.output_mode not in ("int",) and not self.pad_to_max_tokens and \
                self._frozen_vocab_size is not None and self._frozen_vocab_size != size and self._called:
            raise RuntimeError("When using `output_mode=%s` and `pad_to_max_tokens=False`, the vocabulary size cannot "
                               "be changed after the layer is called. Old vocab size is %d, new vocab size is %d"
                               % (self.output_mode, self._frozen_vocab_size, size))
        self._frozen_vocab_size = size

    _called = False

    def get_vocabulary(self, include_special_tokens=True):
        """The vocabulary in index order (by default with the mask and OOV tokens first, so a
        token's position is its index)."""
        tokens = list(self._tokens or [])
        if not include_special_tokens:
            return tokens
        return [self.mask_token] * self._oov_start() + [self.oov_token] * self.num_oov_indices + tokens

    def vocabulary_size(self):
        """The number of indices: the vocabulary with its mask and OOV tokens."""
        return len(self._tokens or []) + self._token_start()

    # ------------------------------------------------------------------ adapt
    def adapt(self, data, steps=None):
        """Learns the vocabulary from ``data`` (an array, or an iterable of batches): the most
        frequent tokens first (ties: the larger token first), at most ``max_tokens`` with the
        special ones; with "tf_idf", also the idf weights, log(1 + documents / (1 + documents
        holding the token))."""
        if self._has_input_vocabulary:
            raise ValueError("Cannot adapt layer '%s' after setting a static vocabulary via `vocabulary` argument "
                             "or `set_vocabulary()` method." % self.name)
        counts, docs, n_docs = collections.Counter(), collections.Counter(), 0
        for rows in preprocessing_batches(data, steps):
            for row in rows:
                row = [self._token(v) for v in row]
                counts.update(row)
                docs.update(set(row))
            n_docs += len(rows)
        self.finalize_counts(counts, docs, n_docs)

    def finalize_counts(self, counts, docs, n_docs):
        """Sets the vocabulary (and idf weights) from token and document counts (`adapt`)."""
        for special in (self.mask_token, self.oov_token):
            counts.pop(special, None)
        if not counts:
            return
        ordered = sorted(counts.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
        if self.max_tokens:
            ordered = ordered[:self.max_tokens - self._token_start()]
        tokens = [t for t, _ in ordered]
        self._tokens, self._keys = tokens, self._keys_of(tokens)
        if self.output_mode == "tf_idf":
            idf = np.log(1 + n_docs / (1 + np.asarray([docs[t] for t in tokens], np.float64))).astype(np.float32)
            self._idf = None
            self._set_idf(idf, len(idf), self._token_start())
        self._record_vocabulary_size()

    # ------------------------------------------------------------------ call
    def _missing_vocabulary(self):
        """Control dependencies for a call without a vocabulary: none when there is one; eagerly a
        ValueError; in a graph an Assert that fails if the graph runs before the vocabulary is set
        (a functional model is built symbolically first, and a loaded one gets its vocabulary
        after, as Keras's uninitialized table does)."""
        if self._tokens is not None:
            return []
        message = ("%s '%s' has no vocabulary: pass `vocabulary=` or call `adapt()` first (Keras: 'Table not "
                   "initialized')" % (type(self).__name__, self.name))
        if _context.executing_eagerly():
            raise ValueError(message)
        return [Assert(constant(False), [message], name="missing_vocabulary")]

    def call(self, inputs):
        self._called = self._tokens is not None
        x = inputs if self.invert or self.vocabulary_dtype == "string" else math_ops.cast(inputs, "int64")
        if x.shape.rank == 0:
            x = gen_ops.expand_dims(x, -1)
        ids = self.lookup(x)
        if inputs.shape.rank == 0 and self.output_mode == "int":
            ids = gen_ops.squeeze(ids, [-1])
        if self.output_mode == "int":
            return ids
        return self.encode(ids)

    def encode(self, ids, rows=None, nrows=None):
        """The one_hot / multi_hot / count / tf_idf rows of looked-up ``ids`` (dense, or flat with
        their ``rows`` out of ``nrows`` for split text)."""
        depth = self.max_tokens if self.pad_to_max_tokens else self._frozen_vocab_size
        if depth is None:
            raise RuntimeError("When using `output_mode=%s` and `pad_to_max_tokens=False`, you must set the layer's "
                               "vocabulary before calling it. Either pass a `vocabulary` argument to the layer, or "
                               "call `adapt` with some sample data." % self.output_mode)
        mode = "count" if self.output_mode == "tf_idf" else self.output_mode
        out = encode_ids(ids, depth, mode, "int64", rows=rows, nrows=nrows)
        if self.output_mode == "tf_idf":
            idf = self._idf if self._idf is not None else np.zeros([depth], np.float32)
            out = math_ops.cast(out, "float32") * constant(idf)
        return out

    def lookup(self, x):
        """The index of each token of ``x`` (``invert``: the token of each index)."""
        if self.invert:
            return self._invert(x)
        checks = self._missing_vocabulary()
        flat = gen_ops.reshape(x, [-1])
        tokens, keys_np = (self._tokens, self._keys) if self._tokens is not None else ([], np.zeros([0], np.int64))
        n = len(tokens)
        order = np.argsort(keys_np, kind="stable")
        sorted_keys = constant(keys_np[order] if n else np.zeros([1], np.int64))
        keys = string_keys(flat) if self.vocabulary_dtype == "string" else flat
        pos = math_ops.cast(searchsorted(sorted_keys, keys, side="left"), "int64")
        pos = gen_ops.minimum(pos, constant(max(n - 1, 0), dtype="int64"))
        found = gen_ops.equal(gen_ops.gather_v2(sorted_keys, pos, 0), keys)
        if self.vocabulary_dtype == "string" and n:
            words = constant(np.asarray(tokens, dtype=object)[order])
            found = gen_ops.logical_and(found, gen_ops.equal(gen_ops.gather_v2(words, pos, 0), flat))
        if not n:
            found = gen_ops.logical_and(found, constant(False))
        values = constant((order + self._token_start()).astype(np.int64) if n else np.zeros([1], np.int64))
        hits = gen_ops.gather_v2(values, pos, 0)
        ids = gen_ops.select_v2(found, hits, gen_ops.fill(gen_ops.shape(flat), constant(-1, dtype="int64")))
        if self.mask_token is not None:
            masked = gen_ops.equal(flat, constant(self.mask_token, dtype=flat.dtype))
            mask_value = 0 if self.output_mode == "int" else -1  # -1: dropped by the encoding (Keras: int64 max)
            ids = gen_ops.select_v2(masked, gen_ops.fill(gen_ops.shape(flat), constant(mask_value, dtype="int64")),
                                    ids)
        else:
            masked = None
        ids = self._oov(flat, ids, found, masked)
        with control_dependencies(checks):
            return _shaped_like(gen_ops.reshape(ids, gen_ops.shape(x)), x)

    def _oov(self, flat, ids, found, masked):
        miss = gen_ops.logical_not(found)
        if masked is not None:
            miss = gen_ops.logical_and(miss, gen_ops.logical_not(masked))
        if self.num_oov_indices == 0:
            check = Assert(gen_ops.logical_not(reduce_ops.reduce_any(miss)),
                           ["When `num_oov_indices=0` all inputs should be in vocabulary, found OOV values",
                            boolean_mask(flat, miss), "consider setting `num_oov_indices=1`."], summarize=10)
            with control_dependencies([check] if check is not None else []):
                return gen_ops.identity(ids)
        if self.num_oov_indices == 1:
            buckets = gen_ops.fill(gen_ops.shape(flat), constant(self._oov_start(), dtype="int64"))
        elif self.vocabulary_dtype != "string" and self.oov_method == "floormod":
            buckets = gen_ops.floor_mod(flat, constant(self.num_oov_indices, dtype="int64")) + self._oov_start()
        else:
            text = flat if self.vocabulary_dtype == "string" else gen_ops.as_string(flat)
            buckets = hash_buckets(text, self.num_oov_indices, self.salt) + self._oov_start()
        return gen_ops.select_v2(miss, buckets, ids)

    def _invert(self, x):
        checks = self._missing_vocabulary()
        ids = math_ops.cast(x, "int64")
        vocab = self.get_vocabulary()
        size = constant(len(vocab), dtype="int64")
        valid = gen_ops.logical_and(gen_ops.greater_equal(ids, constant(0, dtype="int64")), gen_ops.less(ids, size))
        safe = gen_ops.select_v2(valid, ids, gen_ops.zeros_like(ids))
        table = constant(np.asarray(vocab, dtype=object if self.vocabulary_dtype == "string" else np.int64))
        tokens = gen_ops.gather_v2(table, safe, 0)
        oov = constant(self.oov_token, dtype=table.dtype)
        with control_dependencies(checks):
            return _shaped_like(gen_ops.select_v2(valid, tokens, gen_ops.fill(gen_ops.shape(ids), oov)), x)

    # ------------------------------------------------------------------ saving
    def get_config(self):
        vocab, idf = self.input_vocabulary, self.input_idf_weights
        if vocab is not None:
            vocab = [self._token(t) for t in np.asarray(vocab.numpy() if hasattr(vocab, "numpy") else vocab,
                                                        dtype=object).reshape(-1)]
        return base_config(self, {
            "invert": self.invert, "max_tokens": self.max_tokens, "num_oov_indices": self.num_oov_indices,
            "oov_token": self.oov_token, "mask_token": self.mask_token, "output_mode": self.output_mode,
            "sparse": False, "pad_to_max_tokens": self.pad_to_max_tokens, "vocabulary_dtype": self.vocabulary_dtype,
            "idf_weights": None if idf is None else np.asarray(idf.numpy() if hasattr(idf, "numpy") else idf,
                                                               np.float64).tolist(),
            "vocabulary": vocab, "vocabulary_size": self._frozen_vocab_size,
            "oov_method": self.oov_method, "salt": self.salt})

    def save_own_variables(self, store):
        """Keras's extra saved values: the idf weights of a "tf_idf" layer."""
        if self.output_mode == "tf_idf" and self._idf is not None:
            store["idf_weights"] = self._idf

    def load_own_variables(self, store):
        if self.output_mode == "tf_idf" and "idf_weights" in store:
            self._idf = np.asarray(store["idf_weights"], np.float32)

    def save_assets(self):
        """{file name: text} of the learned vocabulary, as Keras writes it (none when the
        vocabulary is in the config)."""
        if self.input_vocabulary is not None or self._tokens is None:
            return {}
        return {"vocabulary.txt": "\n".join(str(w) for w in self.get_vocabulary())}

    def load_assets(self, files):
        if self.input_vocabulary is not None or "vocabulary.txt" not in files:
            return
        lines = files["vocabulary.txt"].split("\n")
        while lines and lines[-1] == "":
            lines.pop()
        values = [self._token(v) for v in lines]
        idf = self._idf if self.output_mode == "tf_idf" else None
        has = self._has_input_vocabulary
        self._has_input_vocabulary = False
        if idf is not None and len(idf) != len(values):
            idf = idf[:len(values)]
        self.set_vocabulary(values, idf)
        self._has_input_vocabulary = has
