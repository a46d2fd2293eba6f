#!/usr/bin/env python3
"""Lists the CPU kernels TensorFlow registers that Tensorflux lacks, for ops both have and the
dtypes of issue 15 (half, bfloat16 and the narrow and unsigned integers).

    python tools/dtype_kernel_gaps.py             # one line per op: `Op attr=dtype ...`
    python tools/dtype_kernel_gaps.py --all       # every dtype, complex and wide types included

Both registries come as TensorFlow's KernelList protos (TensorFlow's private `kernels` module and
tensorflux's, from TX_GetAllRegisteredKernels). A kernel of ours with no constraint on an attr
takes every value of it. TensorFlow must be installed (it is the oracle).
"""

from __future__ import annotations

import argparse
import collections
import sys

ISSUE_15 = frozenset({"half", "bfloat16", "int8", "int16", "uint8", "uint16", "uint32", "uint64"})


def _cpu_table(kernel_list, type_name):
    """({(op, attr): {dtype names}}, {op: [set of constrained attrs per kernel]}) of CPU kernels."""
    types, constrained = collections.defaultdict(set), collections.defaultdict(list)
    for k in kernel_list.kernel:
        if k.device_type != "CPU":
            continue
        constrained[k.op].append({c.name for c in k.constraint})
        for c in k.constraint:
            types[(k.op, c.name)].update(type_name(t) for t in c.allowed_values.list.type)
    return types, constrained


def gaps(scope=ISSUE_15):
    """{op: ["attr=dtype", ...]} of TensorFlow CPU kernels (dtypes in scope, None for all) we lack."""
    import tensorflux as tx
    from tensorflow.python.framework import dtypes as tf_dtypes
    from tensorflow.python.framework import kernels as tf_kernels
    from tensorflux._src import kernels, lib
    from tensorflux.proto import op_def_pb2

    our_ops = {o.name for o in op_def_pb2.OpList.FromString(lib.c.get_all_op_list()).op}
    theirs, _ = _cpu_table(tf_kernels.get_all_registered_kernels(), lambda t: tf_dtypes.as_dtype(t).name)
    ours, constrained = _cpu_table(kernels.get_all_registered_kernels(), lambda t: tx.as_dtype(t).name)
    out = collections.defaultdict(list)
    for (op, attr), types in sorted(theirs.items()):
        if op not in our_ops or any(attr not in names for names in constrained.get(op, ())):
            continue
        # TensorFlow registers some kernels its own OpDef forbids (MatMul T=int16): not a gap.
        types = types & _allowed_by_op_def(op, attr, tf_dtypes)
        for name in sorted(types if scope is None else types & scope):
            if name not in ours.get((op, attr), ()):
                out[op].append(f"{attr}={name}")
    return dict(out)


def _allowed_by_op_def(op, attr, tf_dtypes):
    """The dtype names TensorFlow's OpDef of `op` allows for its type attr `attr` (all if unrestricted)."""
    from tensorflow.python.framework import op_def_registry
    for a in op_def_registry.get(op).attr:
        if a.name == attr and a.allowed_values.list.type:
            return {tf_dtypes.as_dtype(t).name for t in a.allowed_values.list.type}
    return {tf_dtypes.as_dtype(t).name for t in tf_dtypes.TF_VALUE_DTYPES}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--all", action="store_true", help="every dtype, not only issue 15's")
    args = parser.parse_args(argv)
    found = gaps(None if args.all else ISSUE_15)
    for op, missing in found.items():
        print(op, " ".join(missing))
    print(f"{len(found)} ops lack some of TensorFlow's CPU kernels")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
