"""Gradient checks for every differentiable op in the conformance table (see gradcheck.py)."""

from __future__ import annotations

import pathlib
import re

import pytest

from tensorflux._src.gradients_impl import gradient_status

from conformance import gradcheck
from conformance.registry import ENTRIES
from conformance.test_conformance import _registered_ops

MAX_SAMPLES = 4  # gradient samples checked per op
# Ops whose registered gradient is an error by design (tested in core/tests/test_gradients.py).
# MaxPoolGrad and FusedBatchNormGradV3: second derivatives not implemented yet (an Unimplemented
# error naming the op, tested in core/tests/test_gradients.py). StackPopV2: second-order gradients
# through a While loop (an Unimplemented error, tested in core/tests/test_control_flow_gradients.py).
# LRNGrad and MaxPool3DGrad: second derivatives not implemented (Unimplemented naming the op,
# tested in core/tests/test_nn_ext.py).
# ResizeArea, AdjustHue, AdjustSaturation and CropAndResizeGradBoxes: no gradient (TensorFlow
# defines none either; Unimplemented naming the op, tested in core/tests/test_image_grad.py).
# The lowered control-flow ops: GraphDef import rebuilds them into While/If, whose gradients are the
# engine's (test_tf1_control_flow.py); a graph still holding one cannot run (test_tf1_control_flow_errors.py).
# SparseSparseMaximum/Minimum, SparseReduceMax(Sparse), SparseReduceSumSparse, SparseSplit, SparseSliceGrad and
# SparseFillEmptyRowsGrad: no gradient (TensorFlow defines none either; Unimplemented naming the op, tested in
# core/tests/test_sparse_grad.py).
GRADIENT_RAISES = {"PreventGradient", "MaxPoolGrad", "FusedBatchNormGradV3", "StackPopV2", "LRNGrad", "MaxPool3DGrad",
                   "ResizeArea", "AdjustHue", "AdjustSaturation", "CropAndResizeGradBoxes",
                   "SparseSparseMaximum", "SparseSparseMinimum", "SparseReduceMax", "SparseReduceMaxSparse",
                   "SparseReduceSumSparse", "SparseSplit", "SparseSliceGrad", "SparseFillEmptyRowsGrad",
                   "Switch", "Merge", "Enter", "Exit", "NextIteration"}


def test_every_op_is_differentiable_or_declared_not():
    undeclared = [op for op in _registered_ops() if gradient_status(op) == -1]
    assert not undeclared, f"ops with neither a gradient nor a not-differentiable declaration: {undeclared}"


def _test_exists(ref: str) -> bool:
    path, _, name = ref.partition("::")
    file = pathlib.Path(__file__).resolve().parent.parent / path
    return file.is_file() and re.search(rf"^def {re.escape(name)}\(", file.read_text(), re.M) is not None


def test_every_differentiable_op_has_a_gradient_check():
    missing = [op for op in _registered_ops() if gradient_status(op) == 1 and op in ENTRIES
               and op not in GRADIENT_RAISES and not gradcheck.grad_samples(ENTRIES[op])
               and not _test_exists(ENTRIES[op].grad_checked_by)]
    assert not missing, f"differentiable ops without float64 gradient samples or a named gradient test: {missing}"


def _cases():
    for op, entry in sorted(ENTRIES.items()):
        if gradient_status(op) != 1 or op in GRADIENT_RAISES:
            continue
        for i, sample in enumerate(gradcheck.grad_samples(entry)[:MAX_SAMPLES]):
            for mode in ("static",) if entry.grad_needs_static_shapes else ("static", "runtime"):
                yield pytest.param(entry, sample, mode, id=f"{op}-{i}-{mode}")


@pytest.mark.parametrize("entry,sample,mode", list(_cases()))
def test_gradient(entry, sample, mode):
    gradcheck.check(entry, sample, mode)
