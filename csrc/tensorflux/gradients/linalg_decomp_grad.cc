// Gradients of Qr, Svd, SelfAdjointEigV2 and MatrixSolveLs; the formulas follow TensorFlow's
// linalg_grad.py (real types). Matrix sizes must be static where the formula branches on them.
#include <cstdlib>
#include <utility>
#include <vector>

#include "tensorflux/gradients/gradient_registry.h"
#include "tensorflux/gradients/linalg_grad_util.h"

namespace tx {
namespace {

using namespace linalg_grad;  // NOLINT: the matrix vocabulary of this file

// Static (rows, cols) of a matrix operand; false (with an error recorded) when unknown.
bool StaticMatrixDims(GradScope& o, GValue x, const char* op, int64_t* m, int64_t* n) {
  const PartialShape s = o.shape(x);
  if (!s.known_rank() || s.rank() < 2 || s.dim(s.rank() - 2) < 0 || s.dim(s.rank() - 1) < 0) {
    o.Fail(Unimplemented(op, " gradient: needs statically known matrix dimensions, got ", s.ToString()));
    return false;
  }
  *m = s.dim(s.rank() - 2);
  *n = s.dim(s.rank() - 1);
  return true;
}

// x[..., :, c0:c0+len] (static rank required).
GValue Columns(GradScope& o, GValue x, int64_t c0, int64_t len) {
  if (!x.valid()) return GValue();
  const int r = o.Rank(x);
  std::vector<int64_t> begin(r, 0), size(r, -1);
  begin[r - 1] = c0;
  size[r - 1] = len;
  return o.Op1("Slice", {x, o.Ints(begin), o.Ints(size)});
}

// QR gradient for m >= n (or thin q): TensorFlow's _QrGradSquareAndDeepMatrices.
GValue QrGradDeep(GradScope& o, GValue q, GValue r, GValue dq, GValue dr) {
  GValue qdq = MatMul(o, q, dq, true, false);
  GValue qdq_ = o.Sub(qdq, Adjoint(o, qdq));
  GValue rdr = MatMul(o, r, dr, false, true);
  GValue rdr_ = o.Sub(rdr, Adjoint(o, rdr));
  GValue tril = BandPart(o, o.Add(qdq_, rdr_), -1, 0);
  GValue ga = MatMul(o, q, o.Add(dr, RightSolveUpperAdjoint(o, tril, r)));
  GValue gb = RightSolveUpperAdjoint(o, o.Sub(dq, MatMul(o, q, qdq)), r);
  return o.Add(ga, gb);
}

Status QrGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue a = g.input(0), q = g.output(0), r = g.output(1), dq = g.grad(0), dr = g.grad(1);
  int64_t m, n;
  if (!StaticMatrixDims(o, a, "Qr", &m, &n)) return Status::OK();
  if (g.attr_bool("full_matrices") && m > n)
    return Unimplemented("QrGrad not implemented when nrows > ncols and full_matrices is true (input shape ",
                         o.shape(a).ToString(), ")");
  if (m >= n) {
    g.set_grad(0, QrGradDeep(o, q, r, dq, dr));
    return Status::OK();
  }
  // Wide: a = [x | y] with x square; r = [u | v].
  GValue y = Columns(o, a, m, n - m), u = Columns(o, r, 0, m), dv = Columns(o, dr, m, n - m);
  GValue dq2 = o.Add(dq, MatMul(o, y, dv, false, true));
  GValue dx = QrGradDeep(o, q, u, dq2, Columns(o, dr, 0, m));
  GValue dy = MatMul(o, q, dv);
  std::vector<GValue> cat = o.Op("ConcatV2", {{dx, dy}, {o.Int(-1)}});
  g.set_grad(0, cat.empty() ? GValue() : cat[0]);
  return Status::OK();
}

// TensorFlow's _SvdGrad (real case).
Status SvdGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue a = g.input(0);
  GValue gs_mat = Diag(o, g.grad(0));
  if (!g.attr_bool("compute_uv")) {
    std::vector<GValue> usv = o.Op("Svd", {{a}}, {{"compute_uv", BoolAttr(true)}, {"full_matrices", BoolAttr(false)}});
    if (usv.size() != 3) return Status::OK();
    g.set_grad(0, MatMul(o, usv[1], MatMul(o, gs_mat, usv[2], false, true)));
    return Status::OK();
  }
  const bool full = g.attr_bool("full_matrices");
  int64_t m, n;
  if (!StaticMatrixDims(o, a, "Svd", &m, &n)) return Status::OK();
  if (full && std::abs(m - n) > 1)
    return Unimplemented(
        "SVD gradient has not been implemented for input with unequal number of rows and "
        "columns when full_matrices=True (shape ",
        o.shape(a).ToString(), ")");
  GValue s = g.output(0), u = g.output(1), v = g.output(2), gu = g.grad(1), gv = g.grad(2);
  const bool use_adjoint = m > n;
  if (use_adjoint) {
    std::swap(m, n);
    std::swap(u, v);
    std::swap(gu, gv);
  }
  if (full && std::abs(m - n) == 1) {
    v = Columns(o, v, 0, m);
    gv = Columns(o, gv, 0, m);
  }
  GValue v1 = Columns(o, v, 0, m), gv1 = Columns(o, gv, 0, m);
  GValue f = SpectralGapInverse(o, o.Square(s));
  GValue s_mat = Diag(o, s);
  GValue fu = o.Mul(f, MatMul(o, u, gu, true, false));
  GValue fv = o.Mul(f, MatMul(o, v1, gv1, true, false));
  GValue term1_nouv =
      o.Add(gs_mat, o.Add(MatMul(o, o.Add(fu, Adjoint(o, fu)), s_mat), MatMul(o, s_mat, o.Add(fv, Adjoint(o, fv)))));
  GValue ga = MatMul(o, u, MatMul(o, term1_nouv, v1, false, true));
  if (m != n) {
    GValue gv1t = Adjoint(o, gv1);
    GValue term2_nous = o.Sub(gv1t, MatMul(o, MatMul(o, gv1t, v1), v1, false, true));
    GValue u_s_inv = MatMul(o, u, Diag(o, SafeReciprocal(o, s)));
    ga = o.Add(ga, MatMul(o, u_s_inv, term2_nous));
  }
  g.set_grad(0, use_adjoint ? Adjoint(o, ga) : ga);
  return Status::OK();
}

