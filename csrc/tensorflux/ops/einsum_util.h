// Einsum equation parsing and shape resolution, shared by Einsum's shape function, its CPU
// kernel and its gradient (one source of the equation's rules).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tensorflux/core/shape.h"
#include "tensorflux/core/status.h"

namespace tx {
namespace einsum {

// Label value that marks the ellipsis in a parsed subscript.
constexpr int kEllipsis = -1;

// A parsed equation: per operand and for the output, labels (letters as their char codes) in
// order, with kEllipsis where "..." stands.
struct Equation {
  std::vector<std::vector<int>> inputs;
  std::vector<int> output;
};

// Parses "ab,bc->ac" style equations (exactly one "->", 1 or 2 operands, letters and at most one
// ellipsis per subscript, output labels drawn from the inputs); `num_inputs` is the op's N.
Status Parse(const std::string& equation, int num_inputs, Equation* out);

// Subscript `labels` with its ellipsis replaced by `ellipsis_rank` labels 1000 + (broadcast rank
// - ellipsis_rank) .. 1000 + broadcast rank - 1, so ellipsis dims of operands align on the right.
std::vector<int> Expand(const std::vector<int>& labels, int ellipsis_rank, int broadcast_rank);

// Resolves the size of every label and the output shape from the input shapes (dims may be -1
// when unknown). Named labels must agree exactly; ellipsis dims broadcast (NumPy rules).
// `expanded` receives each input's labels with ellipses expanded and `out_labels` the output's.
Status ResolveShapes(const Equation& eq, const std::vector<PartialShape>& shapes, PartialShape* output,
                     std::vector<std::vector<int>>* expanded = nullptr, std::vector<int>* out_labels = nullptr);

// Rebuilds an equation string from (possibly expanded) label lists; labels >= 1000 (expanded
// ellipsis dims) must have been removed or mapped back by the caller.
std::string Format(const Equation& eq);

}  // namespace einsum
}  // namespace tx
