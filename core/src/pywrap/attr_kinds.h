// Codes the binding and tensorflux/_src/op_def_library.py share, defined once here and exported
// to Python as _tx_c.ATTR_KINDS and _tx_c.INPUT_KINDS (the generators read them from there).
#pragma once

#include "tensorflux/c/c_api.h"

namespace txpy {

// Attr kinds of compact attr lists and op_get_attr results: the C API's TX_AttrType numbering
// (TensorFlow's TF_AttrType); a list is its element kind | kList; kProto is a serialized AttrValue.
enum AttrKind : int {
  kString = TX_ATTR_STRING,
  kInt = TX_ATTR_INT,
  kFloat = TX_ATTR_FLOAT,
  kBool = TX_ATTR_BOOL,
  kType = TX_ATTR_TYPE,
  kShape = TX_ATTR_SHAPE,
  kTensor = TX_ATTR_TENSOR,
  kFunc = TX_ATTR_FUNC,
  kList = 16,
  kProto = 32,
};

// How an op input argument takes its tensors: one, a list sized by a number attr, or a list typed
// by a type-list attr.
enum InputKind : int { kSingle = 0, kNumberList = 1, kTypeList = 2 };

}  // namespace txpy
