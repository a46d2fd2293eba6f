// Gradients of MatMul and BatchMatMulV2 (every transpose/adjoint combination; batch gradients
// summed over broadcast batch dimensions), of the solvers and inverses, determinants, Cholesky,
// and of the band/diagonal/cross ops. Formulas follow TensorFlow's linalg_grad.py.
#include <string>

#include "tensorflux/gradients/gradient_registry.h"
#include "tensorflux/gradients/linalg_grad_util.h"

namespace tx {
namespace {

// The product op with its transpose flags, named per op ("transpose_a/b" or "adj_x/y").
struct Product {
  const char* op;
  const char* ta;
  const char* tb;
  GValue operator()(GradScope& o, GValue a, GValue b, bool ta, bool tb) const {
    return o.Op1(op, {a, b}, {{this->ta, BoolAttr(ta)}, {this->tb, BoolAttr(tb)}});
  }
};

// For z = op(a, b) with flags (ta, tb): da and db as products of dz with the other operand.
void ProductGrads(GradContext& g, const Product& p, GValue* da, GValue* db) {
  GradScope& o = g.ops();
  const bool ta = g.attr_bool(p.ta), tb = g.attr_bool(p.tb);
  // MatMul's transposes do not conjugate, so complex operands are conjugated here (TensorFlow's
  // _MatMulGrad); BatchMatMulV2's adjoints already do.
  const bool conj = std::string(p.op) == "MatMul";
  GValue a = conj ? o.Conj(g.input(0)) : g.input(0), b = conj ? o.Conj(g.input(1)) : g.input(1), dz = g.grad(0);
  const bool want_a = g.needs_grad(0), want_b = g.needs_grad(1);
  if (!ta && !tb) {
    if (want_a) *da = p(o, dz, b, false, true);
    if (want_b) *db = p(o, a, dz, true, false);
  } else if (!ta && tb) {
    if (want_a) *da = p(o, dz, b, false, false);
    if (want_b) *db = p(o, dz, a, true, false);
  } else if (ta && !tb) {
    if (want_a) *da = p(o, b, dz, false, true);
    if (want_b) *db = p(o, a, dz, false, false);
  } else {
    if (want_a) *da = p(o, b, dz, true, true);
    if (want_b) *db = p(o, dz, a, true, true);
  }
}

Status MatMulGrad(GradContext& g) {
  GValue da, db;
  ProductGrads(g, Product{"MatMul", "transpose_a", "transpose_b"}, &da, &db);
  g.set_grad(0, da);
  g.set_grad(1, db);
  return Status::OK();
}

Status BatchMatMulGrad(GradContext& g) {
  GValue da, db;
  ProductGrads(g, Product{"BatchMatMulV2", "adj_x", "adj_y"}, &da, &db);
  // Operands with fewer batch dimensions than the product were broadcast: sum them back.
  if (da.valid()) da = g.ops().SumToShapeOf(da, g.input(0));
  if (db.valid()) db = g.ops().SumToShapeOf(db, g.input(1));
  g.set_grad(0, da);
  g.set_grad(1, db);
  return Status::OK();
}

using namespace linalg_grad;  // NOLINT: the matrix vocabulary of this file

// x = A^-1 b: db = A^-H dx; dA = -db x^H (adjoint: -x db^H).
Status MatrixSolveGrad(GradContext& g) {
  GradScope& o = g.ops();
  const bool adj = g.attr_bool("adjoint");
  GValue a = g.input(0), c = g.output(0);
  GValue gb = o.Op1("MatrixSolve", {a, g.grad(0)}, {{"adjoint", BoolAttr(!adj)}});
  g.set_grad(0, o.Neg(adj ? MatMul(o, c, gb, false, true) : MatMul(o, gb, c, false, true)));
  g.set_grad(1, gb);
  return Status::OK();
}

// C = A^-1 (or A^-H): dA = -C^H dC C^H (adjoint: -C dC^H C).
Status MatrixInverseGrad(GradContext& g) {
  GradScope& o = g.ops();
  const bool adj = g.attr_bool("adjoint");
  GValue c = g.output(0);
  g.set_grad(0, o.Neg(MatMul(o, c, MatMul(o, g.grad(0), c, adj, !adj), !adj, false)));
  return Status::OK();
}

// d det(A) = det(A) A^-H; d log|det A| = A^-H.
Status DeterminantGrad(GradContext& g) {
  GradScope& o = g.ops();
  const bool log_form = g.op_type() == "LogMatrixDeterminant";
  GValue a = g.input(0);
  GValue inv_h = o.Op1("MatrixInverse", {a}, {{"adjoint", BoolAttr(true)}});
  GValue scale = log_form ? g.grad(1) : o.Mul(g.grad(0), g.output(0));
  g.set_grad(0, o.Mul(o.ExpandDims(o.ExpandDims(scale, -1), -1), inv_h));
  return Status::OK();
}

// x = tri(A)^-1 b (or tri(A)^-H b): as MatrixSolve, then dA keeps A's triangle and sums broadcast dims.
Status TriangularSolveGrad(GradContext& g) {
  GradScope& o = g.ops();
  const bool adj = g.attr_bool("adjoint"), lower = g.attr_bool("lower");
  GValue a = g.input(0), b = g.input(1), c = g.output(0);
  GValue gb = o.Op1("MatrixTriangularSolve", {a, g.grad(0)}, {{"lower", BoolAttr(lower)}, {"adjoint", BoolAttr(!adj)}});
  GValue ga = o.Neg(adj ? MatMul(o, c, gb, false, true) : MatMul(o, gb, c, false, true));
  ga = lower ? BandPart(o, ga, -1, 0) : BandPart(o, ga, 0, -1);
  g.set_grad(0, o.SumToShapeOf(ga, a));
  g.set_grad(1, o.SumToShapeOf(gb, b));
  return Status::OK();
}

// TensorFlow's Cholesky gradient (Murray 2016, eq. 10), with L^-1 applied by triangular solves:
// P = Phi(L^H dL) (lower triangle, halved diagonal); dA = (G + G^H) / 2 with G = L^-H P L^-1.
Status CholeskyGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue l = g.output(0);
  GValue middle = MatMul(o, l, g.grad(0), true, false);
  middle = o.Sub(BandPart(o, middle, -1, 0), Scale(o, BandPart(o, middle, 0, 0), 0.5));
  // X = L^-H middle, then dA = X L^-1 = (L^-H X^H)^H.
  GValue x = o.Op1("MatrixTriangularSolve", {l, middle}, {{"lower", BoolAttr(true)}, {"adjoint", BoolAttr(true)}});
  GValue ga = Adjoint(
      o, o.Op1("MatrixTriangularSolve", {l, Adjoint(o, x)}, {{"lower", BoolAttr(true)}, {"adjoint", BoolAttr(true)}}));
  g.set_grad(0, Scale(o, o.Add(ga, Adjoint(o, ga)), 0.5));
  return Status::OK();
}

// input[p] = L U: dA_p = L^-H (tril_strict(L^H dL) + triu(dU U^H)) U^-H, rows scattered back by p.
Status LuGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue lu = g.output(0), p = g.output(1), dlu = g.grad(0);
  const PartialShape s = o.shape(lu);
  if (!s.known_rank() || s.rank() < 2 || s.dim(s.rank() - 1) < 0)
    return Unimplemented("Lu gradient: needs the static matrix size, got shape ", s.ToString());
  const int64_t n = s.dim(s.rank() - 1);
  GValue l = SetDiag(o, BandPart(o, lu, -1, 0), o.OnesLike(DiagPart(o, lu)));
  GValue u = BandPart(o, lu, 0, -1);
  GValue dl = o.Sub(BandPart(o, dlu, -1, 0), BandPart(o, dlu, 0, 0));
  GValue du = BandPart(o, dlu, 0, -1);
  GValue ltdl = MatMul(o, l, dl, true, false);
  GValue mid = o.Add(o.Sub(BandPart(o, ltdl, -1, 0), BandPart(o, ltdl, 0, 0)),
                     BandPart(o, MatMul(o, du, u, false, true), 0, -1));
  GValue x = o.Op1("MatrixTriangularSolve", {l, mid}, {{"lower", BoolAttr(true)}, {"adjoint", BoolAttr(true)}});
  GValue dap = Adjoint(
      o,
      o.Op1("MatrixTriangularSolve", {u, Adjoint(o, x)}, {{"lower", BoolAttr(false)}, {"adjoint", BoolAttr(false)}}));
  const DataType dt = DtypeOf(o, dlu);
  GValue perm = o.Op1("OneHot", {p, o.Int(n), o.Scalar(1, dt), o.Scalar(0, dt)}, {{"axis", IntAttr(-1)}});
  g.set_grad(0, MatMul(o, perm, dap, true, false));
  return Status::OK();
}

