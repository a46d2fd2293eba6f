// Gather/scatter and index ops: Gather, GatherV2, GatherNd, ScatterNd, OneHot, Where, TopKV2
// (signatures identical to TensorFlow's).
#include <cstdint>
#include <string>
#include <vector>

#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"

namespace tx {
namespace {

// Reads element i of an int16/int32/int64 constant; false for other dtypes.
bool IntAt(const Tensor& t, int64_t i, int64_t* out) {
  switch (t.dtype()) {
    case DT_INT16: *out = t.data<int16_t>()[i]; return true;
    case DT_INT32: *out = t.data<int32_t>()[i]; return true;
    case DT_INT64: *out = t.data<int64_t>()[i]; return true;
    default: return false;
  }
}

// "[1,2]": the coordinates of flat element `flat` of a tensor of `shape`.
std::string Coords(const TensorShape& shape, int64_t flat) {
  std::vector<int64_t> c(shape.rank());
  for (int d = shape.rank() - 1; d >= 0; --d) {
    const int64_t n = shape.dim(d);
    c[d] = n > 0 ? flat % n : 0;
    flat = n > 0 ? flat / n : 0;
  }
  std::string s = "[";
  for (size_t d = 0; d < c.size(); ++d) s += (d ? "," : "") + std::to_string(c[d]);
  return s + "]";
}

PartialShape Concat(const PartialShape& a, int a_begin, int a_end, const PartialShape& b, int b_begin, int b_end) {
  std::vector<int64_t> d;
  for (int i = a_begin; i < a_end; ++i) d.push_back(a.dim(i));
  for (int i = b_begin; i < b_end; ++i) d.push_back(b.dim(i));
  return PartialShape(std::move(d));
}

// Checks every constant index against [0, limit) when both are known (Note [Static index checks]).
Status CheckConstIndices(const InferenceContext* c, int input, int64_t limit) {
  const Tensor* idx = c->input_tensor(input);
  if (idx == nullptr || limit < 0) return Status::OK();
  for (int64_t i = 0; i < idx->num_elements(); ++i) {
    int64_t v = 0;
    if (!IntAt(*idx, i, &v)) return Status::OK();
    if (v < 0 || v >= limit)
      return InvalidArgument("indices", Coords(idx->shape(), i), " = ", v, " is not in [0, ", limit, ")");
  }
  return Status::OK();
}

// Note [Static index checks]
// When indices are constants and the indexed dimension is statically known, an out-of-range index
// is reported at graph construction with the same message the kernel gives at run time.

Status GatherShape(InferenceContext* c) {
  const PartialShape& params = c->input(0);
  const PartialShape& indices = c->input(1);
  if (params.known_rank() && params.rank() < 1)
    return InvalidArgument("params must be at least 1 dimensional, got shape ", params.ToString());
  if (!params.known_rank() || !indices.known_rank()) {
    c->set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  TX_RETURN_IF_ERROR(CheckConstIndices(c, 1, params.dim(0)));
  c->set_output(0, Concat(indices, 0, indices.rank(), params, 1, params.rank()));
  return Status::OK();
}

Status GatherV2Shape(InferenceContext* c) {
  const PartialShape& params = c->input(0);
  const PartialShape& indices = c->input(1);
  const PartialShape& axis_shape = c->input(2);
  if (axis_shape.known_rank() && axis_shape.rank() != 0)
    return InvalidArgument("axis must be a scalar, got shape ", axis_shape.ToString());
  if (params.known_rank() && params.rank() < 1)
    return InvalidArgument("params must be at least 1 dimensional, got shape ", params.ToString());
  int64_t batch_dims = 0;
  TX_RETURN_IF_ERROR(c->GetAttr("batch_dims", &batch_dims));
  if (indices.known_rank()) {
    const int64_t ir = indices.rank();
    if (batch_dims < -ir || batch_dims > ir)
      return InvalidArgument("Expected batch_dims in the range [", -ir, ", ", ir, "], but got ", batch_dims);
    if (batch_dims < 0) batch_dims += ir;
  } else if (batch_dims < 0) {
    c->set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  if (params.known_rank() && batch_dims >= params.rank())
    return InvalidArgument("batch_dims (", batch_dims, ") must be less than rank(params) (", params.rank(), ")");
  const Tensor* axis_t = c->input_tensor(2);
  int64_t axis = 0;
  if (axis_t == nullptr || !params.known_rank() || !indices.known_rank() || !IntAt(*axis_t, 0, &axis)) {
    if (params.known_rank() && indices.known_rank())
      c->set_output(0, PartialShape::UnknownDims(params.rank() + indices.rank() - 1 - static_cast<int>(batch_dims)));
    else
      c->set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  const int64_t r = params.rank();
  if (axis < -r || axis >= r) return InvalidArgument("Expected axis in the range [", -r, ", ", r, "), but got ", axis);
  if (axis < 0) axis += r;
  if (batch_dims > axis)
    return InvalidArgument("batch_dims (", batch_dims, ") must be less than or equal to axis (", axis, ")");
  std::vector<int64_t> dims;
  for (int i = 0; i < batch_dims; ++i) {
    const int64_t p = params.dim(i), q = indices.dim(i);
    if (p >= 0 && q >= 0 && p != q)
      return InvalidArgument("params.shape[", i, "] = ", p, " must equal indices.shape[", i, "] = ", q,
                             " (batch_dims = ", batch_dims, ")");
    dims.push_back(p >= 0 ? p : q);
  }
  for (int i = static_cast<int>(batch_dims); i < axis; ++i) dims.push_back(params.dim(i));
  for (int i = static_cast<int>(batch_dims); i < indices.rank(); ++i) dims.push_back(indices.dim(i));
  for (int i = static_cast<int>(axis) + 1; i < r; ++i) dims.push_back(params.dim(i));
  TX_RETURN_IF_ERROR(CheckConstIndices(c, 1, params.dim(static_cast<int>(axis))));
  c->set_output(0, PartialShape(std::move(dims)));
  return Status::OK();
}

Status CheckPolicy(InferenceContext* c, bool* ignore) {
  std::string policy;
  TX_RETURN_IF_ERROR(c->GetAttr("bad_indices_policy", &policy));
  if (policy != "" && policy != "DEFAULT" && policy != "ERROR" && policy != "IGNORE")
    return InvalidArgument("bad_indices_policy must be one of '', 'DEFAULT', 'ERROR', 'IGNORE', got '", policy, "'");
  *ignore = policy == "IGNORE";
  return Status::OK();
}

// Checks constant index tuples (rows of the last indices dimension) against `dims`.
Status CheckConstTuples(const InferenceContext* c, int input, const PartialShape& dims, const char* what) {
  const Tensor* idx = c->input_tensor(input);
  if (idx == nullptr || idx->rank() < 1 || !dims.known_rank()) return Status::OK();
  const int64_t n = idx->dim(idx->rank() - 1);
  if (n > dims.rank()) return Status::OK();
  for (int64_t j = 0; j < n; ++j)
    if (dims.dim(static_cast<int>(j)) < 0) return Status::OK();
  const int64_t tuples = n > 0 ? idx->num_elements() / n : 0;
  std::vector<int64_t> outer(idx->shape().dims().begin(), idx->shape().dims().end() - 1);
  for (int64_t t = 0; t < tuples; ++t) {
    bool bad = false;
    std::string vals;
    for (int64_t j = 0; j < n; ++j) {
      int64_t v = 0;
      if (!IntAt(*idx, t * n + j, &v)) return Status::OK();
      vals += (j ? ", " : "") + std::to_string(v);
      if (v < 0 || v >= dims.dim(static_cast<int>(j))) bad = true;
    }
    if (bad)
      return InvalidArgument("indices", Coords(TensorShape(outer), t), " = [", vals, "] does not index into ", what,
                             " ", dims.ToString());
  }
  return Status::OK();
}

Status GatherNdShape(InferenceContext* c) {
  bool ignore = false;
  TX_RETURN_IF_ERROR(CheckPolicy(c, &ignore));
  const PartialShape& params = c->input(0);
  const PartialShape& indices = c->input(1);
  if (indices.known_rank() && indices.rank() < 1)
    return InvalidArgument("indices must be at least 1 dimensional, got shape ", indices.ToString());
  if (!indices.known_rank() || !params.known_rank() || indices.dim(indices.rank() - 1) < 0) {
    c->set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  const int64_t n = indices.dim(indices.rank() - 1);
  if (n > params.rank())
    return InvalidArgument("index innermost dimension length must be <= params rank; saw: ", n, " vs. ", params.rank());
  if (!ignore) TX_RETURN_IF_ERROR(CheckConstTuples(c, 1, params, "param shape"));
  c->set_output(0, Concat(indices, 0, indices.rank() - 1, params, static_cast<int>(n), params.rank()));
  return Status::OK();
}

Status ScatterNdShape(InferenceContext* c) {
  bool ignore = false;
  TX_RETURN_IF_ERROR(CheckPolicy(c, &ignore));
  const PartialShape& indices = c->input(0);
  const PartialShape& updates = c->input(1);
  const PartialShape& shape_in = c->input(2);
  if (shape_in.known_rank() && shape_in.rank() != 1)
    return InvalidArgument("shape must be a vector, got shape ", shape_in.ToString());
  if (indices.known_rank() && indices.rank() < 1)
    return InvalidArgument("indices must be at least 1 dimensional, got shape ", indices.ToString());
  PartialShape out;
  TX_RETURN_IF_ERROR(c->ShapeFromShapeTensor(2, &out));
  if (const Tensor* s = c->input_tensor(2)) {
    for (int64_t i = 0; i < s->num_elements(); ++i) {
      int64_t v = 0;
      if (IntAt(*s, i, &v) && v < 0) return InvalidArgument("shape must be non-negative, got ", out.ToString());
    }
  }
  const int64_t out_count = out.num_elements(), idx_count = indices.num_elements();
  if (out_count == 0 && idx_count > 0)
    return InvalidArgument("Indices and updates specified for empty output shape ", out.ToString());
  if (indices.known_rank() && updates.known_rank() && out.known_rank() && indices.dim(indices.rank() - 1) >= 0) {
    const int64_t n = indices.dim(indices.rank() - 1);
    if (n > out.rank())
      return InvalidArgument("index innermost dimension length must be <= rank of shape; saw: ", n, " vs. ",
                             out.rank());
    PartialShape want = Concat(indices, 0, indices.rank() - 1, out, static_cast<int>(n), out.rank());
    if (!want.IsCompatibleWith(updates))
      return InvalidArgument("updates must have shape indices.shape[:-1] + shape[", n, ":] = ", want.ToString(),
                             ", got ", updates.ToString());
    if (!ignore) TX_RETURN_IF_ERROR(CheckConstTuples(c, 0, out, "shape"));
  }
  c->set_output(0, out);
  return Status::OK();
}

Status OneHotShape(InferenceContext* c) {
  int64_t axis = -1;
  TX_RETURN_IF_ERROR(c->GetAttr("axis", &axis));
  const PartialShape& indices = c->input(0);
  for (int i = 1; i < 4; ++i) {
    const PartialShape& s = c->input(i);
    if (s.known_rank() && s.rank() != 0)
      return InvalidArgument(i == 1       ? "depth"
                                 : i == 2 ? "on_value"
                                          : "off_value",
                             " must be a scalar, got shape ", s.ToString());
  }
  if (axis < -1) return InvalidArgument("Expected axis to be -1 or between [0, rank(indices)], but got ", axis);
  if (!indices.known_rank()) {
    c->set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  if (axis > indices.rank())
    return InvalidArgument("Expected axis to be -1 or between [0, ", indices.rank(), "], but got ", axis);
  int64_t depth = -1;
  if (const Tensor* d = c->input_tensor(1)) {
    if (!IntAt(*d, 0, &depth))
      depth = -1;
    else if (depth < 0)
      return InvalidArgument("depth must be non-negative, got: ", depth);
  }
  std::vector<int64_t> dims = indices.dims();
  dims.insert(dims.begin() + (axis < 0 ? indices.rank() : axis), depth);
  c->set_output(0, PartialShape(std::move(dims)));
  return Status::OK();
}

Status WhereShape(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  c->set_output(0, PartialShape({-1, in.known_rank() ? in.rank() : -1}));
  return Status::OK();
}

Status TopKShape(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  const PartialShape& k_shape = c->input(1);
  if (k_shape.known_rank() && k_shape.rank() != 0)
    return InvalidArgument("k must be a scalar, got shape ", k_shape.ToString());
  if (in.known_rank() && in.rank() < 1)
    return InvalidArgument("input must be at least 1 dimensional, got shape ", in.ToString());
  int64_t k = -1;
  if (const Tensor* kt = c->input_tensor(1)) {
    if (!IntAt(*kt, 0, &k))
      k = -1;
    else if (k < 0)
      return InvalidArgument("Need k >= 0, got ", k);
  }
  if (!in.known_rank()) {
    c->set_output(0, PartialShape::Unknown());
    c->set_output(1, PartialShape::Unknown());
    return Status::OK();
  }
  const int64_t cols = in.dim(in.rank() - 1);
  if (k >= 0 && cols >= 0 && cols < k)
    return InvalidArgument("input must have at least k columns. Had ", cols, ", needed ", k);
  std::vector<int64_t> dims = in.dims();
  dims.back() = k;
  c->set_output(0, PartialShape(dims));
  c->set_output(1, PartialShape(dims));
  return Status::OK();
}

}  // namespace

TX_REGISTER_OP("Gather")
    .Input("params: Tparams")
    .Input("indices: Tindices")
    .Output("output: Tparams")
    .Attr("validate_indices: bool = true")
    .Attr("Tparams: type")
    .Attr("Tindices: {int32, int64}")
    .SetShapeFn(GatherShape)
    .Summary("Picks rows of params along its first axis at the given indices (the older form of GatherV2).");

TX_REGISTER_OP("GatherV2")
    .Input("params: Tparams")
    .Input("indices: Tindices")
    .Input("axis: Taxis")
    .Output("output: Tparams")
    .Attr("batch_dims: int = 0")
    .Attr("Tparams: type")
    .Attr("Tindices: {int16, int32, int64}")
    .Attr("Taxis: {int32, int64}")
    .SetShapeFn(GatherV2Shape)
    .Summary("Picks slices of params along `axis` at the given indices, optionally per batch.");

TX_REGISTER_OP("GatherNd")
    .Input("params: Tparams")
    .Input("indices: Tindices")
    .Output("output: Tparams")
    .Attr("Tparams: type")
    .Attr("Tindices: {int16, int32, int64}")
    .Attr("bad_indices_policy: string = ''")
    .SetShapeFn(GatherNdShape)
    .Summary("Picks the slices of params addressed by the index tuples in the last axis of indices.");

TX_REGISTER_OP("ScatterNd")
    .Input("indices: Tindices")
    .Input("updates: T")
    .Input("shape: Tindices")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tindices: {int16, int32, int64}")
    .Attr("bad_indices_policy: string = ''")
    .SetShapeFn(ScatterNdShape)
    .Summary("Adds updates into a zero tensor of the given shape at the index tuples (duplicates add up).");

TX_REGISTER_OP("OneHot")
    .Input("indices: TI")
    .Input("depth: int32")
    .Input("on_value: T")
    .Input("off_value: T")
    .Output("output: T")
    .Attr("axis: int = -1")
    .Attr("T: type")
    .Attr("TI: {uint8, int8, int32, int64} = DT_INT64")
    .SetShapeFn(OneHotShape)
    .Summary("Expands each index into a vector of `depth` values: on_value at the index, off_value elsewhere.");

TX_REGISTER_OP("Where")
    .Input("input: T")
    .Output("index: int64")
    .Attr(
        "T: {float, double, int32, uint8, int16, int8, complex64, int64, qint8, quint8, qint32, bfloat16, qint16, "
        "quint16, uint16, complex128, half, uint32, uint64, bool} = DT_BOOL")
    .SetShapeFn(WhereShape)
    .Summary("Returns the coordinates of the true (non-zero) elements, one row per element, in row-major order.");

TX_REGISTER_OP("TopKV2")
    .Input("input: T")
    .Input("k: Tk")
    .Output("values: T")
    .Output("indices: index_type")
    .Attr("sorted: bool = true")
    .Attr("T: realnumbertype")
    .Attr("Tk: {int16, int32, int64} = DT_INT32")
    .Attr("index_type: {int16, int32, int64} = DT_INT32")
    .SetShapeFn(TopKShape)
    .Summary("Finds the k largest entries along the last axis and their indices (ties go to the lower index).");

}  // namespace tx
