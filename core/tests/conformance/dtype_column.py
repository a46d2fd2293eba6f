"""The conformance table's dtype column for the ops that existed before it (Note [Dtype column]).

Entries written since set ``OpEntry(dtypes=...)`` themselves; for the older ones the column lives
here, keyed by op name, and registry.py applies it. Each list is what TensorFlow registers on CPU
for the op among half, bfloat16 and the integer types the entry's own samples lack.
"""

import numpy as np

import tensorflux as tx
from conformance import harness
from conformance.gen import rand
from conformance.harness import Sample

F16 = ("float16", "bfloat16")
# The integer types beyond int32/int64 that most samples already cover.
MORE_INTS = ("int8", "int16", "uint8", "uint16", "uint32", "uint64")
SIGNED_SMALL = ("int8", "int16")

_ARITHMETIC = F16 + MORE_INTS
COLUMN = {
    **dict.fromkeys(("AddV2", "Sub", "Mul", "Div", "FloorDiv", "FloorMod", "Maximum", "Minimum", "Equal", "NotEqual",
                     "Less", "LessEqual", "Greater", "GreaterEqual", "AddN", "Square", "Sum", "Mean", "Prod",
                     "ArgMax", "ArgMin", "Cumsum", "Cumprod", "Relu", "Relu6", "ReluGrad", "Relu6Grad", "BiasAdd",
                     "BiasAddGrad"), _ARITHMETIC),
    "Add": F16 + ("int8", "int16", "uint8"),
    "Pow": F16 + SIGNED_SMALL,
    "Neg": F16 + SIGNED_SMALL,
    "Abs": F16 + SIGNED_SMALL,
    "Sign": F16 + SIGNED_SMALL,
    "ClipByValue": F16 + ("int8", "int16", "uint8", "uint16"),
    "MatMul": F16,
    "BatchMatMulV2": F16 + ("int16",),
    **dict.fromkeys(("Max", "Min"), F16 + MORE_INTS),
    **dict.fromkeys(("RealDiv", "SquaredDifference", "Sqrt", "Rsqrt", "Reciprocal", "Exp", "Expm1", "Log", "Log1p",
                     "Sin", "Cos", "Tan", "Tanh", "Sigmoid", "Erf", "Erfc", "Floor", "Ceil", "Round", "IsNan",
                     "IsFinite", "IsInf", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh",
                     "Atan2", "Xlogy", "Xlog1py", "Xdivy", "DivNoNan", "MulNoNan", "Elu", "Selu", "Softplus",
                     "Softsign", "LeakyRelu", "EluGrad", "SeluGrad", "SoftplusGrad", "SoftsignGrad",
                     "LeakyReluGrad", "SigmoidGrad", "TanhGrad", "SqrtGrad", "RsqrtGrad", "ReciprocalGrad",
                     "Softmax", "LogSoftmax", "SoftmaxCrossEntropyWithLogits", "SparseSoftmaxCrossEntropyWithLogits",
                     "Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter", "DepthwiseConv2dNative",
                     "DepthwiseConv2dNativeBackpropInput", "DepthwiseConv2dNativeBackpropFilter",
                     "FusedBatchNormV3", "FusedBatchNormGradV3", "L2Loss", "MaxPool", "AvgPool", "MaxPoolGrad",
                     "AvgPoolGrad", "Conv3D", "Conv3DBackpropInputV2", "Conv3DBackpropFilterV2"), F16),
    **dict.fromkeys(("Lgamma", "Digamma", "BesselI0e", "BesselI1e"), ("float16",)),
    "Cast": F16 + MORE_INTS,
    "RealDiv": F16 + ("uint8",),
    # Ops that move data: every type their kernels are registered for beyond the samples' own.
    **dict.fromkeys(("BatchToSpaceND", "SpaceToBatchND", "DepthToSpace", "SpaceToDepth", "Gather"), F16 + MORE_INTS),
    **dict.fromkeys(("ExpandDims", "Split", "SplitV", "Squeeze"),
                    F16 + ("int8", "int16", "uint16", "uint32", "uint64")),
    **dict.fromkeys(("BroadcastTo", "Pack", "Unpack", "Pad", "PadV2", "Tile"),
                    ("bfloat16", "int8", "int16", "uint16", "uint32", "uint64")),
    **dict.fromkeys(("MirrorPad", "Slice"), F16 + ("int16", "uint16", "uint32", "uint64")),
    "MirrorPadGrad": ("int16", "uint8", "uint16", "uint32", "uint64"),
    "ReverseV2": ("bfloat16", "int16", "uint16", "uint32", "uint64"),
    "ConcatV2": ("bfloat16", "int8", "uint16", "uint32", "uint64"),
    "StridedSlice": ("bfloat16", "int8", "uint16", "uint32"),
    **dict.fromkeys(("GatherNd", "GatherV2", "Transpose", "Where"), ("bfloat16",)),
    "SelectV2": F16 + ("uint8",),
    **dict.fromkeys(("LowerBound", "UpperBound", "Roll", "MatrixBandPart", "MatrixDiagPartV3",
                     "MatrixDiagV3", "MatrixSetDiagV3"), ("uint8",)),
    "ScatterNd": ("int16",),
    "OneHot": ("bfloat16",),
    "StridedSliceGrad": ("bfloat16", "int8", "uint16", "uint32", "uint64"),
    **dict.fromkeys(("Unique", "UniqueWithCounts"), ("int8", "int16")),
    "UnsortedSegmentSum": ("uint16", "uint32", "uint64"),
    **dict.fromkeys(("AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp"), F16 + MORE_INTS),
    # Kernels of the string, image and sparse families registered for more types than their samples use.
    "AsString": F16 + ("int8", "int16", "uint16", "uint32", "uint64"),
    "CropAndResizeGradBoxes": ("int8", "int16", "uint16"),
    "ExtractImagePatches": F16 + ("uint32", "uint64"),
    **dict.fromkeys(("SampleDistortedBoundingBoxV2", "StatelessSampleDistortedBoundingBox"), SIGNED_SMALL),
    **dict.fromkeys(("SparseConcat", "SparseFillEmptyRows", "SparseReorder", "SparseSlice", "SparseSplit",
                     "SparseToDense"), ("bfloat16", "int8", "uint16", "uint32", "uint64")),
}

