// Gradients of MatMul and BatchMatMulV2, for every transpose/adjoint combination; batch
// gradients are summed over broadcast batch dimensions.
#include "tensorflux/gradients/gradient_registry.h"

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
  GValue a = g.input(0), b = g.input(1), dz = g.grad(0);
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

}  // namespace

TX_REGISTER_GRADIENT("MatMul", MatMulGrad);
TX_REGISTER_GRADIENT("BatchMatMulV2", BatchMatMulGrad);

}  // namespace tx
