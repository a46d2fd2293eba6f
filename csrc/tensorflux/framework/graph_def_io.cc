// GraphDef export and the single-value codecs of graph_def_io.h; import is in
// graph_def_import.cc.
#include "tensorflux/framework/graph_def_io.h"

#include "tensorflux/framework/proto_codec.h"

namespace tx {

using wire::Reader;
using wire::Writer;

namespace {

// "name" for output 0, "name:k" otherwise.
std::string EndpointString(const Endpoint& e) {
  if (e.index == 0) return e.node->name();
  return e.node->name() + ":" + std::to_string(e.index);
}

void EncodeNode(const Node& node, Writer* w) {
  std::vector<std::string> inputs;
  inputs.reserve(node.inputs().size() + node.control_inputs().size());
  for (const Endpoint& e : node.inputs()) inputs.push_back(EndpointString(e));
  for (const Node* c : node.control_inputs()) inputs.push_back("^" + c->name());
  codec::EncodeNodeDefParts(node.name(), node.op_type(), inputs, node.requested_device(), node.attrs(), w);
}

}  // namespace

// Adds "invalid <what>: " to wire-level (DataLoss) errors; other errors already say what is wrong.
static Status WithContext(const Status& s, const char* what) {
  return s.code() == Code::kDataLoss ? s.WithPrefix(std::string("invalid ") + what + ": ") : s;
}

Status ExportNodeDef(const Node& node, std::string* bytes) {
  Writer w;
  EncodeNode(node, &w);
  *bytes = w.Release();
  return Status::OK();
}

Status ExportGraphDef(const Graph& graph, std::string* bytes) {
  Writer w;
  for (const Node* n : graph.Nodes()) {
    Writer sub;
    EncodeNode(*n, &sub);
    w.WriteBytesField(1, sub.data());
  }
  const std::string library = graph.library().Serialize();
  if (!library.empty()) w.WriteBytesField(2, library);
  Writer versions;
  if (graph.producer_version() != 0) versions.WriteInt32Field(1, graph.producer_version());
  if (graph.min_consumer_version() != 0) versions.WriteInt32Field(2, graph.min_consumer_version());
  w.WriteBytesField(4, versions.data());
  *bytes = w.Release();
  return Status::OK();
}

std::string SerializeOpDef(const OpDef& def) {
  Writer w;
  codec::EncodeOpDef(def, &w);
  return w.Release();
}

std::string SerializeOpList(const std::vector<const OpRegistration*>& ops) {
  Writer w;
  for (const OpRegistration* reg : ops) {
    if (reg == nullptr) continue;
    w.WriteBytesField(1, SerializeOpDef(reg->def));
  }
  return w.Release();
}

Status ParseAttrValue(const std::string& bytes, AttrValue* out) {
  Reader r(bytes);
  AttrValue v;
  TX_RETURN_IF_ERROR(WithContext(codec::DecodeAttrValue(r, &v), "AttrValue"));
  *out = std::move(v);
  return Status::OK();
}

std::string SerializeAttrValue(const AttrValue& v) {
  Writer w;
  codec::EncodeAttrValue(v, &w);
  return w.Release();
}

Status ParseTensorProto(const std::string& bytes, Tensor* out) {
  Reader r(bytes);
  Tensor t;
  TX_RETURN_IF_ERROR(WithContext(codec::DecodeTensor(r, &t), "TensorProto"));
  *out = std::move(t);
  return Status::OK();
}

std::string SerializeTensorProto(const Tensor& t) {
  Writer w;
  codec::EncodeTensor(t, &w);
  return w.Release();
}

Status ParseTensorShapeProto(const std::string& bytes, PartialShape* out) {
  Reader r(bytes);
  PartialShape s;
  TX_RETURN_IF_ERROR(WithContext(codec::DecodeTensorShape(r, &s), "TensorShapeProto"));
  *out = std::move(s);
  return Status::OK();
}

std::string SerializeTensorShapeProto(const PartialShape& s) {
  Writer w;
  codec::EncodeTensorShape(s, &w);
  return w.Release();
}

}  // namespace tx
