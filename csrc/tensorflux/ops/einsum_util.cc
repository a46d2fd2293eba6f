// Einsum equation parsing and shape resolution.
#include "tensorflux/ops/einsum_util.h"

#include <algorithm>
#include <map>

namespace tx {
namespace einsum {
namespace {

constexpr int kEllipsisBase = 1000;

bool IsLabel(char ch) { return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'); }

Status ParseSubscript(const std::string& eq, const std::string& s, std::vector<int>* out) {
  bool seen_ellipsis = false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char ch = s[i];
    if (ch == '.') {
      if (s.compare(i, 3, "...") != 0)
        return InvalidArgument("Invalid einsum equation '", eq, "': a '.' that is not part of an ellipsis (...)");
      if (seen_ellipsis)
        return InvalidArgument("Invalid einsum equation '", eq, "': more than one ellipsis in subscript '", s, "'");
      seen_ellipsis = true;
      out->push_back(kEllipsis);
      i += 2;
    } else if (IsLabel(ch)) {
      out->push_back(ch);
    } else {
      return InvalidArgument("Invalid einsum equation '", eq, "': character '", std::string(1, ch),
                             "' is not a letter or an ellipsis");
    }
  }
  return Status::OK();
}

}  // namespace

Status Parse(const std::string& equation, int num_inputs, Equation* out) {
  std::string eq;
  for (char ch : equation)
    if (ch != ' ') eq.push_back(ch);
  const size_t arrow = eq.find("->");
  if (arrow == std::string::npos || eq.find("->", arrow + 2) != std::string::npos)
    return InvalidArgument("Expecting exactly one '->' in einsum equation: ", equation);
  const std::string lhs = eq.substr(0, arrow), rhs = eq.substr(arrow + 2);
  std::vector<std::string> subs(1);
  for (char ch : lhs) {
    if (ch == ',')
      subs.emplace_back();
    else
      subs.back().push_back(ch);
  }
  if (subs.size() != 1 && subs.size() != 2)
    return InvalidArgument("Expecting 1 or 2 input subscripts in equation '", equation, "' but got: ", subs.size());
  if (static_cast<int>(subs.size()) != num_inputs)
    return InvalidArgument("Expected ", subs.size(), " inputs for equation '", equation, "' but got: ", num_inputs);
  out->inputs.assign(subs.size(), {});
  out->output.clear();
  for (size_t i = 0; i < subs.size(); ++i) TX_RETURN_IF_ERROR(ParseSubscript(equation, subs[i], &out->inputs[i]));
  TX_RETURN_IF_ERROR(ParseSubscript(equation, rhs, &out->output));
  for (int l : out->output) {
    if (l == kEllipsis) continue;
    bool found = false;
    for (const auto& in : out->inputs) found = found || std::find(in.begin(), in.end(), l) != in.end();
    if (!found)
      return InvalidArgument("Invalid einsum equation '", equation, "': output label '", std::string(1, char(l)),
                             "' does not appear in any input");
  }
  return Status::OK();
}

std::vector<int> Expand(const std::vector<int>& labels, int ellipsis_rank, int broadcast_rank) {
  std::vector<int> out;
  for (int l : labels) {
    if (l != kEllipsis) {
      out.push_back(l);
      continue;
    }
    for (int k = broadcast_rank - ellipsis_rank; k < broadcast_rank; ++k) out.push_back(kEllipsisBase + k);
  }
  return out;
}

Status ResolveShapes(const Equation& eq, const std::vector<PartialShape>& shapes, PartialShape* output,
                     std::vector<std::vector<int>>* expanded, std::vector<int>* out_labels) {
  const size_t n = eq.inputs.size();
  bool known = true;
  int bcast_rank = 0;
  std::vector<int> ell_rank(n, 0);
  for (size_t i = 0; i < n; ++i) {
    const auto& labels = eq.inputs[i];
    const bool has_ell = std::find(labels.begin(), labels.end(), kEllipsis) != labels.end();
    const int named = static_cast<int>(labels.size()) - (has_ell ? 1 : 0);
    if (!shapes[i].known_rank()) {
      known = false;
      continue;
    }
    const int r = shapes[i].rank();
    if (has_ell ? r < named : r != named)
      return InvalidArgument("Expected input ", i, " to have rank ", has_ell ? "at least " : "", named, " but got: ", r,
                             " (shape ", shapes[i].ToString(), ")");
    ell_rank[i] = r - named;
    bcast_rank = std::max(bcast_rank, ell_rank[i]);
  }
  if (!known) {
    *output = PartialShape::Unknown();
    return Status::OK();
  }
  std::map<int, int64_t> size;  // label -> size (-1 unknown); ellipsis labels broadcast
  std::vector<std::vector<int>> exp(n);
  for (size_t i = 0; i < n; ++i) {
    exp[i] = Expand(eq.inputs[i], ell_rank[i], bcast_rank);
    for (size_t a = 0; a < exp[i].size(); ++a) {
      const int l = exp[i][a];
      const int64_t d = shapes[i].dim(static_cast<int>(a));
      auto it = size.find(l);
      if (it == size.end()) {
        size[l] = d;
      } else if (l >= kEllipsisBase) {
        if (d >= 0 && it->second >= 0 && d != it->second && d != 1 && it->second != 1)
          return InvalidArgument("Einsum: the ellipsis dimensions of the inputs do not broadcast: ",
                                 shapes[0].ToString(), " vs. ", shapes[n - 1].ToString());
        if (it->second == 1 || it->second < 0) it->second = (d == 1 && it->second < 0) ? -1 : d;
      } else if (d >= 0 && it->second >= 0 && d != it->second) {
        return InvalidArgument("Expected dimension ", it->second, " at axis ", a, " of the input shaped ",
                               shapes[i].ToString(), " but got dimension ", d, " (label '", std::string(1, char(l)),
                               "')");
      } else if (it->second < 0) {
        it->second = d;
      }
    }
  }
  const bool out_ell = std::find(eq.output.begin(), eq.output.end(), kEllipsis) != eq.output.end();
  if (!out_ell && bcast_rank > 0)
    return InvalidArgument("Output contains ", bcast_rank,
                           " broadcasting dimension(s) but no ellipsis (...) was found in the output subscripts.");
  std::vector<int> ol = Expand(eq.output, bcast_rank, bcast_rank);
  std::vector<int64_t> dims;
  for (int l : ol) dims.push_back(size[l]);
  *output = PartialShape(std::move(dims));
  if (expanded) *expanded = std::move(exp);
  if (out_labels) *out_labels = std::move(ol);
  return Status::OK();
}

std::string Format(const Equation& eq) {
  auto sub = [](const std::vector<int>& labels) {
    std::string s;
    for (int l : labels) s += l == kEllipsis ? std::string("...") : std::string(1, char(l));
    return s;
  };
  std::string s;
  for (size_t i = 0; i < eq.inputs.size(); ++i) s += (i ? "," : "") + sub(eq.inputs[i]);
  return s + "->" + sub(eq.output);
}

}  // namespace einsum
}  // namespace tx