# The type attr whose inputs derived samples convert, where harness.type_attr would pick another.
DTYPE_ATTR = {}

# Where TensorFlow lacks the CPU kernel, so only the NumPy reference checks the dtype.
TF_LACKS = {
    "Relu6Grad": ("int8", "int16", "uint8", "uint16", "uint32", "uint64"),
    "RealDiv": ("uint8",),
    "Tile": ("uint16",),  # TensorFlow's TileOp: "The input data type is not supported, DataType : uint16"
    "Conv3D": ("float16",), "Conv3DBackpropInputV2": ("float16",), "Conv3DBackpropFilterV2": ("float16",),
}

# Outputs compared with TensorFlow (default: all): FusedBatchNormV3's reserve spaces are scratch
# that TensorFlow's 16-bit kernel fills differently (reserve_space_3 has shape [] there, [0] in its
# float32 kernel and here; in inference mode the other two differ too).
TF_OUTPUTS = {"FusedBatchNormV3": (0, 1, 2)}

# Where TensorFlow's 16-bit CPU kernel accumulates in the 16-bit type, so its results drift from
# the float64 reference by more than ours (which accumulate in float32 and pass the reference
# check at the normal tolerance): the cross-check allows 4 units in the last place of the
# largest output instead.
# Samples TensorFlow's 16-bit kernels cannot run: its CPU Conv2D backprops and Conv3D reject
# dilations above 1 for every type but float32/float64.
TF_SKIP = {op: (lambda s: any(d > 1 for d in s.attrs.get("dilations", (1,))))
           for op in ("Conv2DBackpropInput", "Conv2DBackpropFilter", "Conv3D", "Conv3DBackpropInputV2",
                      "Conv3DBackpropFilterV2")}

TF_ACCUMULATES_16BIT = ("Conv2DBackpropInput", "Conv2DBackpropFilter", "DepthwiseConv2dNative",
                        "DepthwiseConv2dNativeBackpropInput", "DepthwiseConv2dNativeBackpropFilter", "Conv3D",
                        "Conv3DBackpropInputV2", "Conv3DBackpropFilterV2", "BiasAddGrad")

# Wider tolerances where a 16-bit output amplifies the rounding of its inputs (long sums, steep maps).
TOLERANCES = {
    "Tan": {"float16": (4e-3, 2e-3), "bfloat16": (3e-2, 2e-2)},
    "Expm1": {"bfloat16": (3e-2, 1e-2)},
}


