"""Numerical gradient checks for conformance entries.

For a sample, the op's floating outputs are weighted by fixed random arrays w_k, and the
engine's symbolic gradient of L = sum_k <w_k, out_k> (tx.gradients with grad_ys = w) is compared
with central finite differences of L in float64. Complex128 inputs and outputs take TensorFlow's
convention: L = sum_k Re(conj(w_k) out_k) (complex weights), and the gradient of a complex input z
is dL/dRe(z) + i dL/dIm(z), each part checked by differences along that part. Inputs enter
through placeholders with either their full static shape ("static": shape arithmetic folds into
constants) or an unknown shape ("runtime": the gradient graph computes shapes with
Shape/BroadcastGradientArgs ops), so both code paths of every gradient function run.
"""

from __future__ import annotations

import numpy as np

import tensorflux as tx
from tensorflux._src import op_def_library

from conformance import harness

EPS = 1e-6
MAX_COORDS = 24  # coordinates perturbed per input (a random subset of larger inputs)


# Input dtypes the checks differentiate.
_DIFFERENTIABLE = (np.float64, np.complex128)


def is_float64_sample(sample: harness.Sample) -> bool:
    arrays = [np.asarray(v) for v in sample.inputs.values() if not isinstance(v, (list, tuple))]
    for v in sample.inputs.values():
        if isinstance(v, (list, tuple)):
            arrays.extend(np.asarray(x) for x in v)
    floats = [a for a in arrays if a.dtype.kind in "fc"]
    return bool(floats) and all(a.dtype in _DIFFERENTIABLE for a in floats)


def grad_samples(entry: harness.OpEntry) -> list:
    if not entry.grad_by_differences:
        return []
    if entry.grad_samples:
        return list(entry.grad_samples)
    return [s for s in entry.samples if is_float64_sample(s)]


def _grad_inputs(entry: harness.OpEntry, sample: harness.Sample) -> list:
    """(arg name, list index or None) of each input to differentiate."""
    names = entry.grad_inputs
    # With grad_eps, float32 inputs are differentiated too (their step is large enough for float32).
    kinds = (*_DIFFERENTIABLE, np.float32) if entry.grad_eps else _DIFFERENTIABLE
    out = []
    for name, value in sample.inputs.items():
        if names is not None and name not in names:
            continue
        if isinstance(value, (list, tuple)):
            out.extend((name, i) for i, v in enumerate(value) if np.asarray(v).dtype in kinds)
        elif np.asarray(value).dtype in kinds:
            out.append((name, None))
    return out


def _feed(phs, values):
    """Placeholder -> value in the placeholder's dtype (float64 values feed float32 inputs)."""
    return {ph: np.asarray(values[k], ph.dtype.as_numpy_dtype) for k, ph in phs.items()}


def _build(entry, sample, wrt, mode):
    """Builds the op with `wrt` inputs as placeholders; returns (outputs, placeholders)."""
    sig = harness.signatures()[entry.op]
    phs = {}

    def make(name, idx, value):
        arr = np.asarray(value)
        if (name, idx) in wrt:
            ph = tx.placeholder(tx.as_dtype(arr.dtype), shape=arr.shape if mode == "static" else None)
            phs[(name, idx)] = ph
            return ph
        return tx.constant(arr)

    args = []
    for (arg_name, _, _, kind) in sig.inputs:
        value = sample.inputs[arg_name]
        if kind == op_def_library.SINGLE:
            args.append(make(arg_name, None, value))
        else:
            args.append([make(arg_name, i, v) for i, v in enumerate(value)])
    attr_values = [sample.attrs.get(a) for a, _ in sig.attrs]
    out = harness._as_list(op_def_library.apply_op(sig, entry.op, args, attr_values))
    return out, phs


def check(entry: harness.OpEntry, sample: harness.Sample, mode: str) -> None:
    wrt = _grad_inputs(entry, sample)
    eps = entry.grad_eps or EPS
    assert wrt, f"{entry.op}: gradient sample has no float64 input to differentiate ({sample.note})"
    values = {}
    for key in wrt:
        v = np.asarray(sample.inputs[key[0]] if key[1] is None else sample.inputs[key[0]][key[1]])
        values[key] = np.array(v, dtype=np.complex128 if v.dtype.kind == "c" else np.float64)
    rng = np.random.default_rng(1234)
    g = tx.Graph()
    with g.as_default():
        outs, phs = _build(entry, sample, wrt, mode)
        with tx.Session(graph=g) as sess:
            feed = _feed(phs, values)
            forward = sess.run(outs, feed)
            # Float32 outputs of float64 inputs count when the entry sets grad_eps (ops whose
            # outputs are float32 whatever the input type, such as the image resizers).
            kinds = (tx.float64, tx.complex128, tx.float32) if entry.grad_eps else (tx.float64, tx.complex128)
            diff = [i for i, (o, v) in enumerate(zip(outs, forward)) if o.dtype in kinds
                    and (entry.grad_outputs is None or i in entry.grad_outputs)]
            assert diff, f"{entry.op}: no float64 or complex128 output to differentiate"
            weights = {i: rng.standard_normal(np.shape(forward[i])) for i in diff}
            for i in diff:
                if outs[i].dtype == tx.complex128:
                    weights[i] = weights[i] + 1j * rng.standard_normal(np.shape(forward[i]))
            grads = tx.gradients([outs[i] for i in diff], [phs[k] for k in wrt],
                                 grad_ys=[tx.constant(weights[i].astype(outs[i].dtype.as_numpy_dtype)) for i in diff])
            fetch = [gr for gr in grads if gr is not None]
            got = iter(sess.run(fetch, feed)) if fetch else iter(())
            analytic = [np.zeros_like(values[k]) if gr is None else next(got) for k, gr in zip(wrt, grads)]

            def outputs(feed_values):
                return sess.run([outs[i] for i in diff], _feed(phs, feed_values))

            for key, a in zip(wrt, analytic):
                x = values[key]
                assert np.shape(a) == x.shape, f"{entry.op}: gradient of {key} has shape {np.shape(a)}, input {x.shape}"
                flat = np.arange(x.size)
                if x.size > MAX_COORDS:
                    flat = rng.choice(x.size, MAX_COORDS, replace=False)
                # Real inputs move along 1; complex ones along 1 and i (the gradient's real and
                # imaginary parts).
                for direction in ((1.0, 1j) if x.dtype.kind == "c" else (1.0,)):
                    numeric = np.empty(len(flat))
                    for j, idx in enumerate(flat):
                        plus = dict(values)
                        minus = dict(values)
                        xp = x.copy().reshape(-1)
                        xm = x.copy().reshape(-1)
                        xp[idx] += eps * direction
                        xm[idx] -= eps * direction
                        plus[key] = xp.reshape(x.shape)
                        minus[key] = xm.reshape(x.shape)
                        # Differences per element before weighting: large unrelated outputs cancel exactly.
                        numeric[j] = sum(float(np.sum(np.real(np.conj(weights[i]) * (p - m))))
                                         for i, p, m in zip(diff, outputs(plus), outputs(minus))) / (2 * eps)
                    got = np.asarray(a).reshape(-1)[flat]
                    got = np.imag(got) if direction == 1j else np.real(got)
                    part = " (imaginary part)" if direction == 1j else ""
                    np.testing.assert_allclose(np.asarray(got, np.float64), numeric, rtol=entry.grad_rtol,
                                               atol=entry.grad_atol,
                                               err_msg=f"{entry.op} d/d{key}{part} ({sample.note or 'sample'}, {mode})")
