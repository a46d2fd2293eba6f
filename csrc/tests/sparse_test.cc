// Tests of the sparse ops: shape-function table (shapes in, shape or error out) and kernel values
// and error paths for the ones whose indices rules matter most (order, bounds).
#include <string>
#include <vector>

#include "kernel_test_util.h"
#include "op_test_util.h"
#include "test_util.h"

using namespace tx;
using namespace tx_test;

namespace {

Tensor I64(std::vector<int64_t> v) { return MakeTensor<int64_t>({static_cast<int64_t>(v.size())}, v); }
Tensor M64(int64_t rows, int64_t cols, std::vector<int64_t> v) { return MakeTensor<int64_t>({rows, cols}, v); }
Tensor F32(std::vector<float> v) { return MakeTensor<float>({static_cast<int64_t>(v.size())}, v); }
InputSpec F(PartialShape s) { return Ph(DT_FLOAT, std::move(s)); }
InputSpec L(PartialShape s) { return Ph(DT_INT64, std::move(s)); }
const PartialShape kScalar = PartialShape(std::vector<int64_t>{});
AttrMap A(std::initializer_list<std::pair<const std::string, AttrValue>> kv) { return AttrMap(kv); }

}  // namespace

TEST(SparseShapes) {
  const AttrMap none;
  const std::vector<ShapeTableRow> rows = {
      {"SparseToDense", {L({5, 2}), Cst(I64({3, 4})), F({5}), F(kScalar)}, none, "[3,4]"},
      {"SparseToDense", {L({5, 2}), L({3}), F({5}), F(kScalar)}, none, "[?,?,?]"},
      {"SparseToDense", {L({5, 2}), L({2}), F({5}), F({1})}, none, "!default_value"},
      {"SparseToDense", {L({5, 2, 1}), L({2}), F({5}), F(kScalar)}, none, "!scalar, vector, or matrix"},
      {"SparseReorder", {L({7, 3}), F({7}), L({3})}, none, "[7,3]"},
      {"SparseReorder", {L({7, 3}), F({6}), L({3})}, none, "!Number of elements in input indices and values"},
      {"SparseReorder", {L({7, 3}), F({7}), L({2})}, none, "!Index rank and shape rank"},
      {"SparseReorder", {L({7}), F({7}), L({2})}, none, "!input indices"},
      {"SparseReshape", {L({7, 3}), L({3}), L({2})}, none, "[7,2]"},
      {"SparseSlice", {L({7, 3}), F({7}), L({3}), L({3}), L({3})}, none, "[?,3]"},
      {"SparseSlice", {L({7, 3}), F({7}), L({3}), L({2}), L({3})}, none, "!Expected start to be a vector of length 3"},
      {"SparseSliceGrad", {F({4}), L({7, 3}), L({3}), L({4, 3})}, none, "[7]"},
      {"SparseSplit", {L(kScalar), L({5, 2}), F({5}), L({2})}, A({{"num_split", AttrValue::Int(3)}}), "[?,2]"},
      {"SparseFillEmptyRows", {L({5, 2}), F({5}), Cst(I64({4, 3})), F(kScalar)}, none, "[?,2]"},
      {"SparseFillEmptyRowsGrad", {L({5}), F({9})}, none, "[5]"},
      {"SparseTensorDenseAdd", {L({5, 2}), F({5}), L({2}), F({3, 4})}, none, "[3,4]"},
      {"SparseTensorDenseAdd", {L({5, 2}), F({5}), L({2}), F({3, 4, 1})}, none, "!dense operand has shape [3,4,1]"},
      {"SparseTensorDenseMatMul", {L({5, 2}), F({5}), Cst(I64({3, 4})), F({4, 6})}, none, "[3,6]"},
      {"SparseTensorDenseMatMul",
       {L({5, 2}), F({5}), Cst(I64({3, 4})), F({6, 4})},
       A({{"adjoint_a", AttrValue::Bool(true)}, {"adjoint_b", AttrValue::Bool(true)}}),
       "!inner dimension does not match"},
      {"SparseTensorDenseMatMul",
       {L({5, 2}), F({5}), Cst(I64({3, 4})), F({6, 3})},
       A({{"adjoint_a", AttrValue::Bool(true)}, {"adjoint_b", AttrValue::Bool(true)}}),
       "[4,6]"},
      {"SparseTensorDenseMatMul", {L({5, 2}), F({5}), L({2}), F({4, 6})}, none, "[?,6]"},
      {"SparseAdd", {L({5, 2}), F({5}), L({2}), L({4, 2}), F({4}), L({2}), F(kScalar)}, none, "[?,2]"},
      {"SparseAdd",
       {L({5, 2}), F({5}), L({2}), L({4, 3}), F({4}), L({3}), F(kScalar)},
       none,
       "!Operands do not have the same ranks"},
      {"SparseAddGrad", {F({6}), L({5, 2}), L({4, 2}), L({6, 2})}, none, "[5]"},
      {"SparseReduceSum", {L({5, 3}), F({5}), Cst(I64({2, 3, 4})), Cst(MakeTensor<int32_t>({1}, {1}))}, none, "[2,4]"},
      {"SparseReduceSum",
       {L({5, 3}), F({5}), Cst(I64({2, 3, 4})), Cst(MakeTensor<int32_t>({2}, {0, -1}))},
       A({{"keep_dims", AttrValue::Bool(true)}}),
       "[1,3,1]"},
      {"SparseReduceSum",
       {L({5, 3}), F({5}), Cst(I64({2, 3, 4})), Cst(MakeTensor<int32_t>({1}, {3}))},
       none,
       "!Invalid reduction dimension 3, for input with 3 dimensions"},
      {"SparseReduceSum",
       {L({5, 3}), F({5}), L({3}), Ph(DT_INT32, PartialShape({1}))},
       A({{"keep_dims", AttrValue::Bool(true)}}),
       "[?,?,?]"},
      {"SparseReduceMaxSparse", {L({5, 3}), F({5}), L({3}), Ph(DT_INT32, PartialShape({1}))}, none, "[?,?]"},
      {"SparseSoftmax", {L({5, 3}), F({5}), L({3})}, none, "[5]"},
      {"SparseSoftmax", {L({5, 1}), F({5}), L({1})}, none, "!rank >= 2"},
      {"SparseDenseCwiseMul", {L({5, 3}), F({5}), L({3}), F({4, 1})}, none, "[5]"},
      {"SparseDenseCwiseAdd", {L({5, 2}), F({5}), L({2}), F({1, 3, 4})}, none, "!broadcasts dense to sparse only"},
      {"SparseSparseMaximum", {L({5, 2}), F({5}), L({2}), L({4, 2}), F({4}), L({2})}, none, "[?,2]"},
  };
  EXPECT_EQ(CheckShapeTable(rows), 0);
}

