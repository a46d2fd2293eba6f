// Array ops that cut or join tensors: Slice, StridedSlice, ConcatV2, Split, SplitV, Pack, Unpack
// (signatures identical to TensorFlow's; shape logic shared with the kernels in array_util).
#include <cstdint>

#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"
#include "tensorflux/ops/array_util.h"

namespace tx {
namespace {

// Reads constant input `i` as integers into *v; false (and OK) when it is not constant.
Status ConstInts(InferenceContext* c, int i, const char* what, std::vector<int64_t>* v, bool* known) {
  *known = false;
  const Tensor* t = c->input_tensor(i);
  if (t == nullptr) return Status::OK();
  TX_RETURN_IF_ERROR(array_util::ReadInts(*t, what, v));
  *known = true;
  return Status::OK();
}

Status SliceShape(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  for (int i = 1; i <= 2; ++i)
    if (c->input(i).known_rank() && c->input(i).rank() != 1)
      return InvalidArgument("Slice's ", i == 1 ? "begin" : "size", " must be 1-D, got shape ", c->input(i).ToString());
  std::vector<int64_t> begin, size;
  bool kb, ks;
  TX_RETURN_IF_ERROR(ConstInts(c, 1, "begin", &begin, &kb));
  TX_RETURN_IF_ERROR(ConstInts(c, 2, "size", &size, &ks));
  int rank = in.rank();
  if (rank < 0 && c->input(1).known_rank() && c->input(1).dim(0) >= 0) rank = static_cast<int>(c->input(1).dim(0));
  if (rank < 0) {
    c->set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  for (int i = 1; i <= 2; ++i)
    if (c->input(i).known_rank() && c->input(i).dim(0) >= 0 && c->input(i).dim(0) != rank)
      return InvalidArgument("Expected Slice's ", i == 1 ? "begin" : "size", " to have ", rank,
                             " entries (the input's rank), got ", c->input(i).dim(0));
  if (!kb || !ks || !in.known_rank()) {
    std::vector<int64_t> dims(rank, -1);
    if (ks && static_cast<int>(size.size()) == rank)
      for (int d = 0; d < rank; ++d) dims[d] = size[d] >= 0 ? size[d] : -1;
    c->set_output(0, PartialShape(dims));
    return Status::OK();
  }
  std::vector<int64_t> dims;
  TX_RETURN_IF_ERROR(array_util::ResolveSlice(in, begin, size, &dims));
  c->set_output(0, PartialShape(dims));
  return Status::OK();
}

Status StridedSliceShape(InferenceContext* c) {
  for (int i = 1; i <= 3; ++i)
    if (c->input(i).known_rank() && c->input(i).rank() != 1)
      return InvalidArgument("StridedSlice's begin, end and strides must be 1-D, got shape ", c->input(i).ToString());
  std::vector<int64_t> b, e, s;
  bool kb, ke, ks;
  TX_RETURN_IF_ERROR(ConstInts(c, 1, "begin", &b, &kb));
  TX_RETURN_IF_ERROR(ConstInts(c, 2, "end", &e, &ke));
  TX_RETURN_IF_ERROR(ConstInts(c, 3, "strides", &s, &ks));
  int64_t bm, em, elm, nam, sam;
  TX_RETURN_IF_ERROR(c->GetAttr("begin_mask", &bm));
  TX_RETURN_IF_ERROR(c->GetAttr("end_mask", &em));
  TX_RETURN_IF_ERROR(c->GetAttr("ellipsis_mask", &elm));
  TX_RETURN_IF_ERROR(c->GetAttr("new_axis_mask", &nam));
  TX_RETURN_IF_ERROR(c->GetAttr("shrink_axis_mask", &sam));
  if (ks)
    for (size_t i = 0; i < s.size(); ++i)
      if (s[i] == 0) return InvalidArgument("strides[", i, "] must be non-zero");
  if (!ks || !c->input(0).known_rank()) {
    c->set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  array_util::StridedSliceInfo info;
  if (kb && ke) {
    TX_RETURN_IF_ERROR(array_util::ResolveStridedSlice(c->input(0), b, e, s, bm, em, elm, nam, sam, &info));
    c->set_output(0, PartialShape(info.final_dims));
    return Status::OK();
  }
  // Unknown begin/end: ranged dims become unknown, the rest (and the rank) stay known. Shrunk
  // indices are checked at run time.
  const std::vector<int64_t> zeros(s.size(), 0);
  if (!array_util::ResolveStridedSlice(c->input(0), zeros, zeros, s, bm, em, elm, nam, 0, &info).ok()) {
    c->set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  // Map entries to output dims: with shrink_axis_mask cleared above, every entry but an
  // ellipsis or a new axis resolved to exactly one dim.
  std::vector<int64_t> dims;
  size_t k = 0;
  const int rank = c->input(0).rank();
  int real = 0;
  for (size_t i = 0; i < s.size(); ++i)
    if (!(((static_cast<uint64_t>(elm) >> i) & 1) || ((static_cast<uint64_t>(nam) >> i) & 1))) ++real;
  for (size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<uint64_t>(elm) >> i) & 1) {
      for (int j = 0; j < rank - real; ++j) dims.push_back(info.final_dims[k++]);
    } else if ((static_cast<uint64_t>(nam) >> i) & 1) {
      dims.push_back(info.final_dims[k++]);
    } else if ((static_cast<uint64_t>(sam) >> i) & 1) {
      ++k;  // resolved as a range above; an index drops the dim
    } else {
      dims.push_back(-1);
      ++k;
    }
  }
  while (k < info.final_dims.size()) dims.push_back(info.final_dims[k++]);
  c->set_output(0, PartialShape(dims));
  return Status::OK();
}

Status ConcatShape(InferenceContext* c) {
  const int n = c->num_inputs() - 1;
  const PartialShape& axis_shape = c->input(n);
  if (axis_shape.known_rank() && axis_shape.rank() != 0)
    return InvalidArgument("ConcatV2's axis must be a scalar, got shape ", axis_shape.ToString());
  int rank = -1;
  for (int i = 0; i < n; ++i) {
    const PartialShape& s = c->input(i);
    if (!s.known_rank()) continue;
    if (rank >= 0 && s.rank() != rank)
      return InvalidArgument("ConcatV2 inputs must have the same rank: input 0 has rank ", rank, " but input ", i,
                             " has shape ", s.ToString());
    rank = s.rank();
  }
  if (rank == 0) return InvalidArgument("ConcatV2 cannot concatenate scalars (use Pack)");
  const Tensor* axis_t = c->input_tensor(n);
  if (rank < 0 || axis_t == nullptr) {
    c->set_output(0, rank < 0 ? PartialShape::Unknown() : PartialShape::UnknownDims(rank));
    return Status::OK();
  }
  int64_t axis64;
  TX_RETURN_IF_ERROR(array_util::ReadScalarInt(*axis_t, "axis", &axis64));
  int axis;
  TX_RETURN_IF_ERROR(array_util::CanonicalAxis(axis64, rank, "ConcatV2 axis", &axis));
  std::vector<int64_t> dims(rank, -1);
  int64_t total = 0;
  for (int i = 0; i < n; ++i) {
    const PartialShape& s = c->input(i);
    if (!s.known_rank()) {
      total = -1;
      continue;
    }
    for (int d = 0; d < rank; ++d) {
      if (d == axis) continue;
      if (s.dim(d) >= 0 && dims[d] >= 0 && s.dim(d) != dims[d])
        return InvalidArgument("ConcatV2 inputs must match in every dimension but the axis ", axis, ": input ", i,
                               " has shape ", s.ToString(), ", dimension ", d, " differs (", s.dim(d), " vs ", dims[d],
                               ")");
      if (s.dim(d) >= 0) dims[d] = s.dim(d);
    }
    if (total >= 0) total = s.dim(axis) >= 0 ? total + s.dim(axis) : -1;
  }
  dims[axis] = total;
  c->set_output(0, PartialShape(dims));
  return Status::OK();
}

Status PackShape(InferenceContext* c) {
  PartialShape merged;
  for (int i = 0; i < c->num_inputs(); ++i) {
    Status s = merged.Merge(c->input(i), &merged);
    if (!s.ok())
      return InvalidArgument("Pack's inputs must all have the same shape: input 0 has shape ", c->input(0).ToString(),
                             " but input ", i, " has shape ", c->input(i).ToString());
  }
  if (!merged.known_rank()) {
    c->set_output(0, merged);
    return Status::OK();
  }
  int64_t axis64;
  TX_RETURN_IF_ERROR(c->GetAttr("axis", &axis64));
  int axis;
  TX_RETURN_IF_ERROR(array_util::CanonicalAxis(axis64, merged.rank() + 1, "Pack axis", &axis));
  std::vector<int64_t> dims = merged.dims();
  dims.insert(dims.begin() + axis, c->num_inputs());
  c->set_output(0, PartialShape(dims));
  return Status::OK();
}

Status UnpackShape(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  int64_t num, axis64;
  TX_RETURN_IF_ERROR(c->GetAttr("num", &num));
  TX_RETURN_IF_ERROR(c->GetAttr("axis", &axis64));
  if (!in.known_rank()) {
    for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, PartialShape::Unknown());
    return Status::OK();
  }
  int axis;
  TX_RETURN_IF_ERROR(array_util::CanonicalAxis(axis64, in.rank(), "Unpack axis", &axis));
  if (in.dim(axis) >= 0 && in.dim(axis) != num)
    return InvalidArgument("Unpack's num is ", num, " but dimension ", axis, " of the input (shape ", in.ToString(),
                           ") has size ", in.dim(axis));
  std::vector<int64_t> dims = in.dims();
  dims.erase(dims.begin() + axis);
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, PartialShape(dims));
  return Status::OK();
}

// Split (split_dim first) and SplitV (value, size_splits, split_dim).
Status SplitShapeImpl(InferenceContext* c, int value_index, int dim_index, int sizes_index) {
  const PartialShape& in = c->input(value_index);
  const int num = c->num_outputs();
  const PartialShape& dim_shape = c->input(dim_index);
  if (dim_shape.known_rank() && dim_shape.rank() != 0)
    return InvalidArgument("split_dim must be a scalar, got shape ", dim_shape.ToString());
  std::vector<int64_t> sizes;
  bool sizes_known = sizes_index < 0;
  if (sizes_index >= 0) {
    const PartialShape& ss = c->input(sizes_index);
    if (ss.known_rank() && ss.rank() != 1) return InvalidArgument("size_splits must be 1-D, got shape ", ss.ToString());
    if (ss.known_rank() && ss.dim(0) >= 0 && ss.dim(0) != num)
      return InvalidArgument("size_splits has ", ss.dim(0), " entries but num_split is ", num);
    TX_RETURN_IF_ERROR(ConstInts(c, sizes_index, "size_splits", &sizes, &sizes_known));
    if (sizes_known && static_cast<int>(sizes.size()) != num)
      return InvalidArgument("size_splits has ", sizes.size(), " entries but num_split is ", num);
  }
  const Tensor* dim_t = c->input_tensor(dim_index);
  if (!in.known_rank() || dim_t == nullptr) {
    for (int i = 0; i < num; ++i)
      c->set_output(i, in.known_rank() ? PartialShape::UnknownDims(in.rank()) : PartialShape::Unknown());
    return Status::OK();
  }
  int64_t axis64;
  TX_RETURN_IF_ERROR(array_util::ReadScalarInt(*dim_t, "split_dim", &axis64));
  int axis;
  TX_RETURN_IF_ERROR(array_util::CanonicalAxis(axis64, in.rank(), "split_dim", &axis));
  const int64_t n = in.dim(axis);
  std::vector<int64_t> dims = in.dims();
  if (sizes_index < 0) {
    if (n >= 0 && n % num != 0)
      return InvalidArgument("Number of ways to split should evenly divide the split dimension, but got split_dim ",
                             axis, " (size = ", n, ") and num_split ", num);
    dims[axis] = n >= 0 ? n / num : -1;
    for (int i = 0; i < num; ++i) c->set_output(i, PartialShape(dims));
    return Status::OK();
  }
  if (sizes_known) TX_RETURN_IF_ERROR(array_util::ResolveSplitSizes(&sizes, n));
  for (int i = 0; i < num; ++i) {
    dims[axis] = sizes_known ? sizes[i] : -1;
    c->set_output(i, PartialShape(dims));
  }
  return Status::OK();
}

Status SplitShape(InferenceContext* c) { return SplitShapeImpl(c, 1, 0, -1); }
Status SplitVShape(InferenceContext* c) { return SplitShapeImpl(c, 0, 2, 1); }

}  // namespace

