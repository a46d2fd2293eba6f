#include "tensorflux/ops/sparse_util.h"

#include <string>

#include "tensorflux/ops/array_util.h"

namespace tx {
namespace sparse_util {
namespace {

// Merges two possibly unknown (-1) sizes; InvalidArgument when both are known and differ.
Status MergeDim(int64_t a, int64_t b, const std::string& what, int64_t* out) {
  if (a >= 0 && b >= 0 && a != b) return InvalidArgument(what, ": ", a, " vs. ", b);
  *out = a >= 0 ? a : b;
  return Status::OK();
}

}  // namespace

Status ReadSparseDims(InferenceContext* c, int indices, int values, int shape, const char* what, SparseDims* out) {
  PartialShape ind, val, shp;
  const std::string w(what);
  TX_RETURN_IF_ERROR(c->WithRank(c->input(indices), 2, (w + " indices").c_str(), &ind));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(values), 1, (w + " values").c_str(), &val));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(shape), 1, (w + " dense_shape").c_str(), &shp));
  int64_t nnz = -1, rank = -1;
  if (ind.known_rank()) {
    nnz = ind.dim(0);
    rank = ind.dim(1);
  }
  TX_RETURN_IF_ERROR(MergeDim(nnz, val.known_rank() ? val.dim(0) : -1,
                              "Number of elements in " + w + " indices and values do not match", &out->nnz));
  TX_RETURN_IF_ERROR(MergeDim(rank, shp.known_rank() ? shp.dim(0) : -1,
                              "Index rank and shape rank of " + w + " do not match", &out->rank));
  return Status::OK();
}

bool ConstantVector(InferenceContext* c, int i, std::vector<int64_t>* out) {
  const Tensor* t = c->input_tensor(i);
  if (t == nullptr || t->rank() != 1) return false;
  return array_util::ReadInts(*t, "shape", out).ok();
}

}  // namespace sparse_util
}  // namespace tx
