// CPU kernel of RaggedTensorToTensor for the partition forms TensorFlow writes: ROW_SPLITS at
// every ragged dimension, or FIRST_DIM_SIZE followed by VALUE_ROWIDS (Note [Ragged to dense]).
#include <algorithm>
#include <string>
#include <vector>

#include "tensorflux/core/object_types.h"
#include "tensorflux/kernels/cpu/kernel_util.h"

// Note [Ragged to dense]
// Each ragged dimension k maps every element of level k+1 (or, at the last level, every row of
// `values`) to a (parent row, column) pair, from row splits or from sorted value row ids. The
// kernel walks the levels from the outermost, turning each parent's offset in the output into
// its children's offsets (parent + column * stride); a child whose row or column falls outside
// the output shape gets -1 and is dropped with everything below it. The output is first filled
// with default_value (broadcast to the values' inner shape), then each kept row of `values` is
// copied to its offset. Output dimensions not given by `shape` (-1) are the number of rows and
// the longest row at each level, as in TensorFlow.

namespace tx {
namespace cpu {
namespace {

int64_t IndexAt(const Tensor& t, int64_t i) {
  return t.dtype() == DT_INT32 ? t.data<int32_t>()[i] : t.data<int64_t>()[i];
}

// One ragged level: the parent row and column of each child element, and the number of rows.
struct Level {
  int64_t rows = 0;
  std::vector<int64_t> parent, column;
  int64_t longest = 0;
};

class RaggedTensorToTensorOp : public OpKernel {
 public:
  explicit RaggedTensorToTensorOp(OpKernelConstruction* c) : OpKernel(c) {
    const AttrValue* types = c->node().attr("row_partition_types");
    if (types == nullptr) {
      c->SetStatus(InvalidArgument("missing attr row_partition_types"));
      return;
    }
    types_ = types->list.s;
    const bool rowids = !types_.empty() && types_[0] == "FIRST_DIM_SIZE";
    for (size_t i = 0; i < types_.size(); ++i) {
      const std::string& t = types_[i];
      const bool ok = rowids ? (i == 0 ? t == "FIRST_DIM_SIZE" : t == "VALUE_ROWIDS") : t == "ROW_SPLITS";
      if (!ok) {
        c->SetStatus(InvalidArgument(
            "row_partition_types must be ROW_SPLITS at every ragged dimension, or FIRST_DIM_SIZE followed by "
            "VALUE_ROWIDS; got ",
            t, " at position ", i));
        return;
      }
    }
    if (types_.empty() || (rowids && types_.size() < 2))
      c->SetStatus(InvalidArgument("row_partition_types names no ragged dimension"));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& values = ctx->input(1);
    const Tensor& def = ctx->input(2);
    if (values.rank() < 1) return ctx->SetStatus(InvalidArgument("values must have rank >= 1, got a scalar"));
    const bool rowids = types_[0] == "FIRST_DIM_SIZE";
    const int ragged_rank = static_cast<int>(types_.size()) - (rowids ? 1 : 0);
    std::vector<Level> levels(ragged_rank);
    TX_CTX_RETURN_IF_ERROR(ctx,
                           rowids ? ReadRowIds(ctx, values.dim(0), &levels) : ReadSplits(ctx, values.dim(0), &levels));

    // Output dims: the given ones, else the data's.
    const int rank = ragged_rank + values.rank();
    std::vector<int64_t> dims(rank, -1);
    TX_CTX_RETURN_IF_ERROR(ctx, ReadShape(ctx->input(0), rank, &dims));
    if (dims[0] < 0) dims[0] = levels[0].rows;
    for (int k = 0; k < ragged_rank; ++k)
      if (dims[k + 1] < 0) dims[k + 1] = levels[k].longest;
    for (int d = 1; d < values.rank(); ++d) {
      const int o = ragged_rank + d;
      if (dims[o] >= 0 && dims[o] != values.dim(d))
        return ctx->SetStatus(InvalidArgument("shape[", o, "] = ", dims[o], " does not match the values' dimension ", d,
                                              " (", values.dim(d), ")"));
      dims[o] = values.dim(d);
    }
    Tensor* out;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, TensorShape(dims), &out));
    const int64_t inner = NumInner(values);  // elements per row of `values`
    TX_CTX_RETURN_IF_ERROR(ctx, FillDefault(values, def, inner, out));
    if (out->num_elements() == 0) return;

