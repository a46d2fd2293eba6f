"""Runs the conformance table: forward values, static shapes, errors and TensorFlow cross-checks."""

from __future__ import annotations

import numpy as np
import pytest

import tensorflux as tx
from tensorflux._src import lib

from conformance import harness
from conformance.registry import ENTRIES


def _registered_ops() -> list:
    """The built-in ops (plugins that tests in this process loaded are not the table's business)."""
    from tensorflux._src.load_library import loaded_op_names
    from tensorflux.proto import op_def_pb2

    ops = op_def_pb2.OpList.FromString(lib.c.get_all_op_list())
    plugin_ops = loaded_op_names()
    return sorted(op.name for op in ops.op if not op.name.startswith("_") and op.name not in plugin_ops)


def test_every_registered_op_has_an_entry():
    missing = [op for op in _registered_ops() if op not in ENTRIES]
    assert not missing, f"ops without a conformance entry: {missing}"


def test_entries_name_registered_ops():
    unknown = sorted(set(ENTRIES) - set(_registered_ops()))
    assert not unknown, f"entries for ops the engine does not register: {unknown}"


def _cases():
    for op, entry in sorted(ENTRIES.items()):
        for i, sample in enumerate(entry.samples):
            for mode in harness.MODES:
                for device in harness.DEVICES:
                    yield pytest.param(entry, sample, mode, device, id=f"{op}-{i}-{mode}-{device.split(':')[-2]}")


def _error_cases():
    for op, entry in sorted(ENTRIES.items()):
        for i, err in enumerate(entry.errors):
            for mode in harness.MODES:
                if err.when in (mode, "both"):
                    yield pytest.param(entry, err, mode, id=f"{op}-err{i}-{mode}")


def _check_values(entry, sample, values, mode):
    """The entry's check, or the outputs against the NumPy reference within the tolerances."""
    if entry.check is not None:
        entry.check(values, sample)
        return
    expected = harness.reference(entry, sample)
    assert len(values) == len(expected), f"{entry.op}: {len(values)} outputs, reference has {len(expected)}"
    for k, (a, e) in enumerate(zip(values, expected)):
        harness.assert_close(a, e, sample.rtol or entry.rtol, sample.atol or entry.atol,
                             f"{entry.op} output {k} ({sample.note or 'sample'}, {mode})")


@pytest.mark.parametrize("entry,sample,mode,device", list(_cases()))
def test_forward(entry, sample, mode, device):
    values, tensors = harness.run_sample(entry, sample, mode, device)
    if mode == "static":
        for t, v in zip(tensors, values):
            assert t.shape.is_compatible_with(np.shape(v)), (
                f"{entry.op}: static shape {t.shape} does not admit the computed shape {np.shape(v)}")
    _check_values(entry, sample, values, mode)


@pytest.mark.eager
@pytest.mark.parametrize("entry,sample", [
    pytest.param(e, s, id=f"{op}-{i}") for op, e in sorted(ENTRIES.items()) if e.build is None
    for i, s in enumerate(e.samples)])
def test_forward_eager(entry, sample):
    """Every sample again in eager mode: the same kernels, reached through the eager C API."""
    _check_values(entry, sample, harness.run_eager(entry, sample), "eager")


@pytest.mark.parametrize("entry,err,mode", list(_error_cases()))
def test_error(entry, err, mode):
    g = tx.Graph()
    with g.as_default():
        sample = harness.Sample(err.inputs, err.attrs)
        with pytest.raises(err.error, match=err.match) as info:
            tensors, feeds = harness.build_sample(entry, sample, mode)
            with tx.Session(graph=g) as sess:
                sess.run(tensors, feed_dict=feeds)
        if isinstance(info.value, tx.errors.OpError):
            assert info.value.node_name is not None and entry.op in info.value.node_name, (
                f"error does not name the {entry.op} node: {info.value.message}")
        # The graph and a session on it still work.
        ok = tx.constant(2.0) * tx.constant(3.0)
        with tx.Session(graph=g) as sess:
            assert sess.run(ok) == 6.0


@pytest.mark.parametrize("entry,sample", [
    pytest.param(e, s, id=f"{op}-{i}") for op, e in sorted(ENTRIES.items()) if e.cross_check
    for i, s in enumerate(e.samples) if s.cross_check])
def test_matches_tensorflow(entry, sample):
    pytest.importorskip("tensorflow")
    theirs = harness.tf_outputs(entry, sample)
    ours, _ = harness.run_sample(entry, sample, "runtime")
    if entry.cross_check_outputs is not None:
        ours = ours[:entry.cross_check_outputs]
    assert len(ours) == len(theirs)
    for k, (a, b) in enumerate(zip(ours, theirs)):
        harness.assert_close(a, b, sample.rtol or entry.rtol, sample.atol or entry.atol,
                             f"{entry.op} output {k} vs TensorFlow")
