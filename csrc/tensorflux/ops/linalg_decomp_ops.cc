// Matrix decompositions and solvers (LAPACK-backed): MatrixSolve, MatrixInverse,
// MatrixDeterminant, LogMatrixDeterminant, Cholesky, MatrixTriangularSolve, Lu, Qr, Svd,
// SelfAdjointEigV2 and MatrixSolveLs, with TensorFlow's OpDefs.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"

namespace tx {
namespace {

constexpr const char* kLinalgTypes = "T: {double, float, half, complex64, complex128}";

// Checks rank >= 2 and, when both are known, equal last two dims; `out` is the checked shape.
Status SquareMatrixInput(InferenceContext* c, int i, PartialShape* out) {
  TX_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(i), 2, "Input 'input'", out));
  if (!out->known_rank()) return Status::OK();
  const int r = out->rank();
  const int64_t a = out->dim(r - 2), b = out->dim(r - 1);
  if (a >= 0 && b >= 0 && a != b)
    return InvalidArgument("Dimensions must be equal, but are ", a, " and ", b,
                           ": input must be a square matrix (or batch of them), got shape ", out->ToString());
  return Status::OK();
}

// The shape `s` without its last `n` dims, or unknown.
PartialShape Leading(const PartialShape& s, int n) {
  if (!s.known_rank()) return PartialShape::Unknown();
  return PartialShape(std::vector<int64_t>(s.dims().begin(), s.dims().end() - n));
}

// `batch` followed by `tail`, unknown when batch is.
PartialShape Append(const PartialShape& batch, std::vector<int64_t> tail) {
  if (!batch.known_rank()) return PartialShape::Unknown();
  std::vector<int64_t> d = batch.dims();
  d.insert(d.end(), tail.begin(), tail.end());
  return PartialShape(std::move(d));
}

int64_t MergeDim(int64_t a, int64_t b) { return a >= 0 ? a : b; }

Status SquareSameShape(InferenceContext* c) {
  PartialShape s;
  TX_RETURN_IF_ERROR(SquareMatrixInput(c, 0, &s));
  if (s.known_rank()) {
    std::vector<int64_t> d = s.dims();
    const int r = s.rank();
    d[r - 1] = d[r - 2] = MergeDim(d[r - 1], d[r - 2]);
    s = PartialShape(std::move(d));
  }
  c->set_output(0, s);
  return Status::OK();
}

Status DeterminantShape(InferenceContext* c) {
  PartialShape s;
  TX_RETURN_IF_ERROR(SquareMatrixInput(c, 0, &s));
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, Leading(s, 2));
  return Status::OK();
}

// Note [Solve shapes]
// MatrixSolve takes matrix [..., M, M] and rhs [..., M, K] with equal batch dims; the output is
// [..., M, K]. MatrixTriangularSolve broadcasts the batch dims (as TensorFlow 2 does).
Status SolveShape(InferenceContext* c, bool broadcast) {
  PartialShape m, r;
  TX_RETURN_IF_ERROR(SquareMatrixInput(c, 0, &m));
  TX_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(1), 2, "Input 'rhs'", &r));
  if (!m.known_rank() || !r.known_rank()) {
    c->set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  const int64_t n = MergeDim(m.dim(m.rank() - 1), m.dim(m.rank() - 2)), nr = r.dim(r.rank() - 2);
  if (n >= 0 && nr >= 0 && n != nr)
    return InvalidArgument("Incompatible shapes: matrix ", m.ToString(), " and rhs ", r.ToString(),
                           " (rhs must have as many rows as the matrix)");
  PartialShape batch;
  if (broadcast) {
    if (!BroadcastShapes(Leading(m, 2), Leading(r, 2), &batch).ok())
      return InvalidArgument("Incompatible batch dimensions: matrix ", m.ToString(), " vs. rhs ", r.ToString());
  } else {
    if (!Leading(m, 2).Merge(Leading(r, 2), &batch).ok())
      return InvalidArgument("Batch dimensions of matrix ", m.ToString(), " and rhs ", r.ToString(), " must be equal");
  }
  c->set_output(0, Append(batch, {MergeDim(n, nr), r.dim(r.rank() - 1)}));
  return Status::OK();
}

