// Test helpers for ops with list inputs and for shape-function tables (string and object-type
// tests): an op built over Placeholders with one list argument, and a table checker.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "kernel_test_util.h"

namespace tx_test {

// Runs `op` in t's graph on fresh Placeholders (unknown shapes) fed `inputs`; the first
// `list_inputs` inputs form one list argument (N * T), the rest are single ones.
inline tx::Status RunOpWithList(OpTester* t, const std::string& op, std::vector<tx::Tensor> inputs, int list_inputs,
                                tx::AttrMap attrs, std::vector<tx::Tensor>* outputs) {
  tx::NodeSpec spec;
  spec.name = t->graph().UniqueName("op");
  spec.op_type = op;
  spec.attrs = std::move(attrs);
  tx::NodeSpec::InputArg list;
  list.is_list = true;
  for (size_t i = 0; i < inputs.size(); ++i) {
    tx::NodeSpec src;
    src.name = t->graph().UniqueName("in");
    src.op_type = "Placeholder";
    src.attrs["dtype"] = tx::AttrValue::Type(inputs[i].dtype());
    src.attrs["shape"] = tx::AttrValue::Shape(tx::PartialShape());
    tx::Node* n = nullptr;
    TX_RETURN_IF_ERROR(t->graph().AddNode(std::move(src), &n));
    if (static_cast<int>(i) < list_inputs) {
      list.values.push_back({n, 0});
      if (static_cast<int>(i) == list_inputs - 1) spec.inputs.push_back(list);
    } else {
      tx::NodeSpec::InputArg arg;
      arg.values.push_back({n, 0});
      spec.inputs.push_back(arg);
    }
  }
  tx::Node* node = nullptr;
  TX_RETURN_IF_ERROR(t->graph().AddNode(std::move(spec), &node));
  return t->Run(node, std::move(inputs), outputs);
}

// One shape-function case: op, inputs, attrs, and output 0's shape ("[2,?]") or "!" followed by a
// substring of the expected error.
struct ShapeTableRow {
  std::string op;
  std::vector<InputSpec> inputs;
  tx::AttrMap attrs;
  std::string want;
};

// Adds each row's op to a fresh graph and compares output 0's static shape (or the error);
// returns the number of mismatches, printing each.
inline int CheckShapeTable(const std::vector<ShapeTableRow>& rows) {
  int bad = 0;
  for (const ShapeTableRow& c : rows) {
    OpTester t;
    tx::Node* n = nullptr;
    tx::Status s = t.AddOp(c.op, c.inputs, c.attrs, &n);
    std::string got = s.ok() ? t.graph().OutputShape({n, 0}).ToString() : "!" + s.message();
    const bool is_error = !c.want.empty() && c.want[0] == '!';
    const bool ok = is_error ? (got[0] == '!' && got.find(c.want.substr(1)) != std::string::npos) : got == c.want;
    if (!ok) {
      std::printf("  shape case %s: got '%s', want '%s'\n", c.op.c_str(), got.c_str(), c.want.c_str());
      ++bad;
    }
  }
  return bad;
}

}  // namespace tx_test
