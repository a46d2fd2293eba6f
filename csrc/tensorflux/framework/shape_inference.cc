#include "tensorflux/framework/shape_inference.h"

#include <algorithm>

namespace tx {

InferenceContext::InferenceContext(const OpDef& def, const AttrMap& attrs, std::vector<PartialShape> input_shapes,
                                   std::vector<const Tensor*> input_tensors, int num_outputs)
    : def_(def),
      attrs_(attrs),
      inputs_(std::move(input_shapes)),
      input_tensors_(std::move(input_tensors)),
      outputs_(num_outputs) {
  input_tensors_.resize(inputs_.size(), nullptr);
}

const AttrValue* InferenceContext::Find(const std::string& name) const {
  auto it = attrs_.find(name);
  return it == attrs_.end() ? nullptr : &it->second;
}

#define TX_ATTR_GETTER(TYPE, KIND, FIELD)                                                 \
  Status InferenceContext::GetAttr(const std::string& name, TYPE* out) const {            \
    const AttrValue* v = Find(name);                                                      \
    if (v == nullptr || v->kind != AttrValue::Kind::KIND)                                 \
      return InvalidArgument("attr '", name, "' is missing or not of the expected kind"); \
    *out = v->FIELD;                                                                      \
    return Status::OK();                                                                  \
  }
TX_ATTR_GETTER(bool, kBool, b)
TX_ATTR_GETTER(int64_t, kInt, i)
TX_ATTR_GETTER(DataType, kType, type)
TX_ATTR_GETTER(std::string, kString, s)
TX_ATTR_GETTER(PartialShape, kShape, shape)
TX_ATTR_GETTER(Tensor, kTensor, tensor)
TX_ATTR_GETTER(std::vector<int64_t>, kList, list.i)
#undef TX_ATTR_GETTER

Status InferenceContext::WithRank(const PartialShape& s, int rank, const char* which, PartialShape* out) const {
  if (!s.known_rank()) {
    *out = PartialShape::UnknownDims(rank);
    return Status::OK();
  }
  if (s.rank() != rank)
    return InvalidArgument(which, " must be rank ", rank, " but is rank ", s.rank(), " with shape ", s.ToString());
  *out = s;
  return Status::OK();
}

Status InferenceContext::WithRankAtLeast(const PartialShape& s, int rank, const char* which, PartialShape* out) const {
  if (s.known_rank() && s.rank() < rank)
    return InvalidArgument(which, " must be at least rank ", rank, " but is rank ", s.rank(), " with shape ",
                           s.ToString());
  *out = s;
  return Status::OK();
}

Status InferenceContext::ShapeFromShapeTensor(int input_index, PartialShape* out) const {
  const Tensor* t = input_tensor(input_index);
  const PartialShape& s = input(input_index);
  if (t == nullptr) {
    if (s.known_rank() && s.rank() == 1 && s.dim(0) >= 0) {
      *out = PartialShape::UnknownDims(static_cast<int>(s.dim(0)));
    } else {
      *out = PartialShape::Unknown();
    }
    return Status::OK();
  }
  if (t->rank() != 1) return InvalidArgument("shape input must be a vector, got shape ", t->shape().ToString());
  std::vector<int64_t> dims(t->num_elements());
  for (int64_t k = 0; k < t->num_elements(); ++k) {
    if (t->dtype() == DT_INT32)
      dims[k] = t->data<int32_t>()[k];
    else if (t->dtype() == DT_INT64)
      dims[k] = t->data<int64_t>()[k];
    else
      return InvalidArgument("shape input must be int32 or int64, got ", DataTypeString(t->dtype()));
    if (dims[k] < -1) return InvalidArgument("shape input has invalid dimension ", dims[k]);
  }
  *out = PartialShape(std::move(dims));
  return Status::OK();
}

Status BroadcastShapes(const PartialShape& a, const PartialShape& b, PartialShape* out) {
  if (!a.known_rank() || !b.known_rank()) {
    *out = PartialShape::Unknown();
    return Status::OK();
  }
  int rank = std::max(a.rank(), b.rank());
  std::vector<int64_t> dims(rank);
  for (int k = 0; k < rank; ++k) {
    int ia = a.rank() - rank + k, ib = b.rank() - rank + k;
    int64_t da = ia >= 0 ? a.dim(ia) : 1, db = ib >= 0 ? b.dim(ib) : 1;
    if (da == 1) {
      dims[k] = db;
    } else if (db == 1) {
      dims[k] = da;
    } else if (da == -1 || db == -1) {
      // One unknown, the other known and != 1: the result must be the known size.
      dims[k] = da == -1 ? db : da;
    } else if (da == db) {
      dims[k] = da;
    } else {
      return InvalidArgument("incompatible shapes for broadcasting: ", a.ToString(), " and ", b.ToString());
    }
  }
  *out = PartialShape(std::move(dims));
  return Status::OK();
}

namespace shape_fns {

Status UnchangedShape(InferenceContext* c) {
  c->set_output(0, c->input(0));
  if (const InferenceContext::HandleData* h = c->input_handle_data(0)) c->set_output_handle_data(0, *h);
  return Status::OK();
}

Status BroadcastBinaryOp(InferenceContext* c) {
  PartialShape out;
  TX_RETURN_IF_ERROR(BroadcastShapes(c->input(0), c->input(1), &out));
  c->set_output(0, out);
  return Status::OK();
}

Status ScalarShape(InferenceContext* c) {
  for (int k = 0; k < c->num_outputs(); ++k) c->set_output(k, PartialShape::Scalar());
  return Status::OK();
}

Status NoOutputs(InferenceContext*) { return Status::OK(); }

Status UnknownShape(InferenceContext* c) {
  for (int k = 0; k < c->num_outputs(); ++k) c->set_output(k, PartialShape::Unknown());
  return Status::OK();
}

// Note [Reduction inference]
// With constant reduction indices and a known input rank the output is exact: axes are checked
// against the rank (negative ones count from the end) and reduced dims are dropped or, with
// keep_dims, set to 1. Duplicates are tolerated here, as TensorFlow does; the kernel rejects them.
// Otherwise only the rank is known, and only when keep_dims holds.
Status ReductionShape(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  const PartialShape& idx = c->input(1);
  if (idx.known_rank() && idx.rank() > 1)
    return InvalidArgument("reduction_indices must be at most rank 1 but is rank ", idx.rank(), " with shape ",
                           idx.ToString());
  bool keep_dims = false;
  TX_RETURN_IF_ERROR(c->GetAttr("keep_dims", &keep_dims));
  const Tensor* axes = c->input_tensor(1);
  if (axes == nullptr || !in.known_rank()) {
    c->set_output(0, keep_dims && in.known_rank() ? PartialShape::UnknownDims(in.rank()) : PartialShape::Unknown());
    return Status::OK();
  }
  const int rank = in.rank();
  std::vector<bool> reduced(rank, false);
  for (int64_t i = 0; i < axes->num_elements(); ++i) {
    int64_t a;
    if (axes->dtype() == DT_INT32)
      a = axes->data<int32_t>()[i];
    else if (axes->dtype() == DT_INT64)
      a = axes->data<int64_t>()[i];
    else
      return InvalidArgument("reduction_indices must be int32 or int64, got ", DataTypeString(axes->dtype()));
    if (a < -rank || a >= rank)
      return InvalidArgument("Invalid reduction dimension ", a, " for input with ", rank, " dimensions.");
    reduced[a < 0 ? a + rank : a] = true;
  }
  std::vector<int64_t> dims;
  for (int i = 0; i < rank; ++i) {
    if (!reduced[i])
      dims.push_back(in.dim(i));
    else if (keep_dims)
      dims.push_back(1);
  }
  c->set_output(0, PartialShape(std::move(dims)));
  return Status::OK();
}

}  // namespace shape_fns
}  // namespace tx
