"""IntegerLookup and StringLookup: vocabulary lookups of integers and strings (the shared work is
IndexLookup, in index_lookup.py)."""

from tensorflux._src.keras import serialization
from tensorflux._src.keras.layers.index_lookup import IndexLookup


@serialization.register("layers")
class IntegerLookup(IndexLookup):
    """Maps integers to contiguous indices: the ``mask_token`` (when set) to 0, values outside the
    vocabulary to the OOV indices (``num_oov_indices`` of them, by ``value % n`` or, with
    ``oov_method="farmhash"``, by FarmHash), vocabulary entries after those; ``invert=True`` maps
    back. The vocabulary is given or learned by `adapt` (most frequent first); outputs "int",
    "one_hot", "multi_hot", "count" or "tf_idf" as in Keras.

    >>> lookup = tx.keras.layers.IntegerLookup(vocabulary=[12, 36, 1138, 42])
    >>> lookup(tx.constant([[12, 1138, 42], [42, 1000, 36]])).numpy()
    array([[1, 3, 4],
           [4, 0, 2]])
    """

    def __init__(self, max_tokens=None, num_oov_indices=1, mask_token=None, oov_token=-1, vocabulary=None,
                 vocabulary_dtype="int64", idf_weights=None, invert=False, output_mode="int", sparse=False,
                 pad_to_max_tokens=False, oov_method="floormod", salt=None, name=None, **kwargs):
        if vocabulary_dtype != "int64":
            raise ValueError("Only `vocabulary_dtype='int64'` is supported at this time. Received: "
                             "vocabulary_dtype=%s" % vocabulary_dtype)
        super().__init__(max_tokens=max_tokens, num_oov_indices=num_oov_indices,
                         mask_token=None if mask_token is None else int(mask_token),
                         oov_token=None if oov_token is None else int(oov_token), vocabulary=vocabulary,
                         vocabulary_dtype="int64", idf_weights=idf_weights, invert=invert, output_mode=output_mode,
                         sparse=sparse, pad_to_max_tokens=pad_to_max_tokens, oov_method=oov_method, salt=salt,
                         name=name, **kwargs)


@serialization.register("layers")
class StringLookup(IndexLookup):
    """Maps strings to contiguous indices, as IntegerLookup does integers: OOV strings go to the
    OOV indices by FarmHash (keyed SipHash with ``salt``), bucket for bucket as in TensorFlow.

    >>> lookup = tx.keras.layers.StringLookup(vocabulary=["a", "b", "c"])
    >>> lookup(tx.constant([["a", "c"], ["d", "b"]])).numpy()
    array([[1, 3],
           [0, 2]])
    """

    def __init__(self, max_tokens=None, num_oov_indices=1, mask_token=None, oov_token="[UNK]", vocabulary=None,
                 idf_weights=None, invert=False, output_mode="int", pad_to_max_tokens=False, sparse=False,
                 encoding="utf-8", name=None, salt=None, **kwargs):
        if encoding.lower().replace("-", "") != "utf8":
            raise NotImplementedError("StringLookup(encoding=%r): tx.keras keeps vocabularies as UTF-8" % encoding)
        kwargs.pop("vocabulary_dtype", None)
        self.encoding = encoding
        super().__init__(max_tokens=max_tokens, num_oov_indices=num_oov_indices, mask_token=mask_token,
                         oov_token=oov_token, vocabulary=vocabulary, vocabulary_dtype="string",
                         idf_weights=idf_weights, invert=invert, output_mode=output_mode, sparse=sparse,
                         pad_to_max_tokens=pad_to_max_tokens, salt=salt, name=name, **kwargs)

    def get_config(self):
        config = super().get_config()
        del config["vocabulary_dtype"]
        config["encoding"] = self.encoding
        return config
