"""Hashing: values into ``num_bins`` bins by TensorFlow's FarmHash Fingerprint64 (or keyed SipHash
with a ``salt``), bin for bin as Keras on TensorFlow."""

from tensorflux._src import math_ops
from tensorflux._src.constant_op import constant, convert_to_tensor
from tensorflux._src.generated import gen_ops
from tensorflux._src.keras import serialization
from tensorflux._src.keras.layer import Layer
from tensorflux._src.keras.layers.category_encoding import encode_ids
from tensorflux._src.keras.layers.core import base_config
from tensorflux._src.keras.layers.index_lookup import hash_buckets, salt_pair

_MODES = ("int", "one_hot", "multi_hot", "count")


@serialization.register("layers")
class Hashing(Layer):
    """The bin of each value (strings as they are; integers, and floats cast to int64, by their
    decimal text): ``Fingerprint64(value) % num_bins``, or with ``mask_value`` the mask in bin 0 and
    the others in 1..num_bins-1; "one_hot", "multi_hot" and "count" encode the bins.

    >>> tx.keras.layers.Hashing(num_bins=3)(tx.constant([["A"], ["B"], ["C"], ["D"], ["E"]])).numpy().ravel()
    array([1, 0, 1, 1, 2])
    """

    def __init__(self, num_bins, mask_value=None, salt=None, output_mode="int", sparse=False, **kwargs):
        if kwargs.get("dtype") is None:
            kwargs["dtype"] = "int64" if output_mode == "int" else "float32"
        super().__init__(**kwargs)
        if num_bins is None or num_bins <= 0:
            raise ValueError("The `num_bins` for `Hashing` cannot be `None` or non-positive values. Received: "
                             "num_bins=%s." % num_bins)
        if output_mode not in _MODES:
            raise ValueError("Invalid value for argument `output_mode`. Expected one of %s. Received: "
                             "output_mode=%s" % (_MODES, output_mode))
        if output_mode == "int" and self.dtype not in ("int32", "int64"):
            raise ValueError("When `output_mode=\"int\"`, `dtype` should be an integer type, 'int32' or 'in64'. "
                             "Received: dtype=%s" % self.dtype)
        if sparse:
            raise NotImplementedError("Hashing(sparse=True): tx.keras has no SparseTensor; the outputs are dense")
        self.num_bins, self.mask_value, self.output_mode, self.sparse = num_bins, mask_value, output_mode, False
        self.salt = salt_pair(salt, "Hashing")
        self.strong_hash = self.salt is not None
        self.autocast = False

    def call(self, inputs):
        x = convert_to_tensor(inputs)  # Python strings and numbers too, as in Keras
        if self.output_mode == "one_hot" and x.shape.rank and x.shape.as_list()[-1] == 1:
            x = gen_ops.squeeze(x, [-1])
        bins = self._bins(x)
        if self.output_mode == "int":
            return math_ops.cast(bins, self.dtype)
        return encode_ids(bins, self.num_bins, self.output_mode, self.dtype)

    def _bins(self, values):
        count, mask = self.num_bins, None
        if self.mask_value is not None and count > 1:
            count -= 1
            mask = gen_ops.equal(values, constant(self.mask_value, dtype=values.dtype))
        if values.dtype.is_floating:
            values = math_ops.cast(values, "int64")
        if values.dtype.name != "string":
            values = gen_ops.as_string(values)
        bins = hash_buckets(values, count, self.salt)
        if mask is not None:
            bins = gen_ops.select_v2(mask, gen_ops.zeros_like(bins), bins + constant(1, dtype="int64"))
        return bins

    def get_config(self):
        return base_config(self, {"num_bins": self.num_bins, "salt": self.salt, "mask_value": self.mask_value,
                                  "output_mode": self.output_mode, "sparse": False})