// TensorFlow's _SelfAdjointEigV2Grad: symmetrized, lower triangle with halved diagonal.
Status EigGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue e = g.output(0), v = g.output(1);
  GValue ga;
  if (g.attr_bool("compute_v")) {
    GValue f = SpectralGapInverse(o, e);
    GValue inner = o.Add(Diag(o, g.grad(0)), o.Mul(f, MatMul(o, v, g.grad(1), true, false)));
    ga = MatMul(o, v, MatMul(o, inner, v, false, true));
  } else {
    std::vector<GValue> ev = o.Op("SelfAdjointEigV2", {{g.input(0)}}, {{"compute_v", BoolAttr(true)}});
    if (ev.size() != 2) return Status::OK();
    ga = MatMul(o, ev[1], MatMul(o, Diag(o, g.grad(0)), ev[1], false, true));
  }
  ga = BandPart(o, o.Add(ga, Adjoint(o, ga)), -1, 0);
  g.set_grad(0, SetDiag(o, ga, Scale(o, DiagPart(o, ga), 0.5)));
  return Status::OK();
}

// Cholesky factor of the regularized Gramian: a^H a + l2 I (`first_kind`) or a a^H + l2 I.
GValue GramianCholesky(GradScope& o, GValue a, GValue l2, bool first_kind) {
  GValue gram = first_kind ? MatMul(o, a, a, true, false) : MatMul(o, a, a, false, true);
  gram = SetDiag(o, gram, o.Add(DiagPart(o, gram), l2));
  return o.Op1("Cholesky", {gram});
}

// TensorFlow's _MatrixSolveLsGrad (fast=true only).
Status SolveLsGrad(GradContext& g) {
  GradScope& o = g.ops();
  if (!g.attr_bool("fast")) return Unimplemented("MatrixSolveLs: gradient not defined for fast=False");
  GValue a = g.input(0), b = g.input(1), x = g.output(0), dx = g.grad(0);
  int64_t m, n;
  if (!StaticMatrixDims(o, a, "MatrixSolveLs", &m, &n)) return Status::OK();
  GValue l2 = o.Cast(g.input(2), o.dtype(a));
  if (m >= n) {
    GValue chol = GramianCholesky(o, a, l2, true);
    GValue z = CholeskySolve(o, chol, dx);
    GValue xzt = MatMul(o, x, z, false, true);
    GValue zx_sym = o.Add(xzt, Adjoint(o, xzt));
    g.set_grad(0, o.Add(o.Neg(MatMul(o, a, zx_sym)), MatMul(o, b, z, false, true)));
    g.set_grad(1, MatMul(o, a, z));
  } else {
    GValue chol = GramianCholesky(o, a, l2, false);
    GValue gb = CholeskySolve(o, chol, MatMul(o, a, dx));
    GValue tmp = CholeskySolve(o, chol, b);
    GValue a1 = o.Neg(MatMul(o, gb, MatMul(o, tmp, a, true, false)));
    GValue a2 = MatMul(o, tmp, o.Sub(dx, MatMul(o, a, gb, true, false)), false, true);
    g.set_grad(0, o.Add(a1, a2));
    g.set_grad(1, gb);
  }
  return Status::OK();
}

}  // namespace

TX_REGISTER_GRADIENT("Qr", QrGrad);
TX_REGISTER_GRADIENT("Svd", SvdGrad);
TX_REGISTER_GRADIENT("SelfAdjointEigV2", EigGrad);
TX_REGISTER_GRADIENT("MatrixSolveLs", SolveLsGrad);

}  // namespace tx
