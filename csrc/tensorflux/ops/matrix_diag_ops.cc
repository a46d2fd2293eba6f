// Matrix structure ops: MatrixBandPart, MatrixDiagV3, MatrixDiagPartV3, MatrixSetDiagV3 and
// Cross, with TensorFlow's OpDefs.
#include <cstdint>
#include <string>
#include <vector>

#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"
#include "tensorflux/ops/array_util.h"
#include "tensorflux/ops/matrix_diag_util.h"

namespace tx {
namespace {

constexpr const char* kAlignAttr = "align: {'LEFT_RIGHT', 'RIGHT_LEFT', 'LEFT_LEFT', 'RIGHT_RIGHT'} = 'RIGHT_LEFT'";

// k0/k1 from input `i` when it is a known constant; false otherwise.
Status ConstDiagIndex(InferenceContext* c, int i, bool* known, int64_t* k0, int64_t* k1) {
  *known = false;
  const Tensor* t = c->input_tensor(i);
  if (t == nullptr) return Status::OK();
  std::vector<int64_t> k;
  TX_RETURN_IF_ERROR(array_util::ReadInts(*t, "k", &k));
  TX_RETURN_IF_ERROR(diag_util::ReadDiagIndex(k, k0, k1));
  *known = true;
  return Status::OK();
}

Status BandPartShape(InferenceContext* c) {
  PartialShape s;
  TX_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 2, "Input 'input'", &s));
  c->set_output(0, s);
  return Status::OK();
}

Status DiagPartShape(InferenceContext* c) {
  PartialShape s;
  TX_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 2, "Input 'input'", &s));
  bool known = false;
  int64_t k0 = 0, k1 = 0;
  TX_RETURN_IF_ERROR(ConstDiagIndex(c, 1, &known, &k0, &k1));
  if (!s.known_rank() || !known) {
    c->set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  const int r = s.rank();
  std::vector<int64_t> d(s.dims().begin(), s.dims().end() - 2);
  const int64_t rows = s.dim(r - 2), cols = s.dim(r - 1);
  if (k0 != k1) d.push_back(k1 - k0 + 1);
  if (rows >= 0 && cols >= 0) {
    diag_util::DiagBand band;
    TX_RETURN_IF_ERROR(diag_util::BandOfMatrix(rows, cols, k0, k1, &band));
    d.push_back(band.max_len);
  } else {
    d.push_back(-1);
  }
  c->set_output(0, PartialShape(std::move(d)));
  return Status::OK();
}

Status DiagShape(InferenceContext* c) {
  PartialShape s;
  TX_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, "Input 'diagonal'", &s));
  bool known = false;
  int64_t k0 = 0, k1 = 0;
  TX_RETURN_IF_ERROR(ConstDiagIndex(c, 1, &known, &k0, &k1));
  const Tensor* nr = c->input_tensor(2);
  const Tensor* nc = c->input_tensor(3);
  if (!s.known_rank() || !known || nr == nullptr || nc == nullptr) {
    c->set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  int64_t rows = -1, cols = -1;
  TX_RETURN_IF_ERROR(array_util::ReadScalarInt(*nr, "num_rows", &rows));
  TX_RETURN_IF_ERROR(array_util::ReadScalarInt(*nc, "num_cols", &cols));
  const int r = s.rank();
  if (k0 != k1) {
    if (r < 2)
      return InvalidArgument("diagonal must be at least 2-D when a band of diagonals is given, got ", s.ToString());
    const int64_t nd = s.dim(r - 2);
    if (nd >= 0 && nd != k1 - k0 + 1)
      return InvalidArgument(
          "The number of diagonals provided in the input does not match the lower_diag_index "
          "and upper_diag_index range: ",
          nd, " vs. ", k1 - k0 + 1);
  }
  const int64_t max_len = s.dim(r - 1);
  std::vector<int64_t> d(s.dims().begin(), s.dims().end() - (k0 != k1 ? 2 : 1));
  if (max_len >= 0) {
    TX_RETURN_IF_ERROR(diag_util::ResolveDiagMatrixSize(max_len, k0, k1, &rows, &cols));
  } else {
    rows = cols = -1;
  }
  d.push_back(rows);
  d.push_back(cols);
  c->set_output(0, PartialShape(std::move(d)));
  return Status::OK();
}

Status SetDiagShape(InferenceContext* c) {
  PartialShape s, diag;
  TX_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 2, "Input 'input'", &s));
  TX_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(1), 1, "Input 'diagonal'", &diag));
  c->set_output(0, s);
  return Status::OK();
}

Status CrossShape(InferenceContext* c) {
  PartialShape a, b, merged;
  TX_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, "Input 'a'", &a));
  TX_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(1), 1, "Input 'b'", &b));
  if (!a.Merge(b, &merged).ok())
    return InvalidArgument("Dimensions must be equal: a and b must have the same shape, got ", a.ToString(), " and ",
                           b.ToString());
  if (merged.known_rank()) {
    const int64_t last = merged.dim(merged.rank() - 1);
    if (last >= 0 && last != 3)
      return InvalidArgument("Dimension must be 3 but is ", last, ": the inner-most dimension of a and b ",
                             merged.ToString(), " must be 3");
  }
  c->set_output(0, merged);
  return Status::OK();
}

}  // namespace

TX_REGISTER_OP("MatrixBandPart")
    .Input("input: T")
    .Input("num_lower: Tindex")
    .Input("num_upper: Tindex")
    .Output("band: T")
    .Attr("T: type")
    .Attr("Tindex: {int32, int64} = DT_INT64")
    .SetShapeFn(BandPartShape)
    .Summary("Keeps a central band of each matrix (num_lower/num_upper < 0 keep a whole triangle), zeroing the rest.");

TX_REGISTER_OP("MatrixDiagV3")
    .Input("diagonal: T")
    .Input("k: int32")
    .Input("num_rows: int32")
    .Input("num_cols: int32")
    .Input("padding_value: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr(kAlignAttr)
    .SetShapeFn(DiagShape)
    .Summary("Matrices whose diagonals k[0]..k[1] are `diagonal` and the rest is padding_value.");

TX_REGISTER_OP("MatrixDiagPartV3")
    .Input("input: T")
    .Input("k: int32")
    .Input("padding_value: T")
    .Output("diagonal: T")
    .Attr("T: type")
    .Attr(kAlignAttr)
    .SetShapeFn(DiagPartShape)
    .Summary("The diagonals k[0]..k[1] of each matrix, packed and padded with padding_value.");

TX_REGISTER_OP("MatrixSetDiagV3")
    .Input("input: T")
    .Input("diagonal: T")
    .Input("k: int32")
    .Output("output: T")
    .Attr("T: type")
    .Attr(kAlignAttr)
    .SetShapeFn(SetDiagShape)
    .Summary("`input` with its diagonals k[0]..k[1] replaced by `diagonal`.");

TX_REGISTER_OP("Cross")
    .Input("a: T")
    .Input("b: T")
    .Output("product: T")
    .Attr("T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64}")
    .SetShapeFn(CrossShape)
    .Summary("Pairwise cross products of the 3-vectors in the last dimension of a and b.");

}  // namespace tx