    // Offsets of each level's elements in the output (Note [Ragged to dense]).
    std::vector<int64_t> stride(rank + 1, 1);
    for (int d = rank - 1; d >= 0; --d) stride[d] = stride[d + 1] * dims[d];
    std::vector<int64_t> offset(levels[0].rows);
    for (int64_t i = 0; i < levels[0].rows; ++i) offset[i] = i < dims[0] ? i * stride[1] : -1;
    for (int k = 0; k < ragged_rank; ++k) {
      const Level& l = levels[k];
      // Elements of the next level that no row covers (splits ending early) are dropped.
      std::vector<int64_t> child(
          k + 1 < ragged_rank ? std::max<size_t>(levels[k + 1].rows, l.parent.size()) : l.parent.size(), -1);
      for (size_t j = 0; j < l.parent.size(); ++j) {
        const int64_t p = offset[l.parent[j]];
        child[j] = p >= 0 && l.column[j] < dims[k + 1] ? p + l.column[j] * stride[k + 2] : -1;
      }
      offset.swap(child);
    }
    const size_t esize = DataTypeSize(values.dtype());
    const char* src = static_cast<const char*>(values.raw_data());
    char* dst = static_cast<char*>(out->raw_data());
    for (size_t j = 0; j < offset.size(); ++j)
      if (offset[j] >= 0) CopyElements(values.dtype(), src + j * inner * esize, dst + offset[j] * esize, inner);
  }

 private:
  static int64_t NumInner(const Tensor& values) {
    int64_t n = 1;
    for (int d = 1; d < values.rank(); ++d) n *= values.dim(d);
    return n;
  }

  // `shape` (a scalar: unknown rank; a vector: one entry per output dimension, -1 unknown).
  static Status ReadShape(const Tensor& shape, int rank, std::vector<int64_t>* dims) {
    if (shape.rank() == 0) return Status::OK();
    if (shape.rank() != 1)
      return InvalidArgument("shape must be a scalar or a vector, got shape ", shape.shape().ToString());
    if (shape.num_elements() != rank)
      return InvalidArgument("shape has ", shape.num_elements(), " dimensions but the ragged tensor has rank ", rank);
    for (int d = 0; d < rank; ++d) {
      (*dims)[d] = IndexAt(shape, d);
      if ((*dims)[d] < -1) return InvalidArgument("shape[", d, "] = ", (*dims)[d], " is negative");
    }
    return Status::OK();
  }

  // default_value broadcast to the values' inner shape, written into every output cell.
  static Status FillDefault(const Tensor& values, const Tensor& def, int64_t inner, Tensor* out) {
    const int inner_rank = values.rank() - 1;
    if (def.rank() > inner_rank)
      return InvalidArgument("default_value must broadcast to the values' inner shape; got shape ",
                             def.shape().ToString(), " for values of shape ", values.shape().ToString());
    std::vector<int64_t> index(inner);  // default element of each inner position
    for (int64_t i = 0; i < inner; ++i) {
      int64_t rest = i, src = 0, src_stride = 1;
      for (int d = inner_rank - 1, e = def.rank() - 1; d >= 0; --d, --e) {
        const int64_t extent = values.dim(d + 1), pos = rest % extent;
        rest /= extent;
        if (e < 0) continue;
        if (def.dim(e) != 1 && def.dim(e) != extent)
          return InvalidArgument("default_value of shape ", def.shape().ToString(),
                                 " does not broadcast to the values' inner shape (values shape ",
                                 values.shape().ToString(), ")");
        if (def.dim(e) != 1) src += pos * src_stride;
        src_stride *= def.dim(e);
      }
      index[i] = src;
    }
    if (def.num_elements() == 0 && inner > 0) return InvalidArgument("default_value is empty");
    const int64_t cells = inner == 0 ? 0 : out->num_elements() / inner;
    const size_t esize = DataTypeSize(values.dtype());
    char* dst = static_cast<char*>(out->raw_data());
    for (int64_t c = 0; c < cells; ++c)
      GatherElements(values.dtype(), def.raw_data(), index.data(), inner, dst + c * inner * esize, nullptr);
    return Status::OK();
  }

