"""Conformance entries: resource variables and the fused optimizer updates.

The generic builder cannot make DT_RESOURCE inputs, so every entry uses the `build` hook: a
resource input is given as a `Var` (initial value, or none for a never-assigned variable),
built as VarHandleOp + AssignVariableOp, and the op under test runs after the assignments
(control dependencies). Ops without outputs are checked through reads of every variable after
them. A `Var` is not an array, so the gradient table does not pick these samples; the gradients
of ReadVariableOp and ResourceGather are checked in test_resource_variables.py. The update
formulas are TensorFlow's; tf.raw_ops cannot take these inputs as constants, so cross_check is
off here and test_resource_variables.py compares the updates with TensorFlow's kernels.
"""

from __future__ import annotations

import dataclasses
from typing import Optional

import numpy as np

import tensorflux as tx
from tensorflux._src import op_def_library
from tensorflux._src.generated import gen_ops

from conformance import harness
from conformance.gen import rand
from conformance.harness import ErrorSample, OpEntry, Sample

FAILED_PRECONDITION = tx.errors.FailedPreconditionError
NOT_FOUND = tx.errors.NotFoundError


@dataclasses.dataclass
class Var:
    """A resource input: a variable holding `value` (None: never assigned)."""

    value: Optional[np.ndarray]
    dtype: type = np.float32
    shape: Optional[tuple] = None  # declared shape; default: value's shape
    # True: the op gets a second handle to the variable declared with an unknown shape, hiding the
    # shape from shape functions (Identity would not: it forwards handle data, as in TensorFlow).
    indirect: bool = False
    unknown_shape: bool = False  # declare an unknown shape (the value's shape may then change)

    def __post_init__(self):
        if self.value is not None:
            self.value = np.asarray(self.value)
            self.dtype = self.value.dtype.type
            if self.shape is None:
                self.shape = self.value.shape


def _variable(spec: Var, name: str):
    """(handle to pass on, initializer op or None, handle of the variable)."""
    shape = tx.TensorShape(None) if spec.unknown_shape else spec.shape
    h = gen_ops.var_handle_op(dtype=tx.as_dtype(spec.dtype), shape=shape, shared_name=name, name=name)
    init = None if spec.value is None else gen_ops.assign_variable_op(h, tx.constant(spec.value), name=name + "_init")
    if not spec.indirect:
        return h, init, h
    hidden = gen_ops.var_handle_op(dtype=tx.as_dtype(spec.dtype), shape=tx.TensorShape(None), shared_name=name,
                                   name=name + "_unshaped")
    return hidden, init, h


def _build(entry_op: str):
    def build(sample: Sample):
        sig = harness.signatures()[entry_op]
        args, inits, variables = [], [], []
        for (arg_name, _, _, _) in sig.inputs:
            value = sample.inputs[arg_name]
            if isinstance(value, Var):
                handle, init, raw = _variable(value, "var_" + arg_name)
                args.append(handle)
                inits += [init] if init is not None else []
                variables.append((raw, value))
            else:
                args.append(tx.constant(np.asarray(value)))
        with tx.control_dependencies(inits):
            out = op_def_library.apply_op(sig, entry_op, args, [sample.attrs.get(a) for a, _ in sig.attrs])
        if not isinstance(out, tx.Operation):
            return harness._as_list(out), {}
        with tx.control_dependencies([out]):
            reads = [gen_ops.read_variable_op(h, dtype=tx.as_dtype(v.dtype)) for h, v in variables]
        return reads, {}
    return build


def _entry(op, samples, ref, errors=(), grad_checked_by=""):
    return OpEntry(op, samples, ref=ref, errors=errors, build=_build(op), cross_check=False,
                   grad_checked_by=grad_checked_by)


_FLOATS = (np.float32, np.float64)
_STORED = (np.float32, np.float64, np.int32, np.int64)
_SHAPES = ((), (5,), (3, 4), (0, 3))


def _value_samples(dtypes, extra=None):
    return [Sample({"resource": Var(rand(s, dt, seed=len(s))), **(extra(s, dt) if extra else {})},
                   {"dtype": tx.as_dtype(dt)}, note=f"{np.dtype(dt).name}{list(s)}")
            for dt in dtypes for s in _SHAPES]


_UNINIT = ErrorSample({"resource": Var(None, shape=(2,))}, {"dtype": tx.float32}, error=FAILED_PRECONDITION,
                      match="uninitialized", when="runtime")


def _uninit(extra=None, **attrs):
    return ErrorSample({"resource": Var(None, shape=(2,)), **(extra or {})}, {"dtype": tx.float32, **attrs},
                       error=FAILED_PRECONDITION, match="uninitialized", when="runtime")