def _cast_samples(name: str) -> list:
    """Casts from every type into `name` and from `name` into every type (Note [Cast semantics] in
    cast.cc): values representable in both where the target is an integer, IEEE specials and
    rounding ties toward the 16-bit floats."""
    target = tx.as_dtype(name)
    np_target = np.dtype(target.as_numpy_dtype)
    all_types = (tx.float16, tx.bfloat16, tx.float32, tx.float64, tx.int8, tx.int16, tx.int32, tx.int64, tx.uint8,
                 tx.uint16, tx.uint32, tx.uint64, tx.bool)
    out = []
    small = np.array([0, 1, 2, 3, 7, 42, 100, 127], np.int64)
    for src in all_types:
        src_np = np.dtype(src.as_numpy_dtype)
        x = small.astype(src_np) if src != tx.bool else np.array([True, False, True])
        out.append(Sample({"x": x}, {"DstT": target}, note=f"{src.name}->{name}"))
        if src != target:
            y = small.astype(np_target) if target != tx.bool else np.array([True, False])
            out.append(Sample({"x": y}, {"DstT": src}, note=f"{name}->{src.name}"))
    if np_target.kind != "f" and name not in ("float16", "bfloat16"):
        return out
    specials = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -2.5, 65504.0, 65520.0, 1e5, 6e-8, 1e-40,
                         1.0009765625, 1.00048828125, 3.0e38, 1.00390625], np.float64)
    for src in (np.float32, np.float64):
        out.append(Sample({"x": specials.astype(src)}, {"DstT": target}, note=f"specials {np.dtype(src).name}->{name}"))
    return out


def _variable_samples(op: str):
    """make_dtype_samples for the variable-update ops (their resource inputs are `Var`s)."""
    from conformance.entries_resource import Var

    def make(name: str) -> list:
        np_type = harness.numpy_dtype(name)
        base = np.float32 if name in F16 else np.int32
        out = []
        for shape in ((), (5,), (3, 4)):
            start = harness._convert(rand(shape, base, seed=len(shape)), np_type, np_type.kind == "u")
            value = harness._convert(rand(shape, base, seed=9), np_type, np_type.kind == "u")
            var = Var(None, np_type.type, shape=shape) if op == "AssignVariableOp" else Var(start)
            out.append(Sample({"resource": var, "value": value}, note=f"{name}{list(shape)}"))
        return out

    return make


def _real_div_integer_samples(name: str):
    """RealDiv on integers truncates like Div; its own samples are floats only (16-bit floats
    derive from those as usual: None)."""
    if name in F16:
        return None
    np_type = harness.numpy_dtype(name)
    return [Sample({"x": rand(shape, np_type, 0, 200, seed=i), "y": rand(shape, np_type, 1, 9, seed=i + 1)},
                   note=f"{name}{list(shape)}") for i, shape in enumerate(((), (7,), (3, 4)))]


def _integer_image_samples(entry):
    """make_dtype_samples for an image op whose own samples are float32 only (CropAndResizeGradBoxes):
    the images scaled to [-50, 50] (absolute values for unsigned types) and rounded to the integer
    type; the other inputs stay as they are."""
    def make(name: str):
        np_type = harness.numpy_dtype(name)
        out = []
        for s in entry.samples[:harness.MAX_DTYPE_SAMPLES]:
            img = np.asarray(s.inputs["image"], np.float64)
            scaled = np.round(img / max(np.abs(img).max(), 1e-6) * 50)
            inputs = dict(s.inputs, image=harness._convert(scaled, np_type, np_type.kind == "u"))
            out.append(Sample(inputs, dict(s.attrs), note=f"{s.note or 'sample'} as {name}"))
        return out
    return make


def apply(entries: dict) -> None:
    """Sets the dtype column of the entries named in COLUMN (those without one of their own)."""
    for op, names in COLUMN.items():
        entry = entries.get(op)
        if entry is None or entry.dtypes:
            continue
        entry.dtypes = names
        entry.dtype_attr = entry.dtype_attr or DTYPE_ATTR.get(op)
        entry.tf_lacks = TF_LACKS.get(op, ())
        entry.dtype_tf_outputs = TF_OUTPUTS.get(op)
        entry.tf_accumulates_16bit = op in TF_ACCUMULATES_16BIT
        entry.dtype_tf_skip = TF_SKIP.get(op)
        entry.dtype_tolerances = {**TOLERANCES.get(op, {}), **entry.dtype_tolerances}
    for op in ("AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp"):
        if op in entries and entries[op].make_dtype_samples is None:
            entries[op].make_dtype_samples = _variable_samples(op)
    boxes = entries.get("CropAndResizeGradBoxes")
    if boxes is not None and boxes.make_dtype_samples is None:
        boxes.make_dtype_samples = _integer_image_samples(boxes)
    if "RealDiv" in entries and entries["RealDiv"].make_dtype_samples is None:
        entries["RealDiv"].make_dtype_samples = _real_div_integer_samples
    cast = entries.get("Cast")
    if cast is not None and cast.make_dtype_samples is None:
        cast.make_dtype_samples = _cast_samples
