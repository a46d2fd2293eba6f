// Matrix building blocks for the linear-algebra gradients (batched over leading dims).
#pragma once

#include <cstdint>
#include <vector>

#include "tensorflux/gradients/grad_scope.h"

namespace tx {
namespace linalg_grad {

// op(a) op(b) over the batch (BatchMatMulV2 with adjoint flags).
inline GValue MatMul(GradScope& o, GValue a, GValue b, bool adj_a = false, bool adj_b = false) {
  return o.Op1("BatchMatMulV2", {a, b}, {{"adj_x", BoolAttr(adj_a)}, {"adj_y", BoolAttr(adj_b)}});
}

// The element type of x, or DT_INVALID for "no value" (after an earlier error).
inline DataType DtypeOf(GradScope& o, GValue x) { return x.valid() ? o.dtype(x) : DT_INVALID; }

// The transpose of the last two dims of x (an Einsum when its rank is not known statically).
inline GValue Adjoint(GradScope& o, GValue x) {
  if (!x.valid()) return GValue();
  const int r = o.Rank(x);
  if (r < 0) return o.Op1("Einsum", {x}, {{"equation", StringAttr("...ij->...ji")}});
  if (r < 2) {
    o.Fail(InvalidArgument("linear-algebra gradient: a matrix operand has rank ", r, " (needs >= 2)"));
    return GValue();
  }
  std::vector<int64_t> perm;
  for (int i = 0; i < r - 2; ++i) perm.push_back(i);
  perm.push_back(r - 1);
  perm.push_back(r - 2);
  return o.Transpose(x, o.Ints(perm));
}

// MatrixBandPart(x, lower, upper).
inline GValue BandPart(GradScope& o, GValue x, int64_t lower, int64_t upper) {
  return o.Op1("MatrixBandPart", {x, o.Int(lower, DT_INT64), o.Int(upper, DT_INT64)});
}

// Square matrices with diagonal d (MatrixDiagV3, k = 0).
inline GValue Diag(GradScope& o, GValue d) {
  return o.Op1("MatrixDiagV3", {d, o.Int(0), o.Int(-1), o.Int(-1), o.Scalar(0, DtypeOf(o, d))});
}

// The main diagonal of each matrix.
inline GValue DiagPart(GradScope& o, GValue x) {
  return o.Op1("MatrixDiagPartV3", {x, o.Int(0), o.Scalar(0, DtypeOf(o, x))});
}

// x with its main diagonal replaced by d.
inline GValue SetDiag(GradScope& o, GValue x, GValue d) { return o.Op1("MatrixSetDiagV3", {x, d, o.Int(0)}); }

// Solves L L^H x = rhs from the Cholesky factor L.
inline GValue CholeskySolve(GradScope& o, GValue l, GValue rhs) {
  GValue y = o.Op1("MatrixTriangularSolve", {l, rhs}, {{"lower", BoolAttr(true)}, {"adjoint", BoolAttr(false)}});
  return o.Op1("MatrixTriangularSolve", {l, y}, {{"lower", BoolAttr(true)}, {"adjoint", BoolAttr(true)}});
}

// x * s for a Python-style float constant s.
inline GValue Scale(GradScope& o, GValue x, double s) { return o.Mul(x, o.Scalar(s, DtypeOf(o, x))); }

// adjoint(MatrixTriangularSolve(r, adjoint(x), lower=false)): x r^-H for upper-triangular r.
inline GValue RightSolveUpperAdjoint(GradScope& o, GValue x, GValue r) {
  return Adjoint(
      o,
      o.Op1("MatrixTriangularSolve", {r, Adjoint(o, x)}, {{"lower", BoolAttr(false)}, {"adjoint", BoolAttr(false)}}));
}

// 1/x where |x| is not tiny, ~0 where it is: x / (x^2 + 1e-20) (TensorFlow's _SafeReciprocal).
inline GValue SafeReciprocal(GradScope& o, GValue x) {
  return o.Div(x, o.Add(o.Square(x), o.Scalar(1e-20, DtypeOf(o, x))));
}

// F[..., i, j] = SafeReciprocal(v[j] - v[i]) with a zero diagonal, for spectral gradients.
inline GValue SpectralGapInverse(GradScope& o, GValue v) {
  GValue diff = o.Sub(o.ExpandDims(v, -2), o.ExpandDims(v, -1));
  return SetDiag(o, SafeReciprocal(o, diff), o.ZerosLike(v));
}

}  // namespace linalg_grad
}  // namespace tx