def _delta(s, dt):
    return {"value": rand(s, dt, seed=9)}


VARIABLE_ENTRIES = [
    _entry("ReadVariableOp", _value_samples(_STORED + (np.bool_,)), lambda resource, dtype: resource.value,
           grad_checked_by="test_resource_variables.py::test_read_gradient_sums_over_reads",
           errors=[_uninit(),
                   ErrorSample({"resource": Var(np.ones(2, np.float32), indirect=True)}, {"dtype": tx.int32},
                               match="wrong dtype", when="runtime"),
                   ErrorSample({"resource": Var(np.ones(2, np.float32))}, {"dtype": tx.int32}, match="wrong dtype",
                               when="static")]),
    _entry("AssignVariableOp",
           [Sample({"resource": Var(None, dt, shape=s), "value": rand(s, dt, seed=3)}, note=f"{np.dtype(dt).name}{s}")
            for dt in _STORED for s in _SHAPES]
           + [Sample({"resource": Var(np.zeros((2,), np.float32), shape=(None,)), "value": rand((4,), np.float32)},
                     {"validate_shape": True}, note="partial declared shape"),
              Sample({"resource": Var(np.zeros((2,), np.float32), unknown_shape=True),
                      "value": rand((3, 1), np.float32)}, note="unknown declared shape: the value's shape changes")],
           lambda resource, value, validate_shape=False: value,
           errors=[ErrorSample({"resource": Var(np.ones(2, np.float32), indirect=True), "value": np.ones(2, np.int32)},
                               match="wrong dtype", when="runtime"),
                   ErrorSample({"resource": Var(np.ones(2, np.float32)), "value": np.ones(2, np.int32)},
                               match="wrong dtype", when="static"),
                   ErrorSample({"resource": Var(np.ones(2, np.float32), indirect=True),
                                "value": np.ones(3, np.float32)},
                               {"validate_shape": True}, match="wrong shape", when="runtime"),
                   ErrorSample({"resource": Var(np.ones(2, np.float32), indirect=True),
                                "value": np.ones(3, np.float32)},
                               match="wrong shape", when="runtime",
                               note="the declared shape binds without validate_shape"),
                   ErrorSample({"resource": Var(np.ones(2, np.float32)), "value": np.ones(3, np.float32)},
                               match="cannot assign a value of shape", when="static")]),
]


def _update_errors():
    return [_uninit({"value": np.ones(2, np.float32)}),
            ErrorSample({"resource": Var(np.ones(2, np.float32), indirect=True), "value": np.ones(3, np.float32)},
                        match="shapes must be equal", when="runtime"),
            ErrorSample({"resource": Var(np.ones(2, np.float32)), "value": np.ones(3, np.float32)},
                        match="cannot assign a value of shape", when="static"),
            ErrorSample({"resource": Var(np.ones(2, np.float32), indirect=True), "value": np.ones(2, np.int32)},
                        match="wrong dtype", when="runtime")]


VARIABLE_ENTRIES += [
    _entry("AssignAddVariableOp",
           [Sample({**s.inputs, **_delta(s.inputs["resource"].shape, s.inputs["resource"].dtype)}, note=s.note)
            for s in _value_samples(_STORED)],
           lambda resource, value: resource.value + value, errors=_update_errors()),
    _entry("AssignSubVariableOp",
           [Sample({**s.inputs, **_delta(s.inputs["resource"].shape, s.inputs["resource"].dtype)}, note=s.note)
            for s in _value_samples(_STORED)],
           lambda resource, value: resource.value - value, errors=_update_errors()),
    _entry("VarIsInitializedOp", [Sample({"resource": Var(np.ones(3, np.float32))}, note="assigned"),
                                  Sample({"resource": Var(None, shape=(3,))}, note="never assigned")],
           lambda resource: np.array(resource.value is not None)),
]


def _build_var_handle(sample: Sample):
    """VarHandleOp, assigned `value` and read back; two handles sharing a name share the variable."""
    value = sample.inputs["value"]
    attrs = {k: v for k, v in sample.attrs.items()}
    h = gen_ops.var_handle_op(dtype=tx.as_dtype(value.dtype), shape=value.shape, **attrs)
    init = gen_ops.assign_variable_op(h, tx.constant(value))
    alias = gen_ops.var_handle_op(dtype=tx.as_dtype(value.dtype), shape=value.shape, **attrs)
    with tx.control_dependencies([init]):
        return [gen_ops.read_variable_op(alias if attrs.get("shared_name") else h, dtype=tx.as_dtype(value.dtype))], {}


