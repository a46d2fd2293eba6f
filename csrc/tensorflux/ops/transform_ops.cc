// Array ops that rearrange or resize tensors: Transpose, ExpandDims, Squeeze, Tile, BroadcastTo,
// ReverseV2, Pad, PadV2, MirrorPad (signatures identical to TensorFlow's).
#include <cstdint>

#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"
#include "tensorflux/ops/array_util.h"

namespace tx {
namespace {

Status ConstInts(InferenceContext* c, int i, const char* what, std::vector<int64_t>* v, bool* known) {
  *known = false;
  const Tensor* t = c->input_tensor(i);
  if (t == nullptr) return Status::OK();
  TX_RETURN_IF_ERROR(array_util::ReadInts(*t, what, v));
  *known = true;
  return Status::OK();
}

Status Require1D(InferenceContext* c, int i, const char* what) {
  if (c->input(i).known_rank() && c->input(i).rank() != 1)
    return InvalidArgument(what, " must be 1-D, got shape ", c->input(i).ToString());
  return Status::OK();
}

Status TransposeShape(InferenceContext* c) {
  TX_RETURN_IF_ERROR(Require1D(c, 1, "perm"));
  const PartialShape& in = c->input(0);
  int rank = in.rank();
  if (rank < 0 && c->input(1).known_rank() && c->input(1).dim(0) >= 0) rank = static_cast<int>(c->input(1).dim(0));
  std::vector<int64_t> perm;
  bool known;
  TX_RETURN_IF_ERROR(ConstInts(c, 1, "perm", &perm, &known));
  if (known && rank >= 0 && static_cast<int>(perm.size()) != rank)
    return InvalidArgument("transpose expects a vector of size ", rank, " (the input's rank), got perm of size ",
                           perm.size());
  if (rank < 0) {
    c->set_output(0, known ? PartialShape::UnknownDims(static_cast<int>(perm.size())) : PartialShape::Unknown());
    return Status::OK();
  }
  if (!known) {
    c->set_output(0, PartialShape::UnknownDims(rank));
    return Status::OK();
  }
  std::vector<int64_t> dims(rank);
  std::vector<bool> seen(rank, false);
  for (int d = 0; d < rank; ++d) {
    const int64_t p = perm[d];
    if (p < 0 || p >= rank) return InvalidArgument("perm[", d, "] = ", p, " is out of range [0, ", rank, ")");
    if (seen[p]) return InvalidArgument("perm is not a permutation: ", p, " appears twice");
    seen[p] = true;
    dims[d] = in.known_rank() ? in.dim(static_cast<int>(p)) : -1;
  }
  c->set_output(0, PartialShape(dims));
  return Status::OK();
}

Status ExpandDimsShape(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  const PartialShape& ds = c->input(1);
  if (ds.known_rank() && ds.num_elements() >= 0 && ds.num_elements() != 1)
    return InvalidArgument("ExpandDims' dim must hold exactly one value, got shape ", ds.ToString());
  const Tensor* t = c->input_tensor(1);
  if (!in.known_rank() || t == nullptr) {
    c->set_output(0, in.known_rank() ? PartialShape::UnknownDims(in.rank() + 1) : PartialShape::Unknown());
    return Status::OK();
  }
  std::vector<int64_t> v;
  TX_RETURN_IF_ERROR(array_util::ReadInts(*t, "dim", &v));
  if (v.size() != 1) return InvalidArgument("ExpandDims' dim must hold exactly one value, got ", v.size());
  int axis;
  TX_RETURN_IF_ERROR(array_util::CanonicalAxis(v[0], in.rank() + 1, "ExpandDims dim", &axis));
  std::vector<int64_t> dims = in.dims();
  dims.insert(dims.begin() + axis, 1);
  c->set_output(0, PartialShape(dims));
  return Status::OK();
}

Status SqueezeShape(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  std::vector<int64_t> axes;
  TX_RETURN_IF_ERROR(c->GetAttr("squeeze_dims", &axes));
  if (!in.known_rank()) {
    c->set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  const int rank = in.rank();
  std::vector<bool> drop(rank, false);
  for (int64_t a : axes) {
    int axis;
    TX_RETURN_IF_ERROR(array_util::CanonicalAxis(a, rank, "Squeeze dimension", &axis));
    if (in.dim(axis) >= 0 && in.dim(axis) != 1)
      return InvalidArgument("Can not squeeze dim[", axis, "], expected a dimension of 1, got ", in.dim(axis),
                             " (input shape ", in.ToString(), ")");
    drop[axis] = true;
  }
  std::vector<int64_t> dims;
  for (int d = 0; d < rank; ++d) {
    if (axes.empty()) {
      if (in.dim(d) < 0) {  // might be 1: the rank is unknown
        c->set_output(0, PartialShape::Unknown());
        return Status::OK();
      }
      if (in.dim(d) == 1) continue;
    } else if (drop[d]) {
      continue;
    }
    dims.push_back(in.dim(d));
  }
  c->set_output(0, PartialShape(dims));
  return Status::OK();
}

Status TileShape(InferenceContext* c) {
  TX_RETURN_IF_ERROR(Require1D(c, 1, "multiples"));
  const PartialShape& in = c->input(0);
  const PartialShape& ms = c->input(1);
  if (in.known_rank() && ms.known_rank() && ms.dim(0) >= 0 && ms.dim(0) != in.rank())
    return InvalidArgument("Tile's multiples must have ", in.rank(), " entries (the input's rank), got ", ms.dim(0));
  std::vector<int64_t> m;
  bool known;
  TX_RETURN_IF_ERROR(ConstInts(c, 1, "multiples", &m, &known));
  int rank = in.rank() >= 0 ? in.rank() : (known ? static_cast<int>(m.size()) : -1);
  if (rank < 0) {
    c->set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  std::vector<int64_t> dims(rank, -1);
  if (known) {
    if (static_cast<int>(m.size()) != rank)
      return InvalidArgument("Tile's multiples must have ", rank, " entries (the input's rank), got ", m.size());
    for (int d = 0; d < rank; ++d) {
      if (m[d] < 0) return InvalidArgument("Tile's multiples must be non-negative, got multiples[", d, "] = ", m[d]);
      const int64_t n = in.known_rank() ? in.dim(d) : -1;
      if (m[d] == 0)
        dims[d] = 0;
      else if (n >= 0 && __builtin_mul_overflow(n, m[d], &dims[d]))
        return InvalidArgument("Tile's output dimension ", d, " is too large");
    }
  }
  c->set_output(0, PartialShape(dims));
  return Status::OK();
}

Status BroadcastToShape(InferenceContext* c) {
  TX_RETURN_IF_ERROR(Require1D(c, 1, "shape"));
  PartialShape target;
  TX_RETURN_IF_ERROR(c->ShapeFromShapeTensor(1, &target));
  if (!target.known_rank()) {
    c->set_output(0, target);
    return Status::OK();
  }
  TX_RETURN_IF_ERROR(array_util::ResolveBroadcastTo(c->input(0), target.dims()));
  c->set_output(0, target);
  return Status::OK();
}

Status ReverseShape(InferenceContext* c) {
  TX_RETURN_IF_ERROR(Require1D(c, 1, "axis"));
  const PartialShape& in = c->input(0);
  std::vector<int64_t> axes;
  bool known;
  TX_RETURN_IF_ERROR(ConstInts(c, 1, "axis", &axes, &known));
  if (known && in.known_rank()) {
    std::vector<bool> seen(in.rank(), false);
    for (int64_t a : axes) {
      int axis;
      TX_RETURN_IF_ERROR(array_util::CanonicalAxis(a, in.rank(), "ReverseV2 axis", &axis));
      if (seen[axis]) return InvalidArgument("axis ", axis, " specified more than once");
      seen[axis] = true;
    }
  }
  c->set_output(0, in);
  return Status::OK();
}

// Pad, PadV2 (mode 0) and MirrorPad (REFLECT 1 / SYMMETRIC 2).
Status PadShapeImpl(InferenceContext* c, int mode) {
  const PartialShape& in = c->input(0);
  const PartialShape& ps = c->input(1);
  if (ps.known_rank() && (ps.rank() != 2 || (ps.dim(1) >= 0 && ps.dim(1) != 2)))
    return InvalidArgument("paddings must be a matrix with 2 columns, got shape ", ps.ToString());
  if (in.known_rank() && ps.known_rank() && ps.dim(0) >= 0 && ps.dim(0) != in.rank())
    return InvalidArgument("paddings must have ", in.rank(), " rows (the input's rank), got shape ", ps.ToString());
  if (c->num_inputs() > 2 && c->input(2).known_rank() && c->input(2).rank() != 0)
    return InvalidArgument("constant_values must be a scalar, got shape ", c->input(2).ToString());
  std::vector<int64_t> p;
  bool known;
  TX_RETURN_IF_ERROR(ConstInts(c, 1, "paddings", &p, &known));
  int rank = in.rank();
  if (rank < 0 && ps.known_rank() && ps.dim(0) >= 0) rank = static_cast<int>(ps.dim(0));
  if (rank < 0 && known) rank = static_cast<int>(p.size() / 2);
  if (rank < 0) {
    c->set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  if (!known) {
    c->set_output(0, PartialShape::UnknownDims(rank));
    return Status::OK();
  }
  std::vector<int64_t> dims;
  TX_RETURN_IF_ERROR(array_util::ResolvePad(in.known_rank() ? in : PartialShape::UnknownDims(rank), p, mode, &dims));
  c->set_output(0, PartialShape(dims));
  return Status::OK();
}

Status PadShape(InferenceContext* c) { return PadShapeImpl(c, 0); }

Status MirrorPadShape(InferenceContext* c) {
  std::string mode;
  TX_RETURN_IF_ERROR(c->GetAttr("mode", &mode));
  return PadShapeImpl(c, mode == "REFLECT" ? 1 : 2);
}

}  // namespace

TX_REGISTER_OP("Transpose")
    .Input("x: T")
    .Input("perm: Tperm")
    .Output("y: T")
    .Attr("T: type")
    .Attr("Tperm: {int32, int64} = DT_INT32")
    .SetShapeFn(TransposeShape)
    .Summary("Permutes the dimensions: output dimension i is input dimension perm[i].");

TX_REGISTER_OP("ExpandDims")
    .Input("input: T")
    .Input("dim: Tdim")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tdim: {int32, int64} = DT_INT32")
    .SetShapeFn(ExpandDimsShape)
    .Summary("Inserts a dimension of size 1 at index `dim` (negative counts from the end).");

TX_REGISTER_OP("Squeeze")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("squeeze_dims: list(int) >= 0 = []")
    .SetShapeFn(SqueezeShape)
    .Summary("Removes dimensions of size 1 (only those listed in `squeeze_dims` when it is not empty).");

TX_REGISTER_OP("Tile")
    .Input("input: T")
    .Input("multiples: Tmultiples")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tmultiples: {int32, int64} = DT_INT32")
    .SetShapeFn(TileShape)
    .Summary("Repeats the input `multiples[i]` times along each dimension i.");

TX_REGISTER_OP("BroadcastTo")
    .Input("input: T")
    .Input("shape: Tidx")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tidx: {int32, int64} = DT_INT32")
    .SetShapeFn(BroadcastToShape)
    .Summary("Repeats the input to the given shape with NumPy broadcasting rules.");

TX_REGISTER_OP("ReverseV2")
    .Input("tensor: T")
    .Input("axis: Tidx")
    .Output("output: T")
    .Attr("Tidx: {int32, int64} = DT_INT32")
    .Attr(
        "T: {uint8, int8, uint16, int16, int32, uint32, int64, uint64, bool, bfloat16, half, float, double, "
        "complex64, complex128, string}")
    .SetShapeFn(ReverseShape)
    .Summary("Reverses the order of elements along each dimension listed in `axis`.");

TX_REGISTER_OP("Pad")
    .Input("input: T")
    .Input("paddings: Tpaddings")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tpaddings: {int32, int64} = DT_INT32")
    .SetShapeFn(PadShape)
    .Summary("Surrounds the input with zeros: paddings[i] = [before, after] for dimension i.");

TX_REGISTER_OP("PadV2")
    .Input("input: T")
    .Input("paddings: Tpaddings")
    .Input("constant_values: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tpaddings: {int32, int64} = DT_INT32")
    .SetShapeFn(PadShape)
    .Summary("Surrounds the input with a scalar `constant_values`: paddings[i] = [before, after].");

TX_REGISTER_OP("MirrorPad")
    .Input("input: T")
    .Input("paddings: Tpaddings")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tpaddings: {int32, int64} = DT_INT32")
    .Attr("mode: {'REFLECT', 'SYMMETRIC'}")
    .SetShapeFn(MirrorPadShape)
    .Summary("Pads by mirroring the input at its edges (REFLECT excludes the edge, SYMMETRIC repeats it).");

}  // namespace tx