Status BandPartGrad(GradContext& g) {
  g.set_grad(0, g.ops().Op1("MatrixBandPart", {g.grad(0), g.input(1), g.input(2)}));
  return Status::OK();
}

Status DiagV3Grad(GradContext& g) {
  GradScope& o = g.ops();
  g.set_grad(0,
             o.Op1("MatrixDiagPartV3", {g.grad(0), g.input(1), o.ZerosLike(g.input(4))}, {{"align", g.attr("align")}}));
  return Status::OK();
}

Status DiagPartV3Grad(GradContext& g) {
  GradScope& o = g.ops();
  g.set_grad(0,
             o.Op1("MatrixSetDiagV3", {o.ZerosLike(g.input(0)), g.grad(0), g.input(1)}, {{"align", g.attr("align")}}));
  return Status::OK();
}

Status SetDiagV3Grad(GradContext& g) {
  GradScope& o = g.ops();
  GValue dz = g.grad(0);
  const AttrMap align = {{"align", g.attr("align")}};
  g.set_grad(0, o.Op1("MatrixSetDiagV3", {dz, o.ZerosLike(g.input(1)), g.input(2)}, align));
  g.set_grad(1, o.Op1("MatrixDiagPartV3", {dz, g.input(2), o.Scalar(0, o.dtype(dz))}, align));
  return Status::OK();
}