  // ROW_SPLITS: level k's splits index level k+1's elements (the values' rows at the last level).
  Status ReadSplits(OpKernelContext* ctx, int64_t num_values, std::vector<Level>* levels) const {
    const int n = static_cast<int>(levels->size());
    for (int k = 0; k < n; ++k) {
      const Tensor& s = ctx->input(3 + k);
      if (s.rank() != 1 || s.num_elements() < 1)
        return InvalidArgument("row_partition_tensors[", k, "] (row splits) must be a non-empty vector, got shape ",
                               s.shape().ToString());
      const int64_t children = k + 1 < n ? ctx->input(4 + k).num_elements() - 1 : num_values;
      Level& l = (*levels)[k];
      l.rows = s.num_elements() - 1;
      if (IndexAt(s, 0) != 0) return InvalidArgument("row_partition_tensors[", k, "]: row splits must start at 0");
      for (int64_t i = 0; i < l.rows; ++i) {
        const int64_t b = IndexAt(s, i), e = IndexAt(s, i + 1);
        if (e < b)
          return InvalidArgument("row_partition_tensors[", k, "]: row splits must not decrease (", b, " then ", e, ")");
        if (e > children)
          return InvalidArgument("row_partition_tensors[", k, "]: row split ", e, " is past the ", children,
                                 " elements of the next level");
        l.longest = std::max(l.longest, e - b);
        for (int64_t j = b; j < e; ++j) {
          l.parent.push_back(i);
          l.column.push_back(j - b);
        }
      }
    }
    return Status::OK();
  }

  // FIRST_DIM_SIZE then VALUE_ROWIDS: level k's row ids give the row of each level k+1 element.
  Status ReadRowIds(OpKernelContext* ctx, int64_t num_values, std::vector<Level>* levels) const {
    const Tensor& first = ctx->input(3);
    if (first.num_elements() != 1)
      return InvalidArgument("FIRST_DIM_SIZE must be a scalar, got shape ", first.shape().ToString());
    int64_t rows = IndexAt(first, 0);
    if (rows < 0) return InvalidArgument("FIRST_DIM_SIZE must be non-negative, got ", rows);
    const int n = static_cast<int>(levels->size());
    for (int k = 0; k < n; ++k) {
      const Tensor& r = ctx->input(4 + k);
      if (r.rank() != 1) return InvalidArgument("row_partition_tensors[", k + 1, "] (value row ids) must be a vector");
      const int64_t children = r.num_elements();
      if (k + 1 == n && children != num_values)
        return InvalidArgument("the last value row ids have ", children, " entries but values has ", num_values,
                               " rows");
      Level& l = (*levels)[k];
      l.rows = rows;
      l.parent.resize(children);
      l.column.resize(children);
      for (int64_t j = 0, run = 0; j < children; ++j) {
        const int64_t p = IndexAt(r, j);
        if (p < 0 || p >= rows || (j > 0 && p < l.parent[j - 1]))
          return InvalidArgument("row_partition_tensors[", k + 1, "]: value row ids must be sorted and in [0, ", rows,
                                 "), got ", p, " at ", j);
        run = j > 0 && p == l.parent[j - 1] ? run + 1 : 0;
        l.parent[j] = p;
        l.column[j] = run;
        l.longest = std::max(l.longest, run + 1);
      }
      rows = children;
    }
    return Status::OK();
  }

  std::vector<std::string> types_;
};

}  // namespace

TX_REGISTER_KERNEL(KernelDefBuilder("RaggedTensorToTensor"), RaggedTensorToTensorOp);

}  // namespace cpu
}  // namespace tx