def _build_destroy(sample: Sample):
    """Assigns, destroys (twice when `twice`), then asks whether the variable is initialized."""
    h = gen_ops.var_handle_op(dtype=tx.float32, shape=[2], shared_name="v")
    init = gen_ops.assign_variable_op(h, tx.constant(np.ones(2, np.float32)))
    with tx.control_dependencies([init]):
        done = gen_ops.destroy_resource_op(h, **sample.attrs)
    if sample.inputs.get("twice"):
        with tx.control_dependencies([done]):
            done = gen_ops.destroy_resource_op(h, **sample.attrs)
    with tx.control_dependencies([done]):
        return [gen_ops.var_is_initialized_op(h)], {}


def _gather_ref(resource, indices, dtype, batch_dims=0):
    params = resource.value
    bd = batch_dims + indices.ndim if batch_dims < 0 else batch_dims
    if bd == 0:
        return np.take(params, indices, axis=0)
    return np.stack([_gather_ref(Var(params[i]), indices[i], dtype, bd - 1) for i in range(params.shape[0])])


def _gather_samples():
    out = []
    for dt in _STORED:
        p = rand((5, 3), dt, seed=2)
        for idx_dt in (np.int32, np.int64):
            out.append(Sample({"resource": Var(p), "indices": np.array([4, 0, 2, 2], idx_dt)},
                              {"dtype": tx.as_dtype(dt)}, note=f"{np.dtype(dt).name} {np.dtype(idx_dt).name}"))
    out += [Sample({"resource": Var(rand((6,), np.float32)), "indices": np.array([[1, 5], [0, 0]], np.int32)},
                   {"dtype": tx.float32}, note="1-D params, 2-D indices"),
            Sample({"resource": Var(rand((4, 2), np.float64)), "indices": np.zeros((0,), np.int32)},
                   {"dtype": tx.float64}, note="no indices"),
            Sample({"resource": Var(rand((2, 4, 3), np.float32)), "indices": np.array([[3, 0], [1, 1]], np.int64)},
                   {"dtype": tx.float32, "batch_dims": 1}, note="batch_dims=1"),
            Sample({"resource": Var(rand((400, 64), np.float32)), "indices": np.arange(399, -1, -3, dtype=np.int32)},
                   {"dtype": tx.float32}, note="wide rows over the pool")]
    return out


VARIABLE_ENTRIES += [
    OpEntry("VarHandleOp",
            [Sample({"value": rand(s, dt, seed=1)}, note=f"{np.dtype(dt).name}{list(s)}") for dt in _STORED
             for s in _SHAPES]
            + [Sample({"value": rand((2,), np.float32)}, {"shared_name": "shared", "container": "c"},
                      note="two handles, one variable")],
            ref=lambda value, **attrs: value, build=_build_var_handle, cross_check=False),
    OpEntry("DestroyResourceOp", [Sample({}, note="destroyed"), Sample({"twice": True}, note="destroyed twice")],
            ref=lambda **kw: np.array(False), build=_build_destroy, cross_check=False,
            errors=[ErrorSample({"twice": True}, {"ignore_lookup_error": False}, error=NOT_FOUND,
                                match="does not exist", when="runtime")]),
    _entry("ResourceGather", _gather_samples(), _gather_ref,
           grad_checked_by="test_resource_variables.py::test_gather_gradient",
           errors=[_uninit({"indices": np.array([0], np.int32)}),
                   ErrorSample({"resource": Var(np.ones((3, 2), np.float32)), "indices": np.array([0, 3], np.int32)},
                               {"dtype": tx.float32}, match=r"indices\[1\] = 3 is not in \[0, 3\)", when="runtime")]),
]


# NumPy references: TensorFlow's update formulas (training_ops.cc), returning every variable.
def _gd_ref(var, alpha, delta, use_locking=False):
    return var.value - alpha * delta


def _momentum_ref(var, accum, lr, grad, momentum, use_locking=False, use_nesterov=False):
    a = accum.value * momentum + grad
    step = grad * lr + a * momentum * lr if use_nesterov else lr * a
    return var.value - step, a


def _adam_ref(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad, use_locking=False,
              use_nesterov=False):
    alpha = lr * np.sqrt(1 - beta2_power) / (1 - beta1_power)
    m1 = m.value + (grad - m.value) * (1 - beta1)
    v1 = v.value + (grad * grad - v.value) * (1 - beta2)
    num = grad * (1 - beta1) + beta1 * m1 if use_nesterov else m1
    return var.value - num * alpha / (np.sqrt(v1) + epsilon), m1, v1