TX_REGISTER_OP("Slice")
    .Input("input: T")
    .Input("begin: Index")
    .Input("size: Index")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Index: {int32, int64}")
    .SetShapeFn(SliceShape)
    .Summary("Cuts out the block of `size` elements (-1: to the end) starting at `begin`.");

TX_REGISTER_OP("StridedSlice")
    .Input("input: T")
    .Input("begin: Index")
    .Input("end: Index")
    .Input("strides: Index")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Index: {int16, int32, int64}")
    .Attr("begin_mask: int = 0")
    .Attr("end_mask: int = 0")
    .Attr("ellipsis_mask: int = 0")
    .Attr("new_axis_mask: int = 0")
    .Attr("shrink_axis_mask: int = 0")
    .SetShapeFn(StridedSliceShape)
    .Summary("NumPy-style basic indexing: a strided range, an index, a new axis or an ellipsis per entry.");

TX_REGISTER_OP("ConcatV2")
    .Input("values: N * T")
    .Input("axis: Tidx")
    .Output("output: T")
    .Attr("N: int >= 2")
    .Attr("T: type")
    .Attr("Tidx: {int32, int64} = DT_INT32")
    .SetShapeFn(ConcatShape)
    .Summary("Joins tensors of equal rank along an existing axis.");

TX_REGISTER_OP("Split")
    .Input("split_dim: int32")
    .Input("value: T")
    .Output("output: num_split * T")
    .Attr("num_split: int >= 1")
    .Attr("T: type")
    .SetShapeFn(SplitShape)
    .Summary("Cuts a tensor into `num_split` equal pieces along `split_dim`.");

TX_REGISTER_OP("SplitV")
    .Input("value: T")
    .Input("size_splits: Tlen")
    .Input("split_dim: int32")
    .Output("output: num_split * T")
    .Attr("num_split: int >= 1")
    .Attr("T: type")
    .Attr("Tlen: {int8, int32, int64} = DT_INT64")
    .SetShapeFn(SplitVShape)
    .Summary("Cuts a tensor along `split_dim` into pieces of the given sizes (one may be -1).");

TX_REGISTER_OP("Pack")
    .Input("values: N * T")
    .Output("output: T")
    .Attr("N: int >= 1")
    .Attr("T: type")
    .Attr("axis: int = 0")
    .SetShapeFn(PackShape)
    .Summary("Stacks N tensors of one shape along a new axis.");

TX_REGISTER_OP("Unpack")
    .Input("value: T")
    .Output("output: num * T")
    .Attr("num: int >= 0")
    .Attr("T: type")
    .Attr("axis: int = 0")
    .SetShapeFn(UnpackShape)
    .Summary("Splits a tensor into its `num` slices along `axis`, removing that axis.");

}  // namespace tx