Status LuShape(InferenceContext* c) {
  TX_RETURN_IF_ERROR(SquareSameShape(c));
  PartialShape s = c->output(0);
  c->set_output(1, s.known_rank() ? Append(Leading(s, 1), {}) : PartialShape::Unknown());
  return Status::OK();
}

Status QrShape(InferenceContext* c) {
  PartialShape s;
  TX_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 2, "Input 'input'", &s));
  bool full = false;
  TX_RETURN_IF_ERROR(c->GetAttr("full_matrices", &full));
  if (!s.known_rank()) {
    c->set_output(0, PartialShape::Unknown());
    c->set_output(1, PartialShape::Unknown());
    return Status::OK();
  }
  const int64_t m = s.dim(s.rank() - 2), n = s.dim(s.rank() - 1);
  const int64_t p = full ? m : (m >= 0 && n >= 0 ? std::min(m, n) : -1);
  c->set_output(0, Append(Leading(s, 2), {m, p}));
  c->set_output(1, Append(Leading(s, 2), {p, n}));
  return Status::OK();
}

Status SvdShape(InferenceContext* c) {
  PartialShape s;
  TX_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 2, "Input 'input'", &s));
  bool uv = true, full = false;
  TX_RETURN_IF_ERROR(c->GetAttr("compute_uv", &uv));
  TX_RETURN_IF_ERROR(c->GetAttr("full_matrices", &full));
  if (!s.known_rank()) {
    for (int i = 0; i < 3; ++i) c->set_output(i, PartialShape::Unknown());
    if (!uv) c->set_output(1, PartialShape({0})), c->set_output(2, PartialShape({0}));
    return Status::OK();
  }
  const int64_t m = s.dim(s.rank() - 2), n = s.dim(s.rank() - 1);
  const int64_t p = m >= 0 && n >= 0 ? std::min(m, n) : -1;
  c->set_output(0, Append(Leading(s, 2), {p}));
  if (uv) {
    c->set_output(1, Append(Leading(s, 2), {m, full ? m : p}));
    c->set_output(2, Append(Leading(s, 2), {n, full ? n : p}));
  } else {
    c->set_output(1, PartialShape({0}));
    c->set_output(2, PartialShape({0}));
  }
  return Status::OK();
}

Status EigShape(InferenceContext* c) {
  PartialShape s;
  TX_RETURN_IF_ERROR(SquareMatrixInput(c, 0, &s));
  bool compute_v = true;
  TX_RETURN_IF_ERROR(c->GetAttr("compute_v", &compute_v));
  if (!s.known_rank()) {
    c->set_output(0, PartialShape::Unknown());
    c->set_output(1, compute_v ? PartialShape::Unknown() : PartialShape({0}));
    return Status::OK();
  }
  const int64_t n = MergeDim(s.dim(s.rank() - 1), s.dim(s.rank() - 2));
  c->set_output(0, Append(Leading(s, 2), {n}));
  c->set_output(1, compute_v ? Append(Leading(s, 2), {n, n}) : PartialShape({0}));
  return Status::OK();
}

Status SolveLsShape(InferenceContext* c) {
  PartialShape m, r, l2;
  TX_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 2, "Input 'matrix'", &m));
  TX_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(1), 2, "Input 'rhs'", &r));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(2), 0, "Input 'l2_regularizer'", &l2));
  if (!m.known_rank() || !r.known_rank()) {
    c->set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  const int64_t rows = m.dim(m.rank() - 2), rr = r.dim(r.rank() - 2);
  if (rows >= 0 && rr >= 0 && rows != rr)
    return InvalidArgument("Incompatible shapes: matrix ", m.ToString(), " and rhs ", r.ToString(),
                           " (rhs must have as many rows as the matrix)");
  PartialShape batch;
  if (!Leading(m, 2).Merge(Leading(r, 2), &batch).ok())
    return InvalidArgument("Batch dimensions of matrix ", m.ToString(), " and rhs ", r.ToString(), " must be equal");
  c->set_output(0, Append(batch, {m.dim(m.rank() - 1), r.dim(r.rank() - 1)}));
  return Status::OK();
}

}  // namespace