def _rmsprop_ref(var, ms, mom, lr, rho, momentum, epsilon, grad, use_locking=False):
    ms1 = ms.value + (grad * grad - ms.value) * (1 - rho)
    mom1 = mom.value * momentum + lr * grad / np.sqrt(ms1 + epsilon)
    return var.value - mom1, ms1, mom1


def _adagrad_ref(var, accum, lr, epsilon, grad, use_locking=False, update_slots=True):
    a = accum.value + grad * grad if update_slots else accum.value
    return var.value - grad * lr / (np.sqrt(a) + epsilon), a


# Per op: (slot names, scalar name -> value, gradient arg name, bool attr or None).
_APPLY = {
    "ResourceApplyGradientDescent": ((), {"alpha": 0.1}, "delta", None, _gd_ref),
    "ResourceApplyMomentum": (("accum",), {"lr": 0.05, "momentum": 0.9}, "grad", "use_nesterov", _momentum_ref),
    "ResourceApplyAdam": (("m", "v"), {"beta1_power": 0.81, "beta2_power": 0.998, "lr": 0.01, "beta1": 0.9,
                                        "beta2": 0.999, "epsilon": 1e-7}, "grad", "use_nesterov", _adam_ref),
    "ResourceApplyRMSProp": (("ms", "mom"), {"lr": 0.01, "rho": 0.9, "momentum": 0.5, "epsilon": 1e-6}, "grad", None,
                             _rmsprop_ref),
    "ResourceApplyAdagradV2": (("accum",), {"lr": 0.1, "epsilon": 1e-6}, "grad", "update_slots", _adagrad_ref),
}


def _apply_inputs(op, shape, dt, seed=0, **override):
    slots, scalars, grad_name, _, _ = _APPLY[op]
    inputs = {"var": Var(rand(shape, dt, seed=seed))}
    for k, name in enumerate(slots):
        inputs[name] = Var(np.abs(rand(shape, dt, seed=seed + k + 1)) + dt(0.1))
    inputs.update({k: np.array(v, dt) for k, v in scalars.items()})
    inputs[grad_name] = rand(shape, dt, seed=seed + 7)
    inputs.update(override)
    return inputs


def _apply_samples(op):
    flag = _APPLY[op][3]
    out = [Sample(_apply_inputs(op, s, dt), note=f"{np.dtype(dt).name}{list(s)}")
           for dt in _FLOATS for s in ((), (5,), (3, 4), (0,))]
    out.append(Sample(_apply_inputs(op, (300, 200), np.float32), note="large, over the pool", rtol=1e-5))
    if flag:
        out += [Sample(_apply_inputs(op, (3, 4), dt), {flag: not _default_flag(flag)},
                       note=f"{flag} {np.dtype(dt).name}")
                for dt in _FLOATS]
    return out


def _default_flag(flag):
    return flag == "update_slots"


def _apply_errors(op):
    slots, _, grad_name, _, _ = _APPLY[op]
    f32 = np.float32
    errs = [ErrorSample(_apply_inputs(op, (2,), f32, var=Var(None, shape=(2,))), error=FAILED_PRECONDITION,
                        match="uninitialized", when="runtime"),
            ErrorSample(_apply_inputs(op, (2,), f32, **{grad_name: np.ones(3, f32)}),
                        match=f"var and {grad_name} do not have the same shape"),
            ErrorSample(_apply_inputs(op, (2,), f32, var=Var(np.ones(2, f32), indirect=True),
                                      **{grad_name: np.ones(3, f32)}),
                        match=f"var and {grad_name} do not have the same shape", when="runtime"),
            ErrorSample(_apply_inputs(op, (2,), f32, **{list(_APPLY[op][1])[0]: np.ones(2, f32)}),
                        match="scalar|rank 0")]
    if slots:
        errs += [ErrorSample(_apply_inputs(op, (2,), f32, **{slots[0]: Var(np.ones(3, f32))}),
                             match="do not have the same shape", when="static"),
                 ErrorSample(_apply_inputs(op, (2,), f32, **{slots[0]: Var(np.ones(3, f32), indirect=True)}),
                             match=f"var and {slots[0]} do not have the same shape", when="runtime")]
    return errs


APPLY_ENTRIES = [OpEntry(op, _apply_samples(op), ref=spec[4], errors=_apply_errors(op), build=_build(op),
                         cross_check=False, rtol=1e-5, atol=1e-6)
                 for op, spec in _APPLY.items()]

ENTRIES = VARIABLE_ENTRIES + APPLY_ENTRIES