// d(a x b) = da x b + a x db: ga = b x g, gb = g x a.
Status CrossGrad(GradContext& g) {
  GradScope& o = g.ops();
  g.set_grad(0, o.Op1("Cross", {g.input(1), g.grad(0)}));
  g.set_grad(1, o.Op1("Cross", {g.grad(0), g.input(0)}));
  return Status::OK();
}

}  // namespace

TX_REGISTER_GRADIENT("MatMul", MatMulGrad);
TX_REGISTER_GRADIENT("BatchMatMulV2", BatchMatMulGrad);
TX_REGISTER_GRADIENT("MatrixSolve", MatrixSolveGrad);
TX_REGISTER_GRADIENT("MatrixInverse", MatrixInverseGrad);
TX_REGISTER_GRADIENT("MatrixDeterminant", DeterminantGrad);
TX_REGISTER_GRADIENT("LogMatrixDeterminant", DeterminantGrad);
TX_REGISTER_GRADIENT("MatrixTriangularSolve", TriangularSolveGrad);
TX_REGISTER_GRADIENT("Cholesky", CholeskyGrad);
TX_REGISTER_GRADIENT("Lu", LuGrad);
TX_REGISTER_GRADIENT("MatrixBandPart", BandPartGrad);
TX_REGISTER_GRADIENT("MatrixDiagV3", DiagV3Grad);
TX_REGISTER_GRADIENT("MatrixDiagPartV3", DiagPartV3Grad);
TX_REGISTER_GRADIENT("MatrixSetDiagV3", SetDiagV3Grad);
TX_REGISTER_GRADIENT("Cross", CrossGrad);

}  // namespace tx