TX_REGISTER_OP("MatrixSolve")
    .Input("matrix: T")
    .Input("rhs: T")
    .Output("output: T")
    .Attr("adjoint: bool = false")
    .Attr(kLinalgTypes)
    .SetShapeFn([](InferenceContext* c) { return SolveShape(c, false); })
    .Summary("Solves matrix * output = rhs (adjoint(matrix) when adjoint) for each batch item.");

TX_REGISTER_OP("MatrixInverse")
    .Input("input: T")
    .Output("output: T")
    .Attr("adjoint: bool = false")
    .Attr(kLinalgTypes)
    .SetShapeFn(SquareSameShape)
    .Summary("The inverse (of the adjoint, when adjoint) of each square matrix.");

TX_REGISTER_OP("MatrixDeterminant")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: {half, float, double, complex64, complex128}")
    .SetShapeFn(DeterminantShape)
    .Summary("The determinant of each square matrix.");

TX_REGISTER_OP("LogMatrixDeterminant")
    .Input("input: T")
    .Output("sign: T")
    .Output("log_abs_determinant: T")
    .Attr("T: {half, float, double, complex64, complex128}")
    .SetShapeFn(DeterminantShape)
    .Summary("Sign and log of the absolute determinant of each square matrix.");

TX_REGISTER_OP("Cholesky")
    .Input("input: T")
    .Output("output: T")
    .Attr(kLinalgTypes)
    .SetShapeFn(SquareSameShape)
    .Summary("Lower-triangular L with L L^H = input (only the lower triangle of input is read).");

TX_REGISTER_OP("MatrixTriangularSolve")
    .Input("matrix: T")
    .Input("rhs: T")
    .Output("output: T")
    .Attr("lower: bool = true")
    .Attr("adjoint: bool = false")
    .Attr("T: {bfloat16, double, float, half, complex64, complex128}")
    .SetShapeFn([](InferenceContext* c) { return SolveShape(c, true); })
    .Summary("Solves triangular systems (batch dims broadcast); only the lower/upper triangle is read.");

TX_REGISTER_OP("Lu")
    .Input("input: T")
    .Output("lu: T")
    .Output("p: output_idx_type")
    .Attr("T: {double, float, half, complex64, complex128}")
    .Attr("output_idx_type: {int32, int64} = DT_INT32")
    .SetShapeFn(LuShape)
    .Summary("LU with partial pivoting: input[..., p, :] = L U, packed in lu (L unit lower, U upper).");

TX_REGISTER_OP("Qr")
    .Input("input: T")
    .Output("q: T")
    .Output("r: T")
    .Attr("full_matrices: bool = false")
    .Attr(kLinalgTypes)
    .SetShapeFn(QrShape)
    .Summary("QR decomposition of each matrix: input = q r, q orthonormal columns, r upper triangular.");

TX_REGISTER_OP("Svd")
    .Input("input: T")
    .Output("s: T")
    .Output("u: T")
    .Output("v: T")
    .Attr("compute_uv: bool = true")
    .Attr("full_matrices: bool = false")
    .Attr(kLinalgTypes)
    .SetShapeFn(SvdShape)
    .Summary("Singular values (descending) and vectors: input = u diag(s) v^H.");

TX_REGISTER_OP("SelfAdjointEigV2")
    .Input("input: T")
    .Output("e: T")
    .Output("v: T")
    .Attr("compute_v: bool = true")
    .Attr(kLinalgTypes)
    .SetShapeFn(EigShape)
    .Summary("Eigenvalues (ascending) and eigenvectors (columns) of self-adjoint matrices (lower triangle).");

TX_REGISTER_OP("MatrixSolveLs")
    .Input("matrix: T")
    .Input("rhs: T")
    .Input("l2_regularizer: double")
    .Output("output: T")
    .Attr(kLinalgTypes)
    .Attr("fast: bool = true")
    .SetShapeFn(SolveLsShape)
    .Summary("Regularized least-squares solutions of matrix * output = rhs.");

}  // namespace tx
