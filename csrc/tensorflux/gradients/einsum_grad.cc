// Gradient of Einsum: each operand's gradient is itself an einsum of the output gradient with the
// other operand, followed by broadcasting over labels summed only inside that operand, summing
// over broadcast ellipsis dims, and re-embedding repeated labels as diagonals.
#include <algorithm>
#include <vector>

#include "tensorflux/gradients/gradient_registry.h"
#include "tensorflux/ops/einsum_util.h"

namespace tx {
namespace {

using einsum::kEllipsis;

bool Has(const std::vector<int>& v, int l) { return std::find(v.begin(), v.end(), l) != v.end(); }

std::vector<int> Unique(const std::vector<int>& v) {
  std::vector<int> out;
  for (int l : v)
    if (!Has(out, l)) out.push_back(l);
  return out;
}

GValue Einsum(GradScope& o, const std::vector<GValue>& inputs, const einsum::Equation& eq) {
  std::vector<GValue> out = o.Op("Einsum", {inputs}, {{"equation", StringAttr(einsum::Format(eq))}});
  return out.empty() ? GValue() : out[0];
}

// The gradient of operand `x` (labels `xl`) given `g_red`, the einsum of the output gradient into
// the labels `red` (x's distinct labels that the output or the other operand use, in x's order).
GValue Expand(GradScope& o, GValue x, const std::vector<int>& xl, GValue g_red, std::vector<int> red) {
  if (!g_red.valid()) return GValue();
  const std::vector<int> ux = Unique(xl);
  const PartialShape xs = o.shape(x), gs = o.shape(g_red);
  const bool need_static = red != ux || Has(xl, kEllipsis);
  if (need_static && (!xs.fully_defined() || !gs.fully_defined())) {
    o.Fail(Unimplemented("Einsum gradient: needs static shapes for this equation (input ", xs.ToString(), ")"));
    return GValue();
  }
  // Ellipsis: sum the gradient over dims that broadcasting added or stretched.
  if (Has(red, kEllipsis)) {
    const int e = static_cast<int>(std::find(red.begin(), red.end(), kEllipsis) - red.begin());
    const int named_x = static_cast<int>(xl.size()) - 1;
    const int ex = xs.rank() - named_x;  // x's ellipsis rank
    const int eg = gs.rank() - (static_cast<int>(red.size()) - 1);  // gradient's ellipsis rank
    const int xe = static_cast<int>(std::find(xl.begin(), xl.end(), kEllipsis) - xl.begin());
    std::vector<int64_t> keep_axes, drop_axes;
    for (int k = 0; k < eg; ++k) {
      const int ax = e + k;
      if (k < eg - ex)
        drop_axes.push_back(ax);
      else if (xs.dim(xe + k - (eg - ex)) == 1 && gs.dim(ax) != 1)
        keep_axes.push_back(ax);
    }
    if (!keep_axes.empty()) g_red = o.Sum(g_red, keep_axes, true);
    if (!drop_axes.empty()) g_red = o.Sum(g_red, drop_axes, false);
  }
  // Labels summed only inside x: broadcast along them.
  if (red != ux) {
    std::vector<int64_t> with_ones, full;
    const int xe = Has(xl, kEllipsis) ? static_cast<int>(std::find(xl.begin(), xl.end(), kEllipsis) - xl.begin()) : -1;
    const int ex = xs.rank() - (static_cast<int>(xl.size()) - (xe >= 0 ? 1 : 0));
    auto dims_of = [&](int l) {  // x's dims for label l (all ellipsis dims for kEllipsis)
      std::vector<int64_t> d;
      int axis = 0;
      for (int ll : xl) {
        const int span = ll == kEllipsis ? ex : 1;
        if (ll == l) {
          for (int k = 0; k < span; ++k) d.push_back(xs.dim(axis + k));
          return d;
        }
        axis += span;
      }
      return d;
    };
    for (int l : ux) {
      const std::vector<int64_t> d = dims_of(l);
      full.insert(full.end(), d.begin(), d.end());
      if (Has(red, l))
        with_ones.insert(with_ones.end(), d.begin(), d.end());
      else
        with_ones.insert(with_ones.end(), d.size(), 1);
    }
    g_red = o.Reshape(g_red, o.Ints(with_ones));
    g_red = o.Op1("BroadcastTo", {g_red, o.Ints(full)});
    red = ux;
  }
  // Repeated labels in x: place the gradient on the diagonal.
  if (ux.size() != xl.size()) {
    einsum::Equation eq;
    eq.inputs = {ux};
    eq.output = xl;
    g_red = Einsum(o, {g_red}, eq);
  }
  return g_red;
}

Status EinsumGrad(GradContext& g) {
  GradScope& o = g.ops();
  einsum::Equation eq;
  TX_RETURN_IF_ERROR(einsum::Parse(g.attr_string("equation"), g.num_inputs(), &eq));
  GValue dz = g.grad(0);
  for (int i = 0; i < g.num_inputs(); ++i) {
    if (!g.needs_grad(i)) continue;
    const std::vector<int>& xl = eq.inputs[i];
    const std::vector<int>* other = g.num_inputs() == 2 ? &eq.inputs[1 - i] : nullptr;
    std::vector<int> red;
    for (int l : Unique(xl))
      if (l == kEllipsis || Has(eq.output, l) || (other && Has(*other, l))) red.push_back(l);
    einsum::Equation ge;
    ge.inputs = {eq.output};
    std::vector<GValue> ins = {dz};
    if (other) {
      ge.inputs.push_back(*other);
      ins.push_back(g.input(1 - i));
    }
    ge.output = red;
    g.set_grad(i, Expand(o, g.input(i), xl, Einsum(o, ins, ge), red));
  }
  return Status::OK();
}

}  // namespace

TX_REGISTER_GRADIENT("Einsum", EinsumGrad);

}  // namespace tx
