// Message codecs over the wire reader/writer: TensorShapeProto, TensorProto, AttrValue,
// NodeDef, VersionDef, GraphDef and OpDef, field numbers as in reference/tf-compat.md §A.
// Engine-internal; the public entry points are in graph_def_io.h.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tensorflux/core/shape.h"
#include "tensorflux/core/status.h"
#include "tensorflux/core/tensor.h"
#include "tensorflux/framework/attr_value.h"
#include "tensorflux/framework/op_def.h"
#include "tensorflux/framework/proto_wire.h"

namespace tx {
namespace codec {

// Largest tensor (in bytes) that a TensorProto's compact *_val encoding may expand to; a
// guard against a few bytes of input asking for gigabytes. Process-wide, default 4 GiB.
uint64_t MaxExpandedTensorBytes();
// Changes the limit above (tests lower it so that fuzzed inputs stay cheap).
void SetMaxExpandedTensorBytes(uint64_t bytes);

// TensorShapeProto <-> PartialShape (-1 dims are unknown; unknown_rank needs no dims).
Status DecodeTensorShape(wire::Reader& r, PartialShape* out);
// Decodes one occurrence of a TensorShapeProto field into *dims and *unknown_rank, merged with what
// earlier occurrences of the field said, as protobuf merges repeated occurrences of a message
// field (the dims concatenate, a later unknown_rank wins); FinishTensorShape makes the shape.
Status MergeTensorShape(wire::Reader& r, std::vector<int64_t>* dims, bool* unknown_rank);
Status FinishTensorShape(std::vector<int64_t> dims, bool unknown_rank, PartialShape* out);
void EncodeTensorShape(const PartialShape& s, wire::Writer* w);

// TensorProto <-> Tensor. Decoding accepts tensor_content or the dtype's *_val field (short
// *_val fields repeat their last value); writing always uses tensor_content.
Status DecodeTensor(wire::Reader& r, Tensor* out);
void EncodeTensor(const Tensor& t, wire::Writer* w);

// AttrValue (every oneof member, lists, NameAttrList funcs, placeholders).
Status DecodeAttrValue(wire::Reader& r, AttrValue* out);
void EncodeAttrValue(const AttrValue& v, wire::Writer* w);

// NameAttrList: name = 1, attr = 2 (map<string, AttrValue>).
Status DecodeNameAttrList(wire::Reader& r, NameAttrList* out);
void EncodeNameAttrList(const NameAttrList& f, wire::Writer* w);

// One entry of a map<string, AttrValue> (key = 1, value = 2), read from its sub-message.
Status DecodeAttrEntry(wire::Reader& r, std::string* key, AttrValue* value);
// Appends one map<string, AttrValue> entry as field `field` of the message `w` builds.
void EncodeAttrEntry(int field, const std::string& key, const AttrValue& value, wire::Writer* w);

// A NodeDef as it appears on the wire (inputs still as strings).
struct NodeDefProto {
  std::string name;
  std::string op;
  std::vector<std::string> input;
  std::string device;
  AttrMap attr;
  // Fields 6 and 7 (experimental_debug_info, experimental_type) and unknown fields, verbatim
  // (written after `attr`, so field order is kept).
  std::string unknown_fields;
};
// Decodes a NodeDef; errors carry the node name ("[name] ...") when it is known.
Status DecodeNodeDef(wire::Reader& r, NodeDefProto* out);
void EncodeNodeDef(const NodeDefProto& n, wire::Writer* w);
// Encodes a NodeDef from its parts (lets the exporter avoid copying a node's attrs).
void EncodeNodeDefParts(const std::string& name, const std::string& op, const std::vector<std::string>& input,
                        const std::string& device, const AttrMap& attr, wire::Writer* w);

// VersionDef.
struct VersionDefProto {
  int32_t producer = 0;
  int32_t min_consumer = 0;
  std::vector<int32_t> bad_consumers;
};

// A GraphDef: nodes decoded, the FunctionDefLibrary kept as raw bytes.
struct GraphDefProto {
  std::vector<NodeDefProto> node;
  std::string library;  // serialized FunctionDefLibrary; empty when absent
  bool has_versions = false;
  VersionDefProto versions;
};
// Decodes a serialized GraphDef (fields 3 and 5 and unknown fields are skipped).
Status DecodeGraphDef(std::string_view bytes, GraphDefProto* out);
// Serializes a GraphDef (node=1, library=2 when non-empty, versions=4).
std::string EncodeGraphDef(const GraphDefProto& g);

// OpDef and its parts, fields in field-number order (ArgDef.unknown_fields last; OpDef's
// deprecation (8) and unknown fields are dropped on decode).
void EncodeOpDef(const OpDef& def, wire::Writer* w);
Status DecodeOpDef(wire::Reader& r, OpDef* out);

}  // namespace codec
}  // namespace tx
