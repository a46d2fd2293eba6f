"""Conformance entries: neural-network ops."""

import numpy as np

from conformance.gen import FLOATS, NUMBERS, rand
from conformance.harness import ErrorSample, OpEntry, Sample


def _bias_add_ref(value, bias, data_format="NHWC"):
    if data_format == "NCHW":
        return value + bias.reshape((1, -1) + (1,) * (value.ndim - 2))
    return value + bias


def _bias_samples():
    out = []
    for dt in NUMBERS:
        out.append(Sample({"value": rand((2, 3), dt, seed=8), "bias": rand((3,), dt, seed=9)}))
        out.append(Sample({"value": rand((2, 4, 5, 3), dt, seed=8), "bias": rand((3,), dt, seed=9)}, note="NHWC"))
        out.append(Sample({"value": rand((2, 3, 4, 5), dt, seed=8), "bias": rand((3,), dt, seed=9)},
                          {"data_format": "NCHW"}, note="NCHW"))
    return out


def _softmax_ref(logits):
    z = logits - logits.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return (e / e.sum(axis=-1, keepdims=True)).astype(logits.dtype)


ENTRIES = [
    OpEntry("BiasAdd", _bias_samples(), ref=_bias_add_ref,
            errors=[ErrorSample({"value": rand((2, 3)), "bias": rand((4,))}, match=r"3.*4|4.*3|[Mm]ust")]),
    OpEntry("Relu", [Sample({"features": rand(s, dt, seed=10)}) for dt in NUMBERS for s in ((), (5,), (3, 4), (0,))],
            ref=lambda features: np.maximum(features, 0).astype(features.dtype)),
    OpEntry("Softmax", [Sample({"logits": rand(s, dt, -20, 20, seed=11)}) for dt in FLOATS
                        for s in ((5,), (3, 7), (2, 3, 4), (1, 1000))],
            ref=_softmax_ref, rtol=1e-5, atol=1e-6,
            errors=[ErrorSample({"logits": rand(())}, match="rank", when="static")]),
]