TEST(SparseToDenseKernel) {
  OpTester t;
  std::vector<Tensor> out;
  EXPECT_OK(t.RunOp(
      "SparseToDense",
      {M64(2, 2, {0, 1, 2, 0}), I64({3, 2}), F32({5, 6}), MakeTensor<float>(TensorShape(std::vector<int64_t>{}), {-1})},
      {}, &out));
  EXPECT_TRUE(Values<float>(out[0]) == std::vector<float>({-1, 5, -1, -1, 6, -1}));
  EXPECT_ERROR(t.RunOp("SparseToDense",
                       {M64(2, 2, {2, 0, 0, 1}), I64({3, 2}), F32({5, 6}),
                        MakeTensor<float>(TensorShape(std::vector<int64_t>{}), {0})},
                       {}, &out),
               "indices[1] = [0,1] is out of order");
  EXPECT_ERROR(t.RunOp("SparseToDense",
                       {M64(2, 2, {0, 1, 3, 0}), I64({3, 2}), F32({5, 6}),
                        MakeTensor<float>(TensorShape(std::vector<int64_t>{}), {0})},
                       {}, &out),
               "indices[1] = [3,0] is out of bounds: need 0 <= index < [3,2]");
}

TEST(SparseReorderAndAdd) {
  OpTester t;
  std::vector<Tensor> out;
  EXPECT_OK(t.RunOp("SparseReorder", {M64(3, 2, {1, 0, 0, 1, 0, 0}), F32({1, 2, 3}), I64({2, 2})}, {}, &out));
  EXPECT_TRUE(Values<int64_t>(out[0]) == std::vector<int64_t>({0, 0, 0, 1, 1, 0}));
  EXPECT_TRUE(Values<float>(out[1]) == std::vector<float>({3, 2, 1}));
  // a + b with one shared entry whose sum (0) falls below the threshold.
  EXPECT_OK(t.RunOp("SparseAdd",
                    {M64(2, 2, {0, 0, 1, 1}), F32({1, 2}), I64({2, 2}), M64(2, 2, {0, 0, 0, 1}), F32({-1, 4}),
                     I64({2, 2}), MakeTensor<float>(TensorShape(std::vector<int64_t>{}), {0.5f})},
                    {}, &out));
  EXPECT_TRUE(Values<int64_t>(out[0]) == std::vector<int64_t>({0, 1, 1, 1}));
  EXPECT_TRUE(Values<float>(out[1]) == std::vector<float>({4, 2}));
  EXPECT_ERROR(t.RunOp("SparseAdd",
                       {M64(2, 2, {1, 1, 0, 0}), F32({1, 2}), I64({2, 2}), M64(1, 2, {0, 0}), F32({1}), I64({2, 2}),
                        MakeTensor<float>(TensorShape(std::vector<int64_t>{}), {0})},
                       {}, &out),
               "is out of order");
}