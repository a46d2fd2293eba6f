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
    rtol, atol = harness.dtype_tolerance(entry, sample)
    for k, (a, e) in enumerate(zip(values, expected)):
        if np.asarray(a).dtype.name in harness.FLOAT16_NAMES and sample.dtype:
            with np.errstate(all="ignore"):
                e = np.asarray(e).astype(np.asarray(a).dtype)  # Note [Dtype column]: round as the kernel did
        harness.assert_close(a, e, rtol, atol, f"{entry.op} output {k} ({sample.note or 'sample'}, {mode})")


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


# The dtype column (Note [Dtype column] in harness.py).
KNOWN_DTYPES = ("float16", "bfloat16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16",
                "uint32", "uint64", "bool", "complex64", "complex128")


def _dtype_cases():
    for op, entry in sorted(ENTRIES.items()):
        for name in entry.dtypes:
            for i, sample in enumerate(harness.dtype_samples(entry, name)):
                yield pytest.param(entry, sample, id=f"{op}-{name}-{i}")


def test_dtype_column_is_well_formed():
    """Every listed dtype is a known name and yields samples to run."""
    for op, entry in sorted(ENTRIES.items()):
        for name in entry.dtypes:
            assert name in KNOWN_DTYPES, f"{op}: unknown dtype {name!r} in its dtype column"
            assert harness.dtype_samples(entry, name), f"{op}: no {name} samples (no float32/int32 samples to derive)"
        assert set(entry.tf_lacks) <= set(entry.dtypes), f"{op}: tf_lacks names dtypes outside its column"


# Dtypes whose kernels must all appear in the table (float32/64 and int32/64 are the samples' own).
CHECKED_KERNEL_DTYPES = {"float16", "bfloat16", "int8", "int16", "uint8", "uint16", "uint32", "uint64"}


def test_every_kernel_of_a_column_dtype_is_tested():
    """Each CPU kernel registered for a 16-bit float or a narrow/unsigned integer type (of the op's
    type attr) runs in the conformance table: in the entry's samples or its dtype column."""
    from tensorflux._src import kernels

    untested = []
    for k in kernels.get_all_registered_kernels().kernel:
        entry = ENTRIES.get(k.op)
        if entry is None or k.device_type != "CPU":
            continue
        attr = harness.type_attr(entry)
        for c in k.constraint:
            if c.name != attr:
                continue
            for t in c.allowed_values.list.type:
                name = tx.as_dtype(t).name
                if name in CHECKED_KERNEL_DTYPES and name not in harness.sample_dtypes(entry) | set(entry.dtypes):
                    untested.append(f"{k.op}:{name}")
    assert not untested, f"kernels outside the dtype table: {sorted(set(untested))}"


@pytest.mark.parametrize("entry,sample", list(_dtype_cases()))
def test_forward_dtype(entry, sample):
    """The dtype column's samples through fed placeholders, against the reference."""
    values, _ = harness.run_sample(entry, sample, "runtime")
    _check_values(entry, sample, values, "runtime")


@pytest.mark.eager
@pytest.mark.parametrize("entry,sample", [p for p in _dtype_cases() if p.values[0].build is None])
def test_forward_dtype_eager(entry, sample):
    """The dtype column's samples eagerly, against the reference."""
    _check_values(entry, sample, harness.run_eager(entry, sample), "eager")


@pytest.mark.parametrize("entry,sample", [
    pytest.param(e, s, id=p.id) for p in _dtype_cases() for e, s in [p.values]
    if e.cross_check and s.cross_check and s.dtype not in e.tf_lacks and not (e.dtype_tf_skip and e.dtype_tf_skip(s))])
def test_dtype_matches_tensorflow(entry, sample):
    pytest.importorskip("tensorflow")
    theirs = harness.tf_outputs(entry, sample)
    ours, _ = harness.run_sample(entry, sample, "runtime")
    if entry.cross_check_outputs is not None:
        ours = ours[:entry.cross_check_outputs]
    assert len(ours) == len(theirs)
    rtol, atol = harness.dtype_tolerance(entry, sample)
    for k, (a, b) in enumerate(zip(ours, theirs)):
        if entry.dtype_tf_outputs is not None and k not in entry.dtype_tf_outputs:
            continue
        if entry.tf_accumulates_16bit and sample.dtype in harness.FLOAT16_NAMES and np.size(b):
            ulp = 2.0 ** (-10 if sample.dtype == "float16" else -7)
            atol = max(atol, 4 * ulp * float(np.max(np.abs(np.asarray(b).astype(np.float64)))))
        harness.assert_close(a, b, 2 * rtol, 2 * atol, f"{entry.op} output {k} ({sample.dtype}) vs TensorFlow")
