// AttrValue, NodeDef, VersionDef, GraphDef and OpDef codecs (see proto_codec.h).
#include "tensorflux/framework/proto_codec.h"

#include <memory>

namespace tx {
namespace codec {

using wire::Reader;
using wire::WireType;
using wire::Writer;

namespace {

// Accepts DT_INVALID, every DataType and every reference type (base + 100).
Status CheckAttrType(int64_t v, DataType* out) {
  if (v != 0 && !IsValidDataType(static_cast<int>(v)) && !(v > 100 && IsValidDataType(static_cast<int>(v - 100))))
    return InvalidArgument("invalid DataType value ", v);
  *out = static_cast<DataType>(v);
  return Status::OK();
}

}  // namespace

// One map<string, AttrValue> entry: key = 1, value = 2.
Status DecodeAttrEntry(Reader& r, std::string* key, AttrValue* value) {
  key->clear();
  *value = AttrValue();
  while (!r.done()) {
    int field;
    WireType wt;
    TX_RETURN_IF_ERROR(r.ReadTag(&field, &wt));
    if (field == 1) {
      TX_RETURN_IF_ERROR(r.ReadString(wt, key));
    } else if (field == 2) {
      Reader sub("");
      TX_RETURN_IF_ERROR(r.ReadSubMessage(wt, &sub));
      TX_RETURN_IF_ERROR(DecodeAttrValue(sub, value));
    } else {
      TX_RETURN_IF_ERROR(r.Skip(wt));
    }
  }
  return Status::OK();
}

void EncodeAttrEntry(int field, const std::string& key, const AttrValue& value, Writer* w) {
  Writer entry, v;
  entry.WriteBytesField(1, key);
  EncodeAttrValue(value, &v);
  entry.WriteBytesField(2, v.data());
  w->WriteBytesField(field, entry.data());
}

namespace {

// AttrValue.ListValue: s=2, i=3, f=4, b=5, type=6, shape=7, tensor=8, func=9 (appends).
Status DecodeListValue(Reader& r, AttrValue::List* list) {
  std::vector<uint64_t> ints;
  std::vector<uint32_t> floats;
  while (!r.done()) {
    int field;
    WireType wt;
    TX_RETURN_IF_ERROR(r.ReadTag(&field, &wt));
    switch (field) {
      case 2: {
        std::string s;
        TX_RETURN_IF_ERROR(r.ReadString(wt, &s));
        list->s.push_back(std::move(s));
        break;
      }
      case 3:
      case 5:
      case 6:
        ints.clear();
        TX_RETURN_IF_ERROR(r.ReadRepeatedVarint(wt, &ints));
        for (uint64_t v : ints) {
          if (field == 3) {
            list->i.push_back(static_cast<int64_t>(v));
          } else if (field == 5) {
            list->b.push_back(v != 0);
          } else {
            DataType t;
            TX_RETURN_IF_ERROR(CheckAttrType(static_cast<int32_t>(static_cast<uint32_t>(v)), &t));
            list->type.push_back(t);
          }
        }
        break;
      case 4:
        floats.clear();
        TX_RETURN_IF_ERROR(r.ReadRepeatedFixed32(wt, &floats));
        for (uint32_t v : floats) list->f.push_back(wire::BitsToFloat(v));
        break;
      case 7:
      case 8:
      case 9: {
        Reader sub("");
        TX_RETURN_IF_ERROR(r.ReadSubMessage(wt, &sub));
        if (field == 7) {
          PartialShape s;
          TX_RETURN_IF_ERROR(DecodeTensorShape(sub, &s));
          list->shape.push_back(std::move(s));
        } else if (field == 8) {
          Tensor t;
          TX_RETURN_IF_ERROR(DecodeTensor(sub, &t));
          list->tensor.push_back(std::move(t));
        } else {
          NameAttrList f;
          TX_RETURN_IF_ERROR(DecodeNameAttrList(sub, &f));
          list->func.push_back(std::move(f));
        }
        break;
      }
      default: TX_RETURN_IF_ERROR(r.Skip(wt));
    }
  }
  return Status::OK();
}

void EncodeListValue(const AttrValue::List& l, Writer* w) {
  for (const std::string& s : l.s) w->WriteBytesField(2, s);
  std::vector<uint64_t> ints;
  for (int64_t v : l.i) ints.push_back(static_cast<uint64_t>(v));
  w->WritePackedVarints(3, ints);
  std::vector<uint32_t> floats;
  for (float v : l.f) floats.push_back(wire::FloatBits(v));
  w->WritePackedFixed32(4, floats);
  ints.clear();
  for (bool v : l.b) ints.push_back(v ? 1 : 0);
  w->WritePackedVarints(5, ints);
  ints.clear();
  for (DataType t : l.type) ints.push_back(static_cast<uint64_t>(static_cast<int64_t>(t)));
  w->WritePackedVarints(6, ints);
  for (const PartialShape& s : l.shape) {
    Writer sub;
    EncodeTensorShape(s, &sub);
    w->WriteBytesField(7, sub.data());
  }
  for (const Tensor& t : l.tensor) {
    Writer sub;
    EncodeTensor(t, &sub);
    w->WriteBytesField(8, sub.data());
  }
  for (const NameAttrList& f : l.func) {
    Writer sub;
    EncodeNameAttrList(f, &sub);
    w->WriteBytesField(9, sub.data());
  }
}

}  // namespace

// NameAttrList: name = 1, attr = 2 (map).
Status DecodeNameAttrList(Reader& r, NameAttrList* out) {
  while (!r.done()) {
    int field;
    WireType wt;
    TX_RETURN_IF_ERROR(r.ReadTag(&field, &wt));
    if (field == 1) {
      TX_RETURN_IF_ERROR(r.ReadString(wt, &out->name));
    } else if (field == 2) {
      Reader sub("");
      TX_RETURN_IF_ERROR(r.ReadSubMessage(wt, &sub));
      std::string key;
      AttrValue value;
      TX_RETURN_IF_ERROR(DecodeAttrEntry(sub, &key, &value));
      out->attr[key] = std::move(value);
    } else {
      TX_RETURN_IF_ERROR(r.Skip(wt));
    }
  }
  return Status::OK();
}

void EncodeNameAttrList(const NameAttrList& f, Writer* w) {
  if (!f.name.empty()) w->WriteBytesField(1, f.name);
  for (const auto& kv : f.attr) EncodeAttrEntry(2, kv.first, kv.second, w);
}

// ----------------------------------------------------------------------------
// AttrValue: list=1, s=2, i=3, f=4, b=5, type=6, shape=7, tensor=8, placeholder=9, func=10.

Status DecodeAttrValue(Reader& r, AttrValue* out) {
  *out = AttrValue();
  while (!r.done()) {
    int field;
    WireType wt;
    TX_RETURN_IF_ERROR(r.ReadTag(&field, &wt));
    if (field < 1 || field > 10) {
      TX_RETURN_IF_ERROR(r.Skip(wt));
      continue;
    }
    // A oneof: a later member replaces an earlier one; a repeated `list` merges into itself.
    const bool merge_list = field == 1 && out->kind == AttrValue::Kind::kList;
    if (!merge_list) *out = AttrValue();
    switch (field) {
      case 1: {
        Reader sub("");
        TX_RETURN_IF_ERROR(r.ReadSubMessage(wt, &sub));
        out->kind = AttrValue::Kind::kList;
        TX_RETURN_IF_ERROR(DecodeListValue(sub, &out->list));
        break;
      }
      case 2:
        out->kind = AttrValue::Kind::kString;
        TX_RETURN_IF_ERROR(r.ReadString(wt, &out->s));
        break;
      case 3:
        out->kind = AttrValue::Kind::kInt;
        TX_RETURN_IF_ERROR(r.ReadInt64(wt, &out->i));
        break;
      case 4:
        out->kind = AttrValue::Kind::kFloat;
        TX_RETURN_IF_ERROR(r.ReadFloat(wt, &out->f));
        break;
      case 5:
        out->kind = AttrValue::Kind::kBool;
        TX_RETURN_IF_ERROR(r.ReadBool(wt, &out->b));
        break;
      case 6: {
        int32_t v;
        TX_RETURN_IF_ERROR(r.ReadInt32(wt, &v));
        out->kind = AttrValue::Kind::kType;
        TX_RETURN_IF_ERROR(CheckAttrType(v, &out->type));
        break;
      }
      case 7: {
        Reader sub("");
        TX_RETURN_IF_ERROR(r.ReadSubMessage(wt, &sub));
        out->kind = AttrValue::Kind::kShape;
        TX_RETURN_IF_ERROR(DecodeTensorShape(sub, &out->shape));
        break;
      }
      case 8: {
        Reader sub("");
        TX_RETURN_IF_ERROR(r.ReadSubMessage(wt, &sub));
        out->kind = AttrValue::Kind::kTensor;
        TX_RETURN_IF_ERROR(DecodeTensor(sub, &out->tensor));
        break;
      }
      case 9:
        out->kind = AttrValue::Kind::kPlaceholder;
        TX_RETURN_IF_ERROR(r.ReadString(wt, &out->s));
        break;
      case 10: {
        Reader sub("");
        TX_RETURN_IF_ERROR(r.ReadSubMessage(wt, &sub));
        auto f = std::make_shared<NameAttrList>();
        TX_RETURN_IF_ERROR(DecodeNameAttrList(sub, f.get()));
        out->kind = AttrValue::Kind::kFunc;
        out->func = std::move(f);
        break;
      }
    }
  }
  return Status::OK();
}

void EncodeAttrValue(const AttrValue& v, Writer* w) {
  switch (v.kind) {
    case AttrValue::Kind::kNone: break;
    case AttrValue::Kind::kList: {
      Writer sub;
      EncodeListValue(v.list, &sub);
      w->WriteBytesField(1, sub.data());  // written even when empty: it marks the oneof as set
      break;
    }
    case AttrValue::Kind::kString: w->WriteBytesField(2, v.s); break;
    case AttrValue::Kind::kInt: w->WriteInt64Field(3, v.i); break;
    case AttrValue::Kind::kFloat: w->WriteFloatField(4, v.f); break;
    case AttrValue::Kind::kBool: w->WriteBoolField(5, v.b); break;
    case AttrValue::Kind::kType: w->WriteInt32Field(6, static_cast<int32_t>(v.type)); break;
    case AttrValue::Kind::kShape: {
      Writer sub;
      EncodeTensorShape(v.shape, &sub);
      w->WriteBytesField(7, sub.data());
      break;
    }
    case AttrValue::Kind::kTensor: {
      Writer sub;
      EncodeTensor(v.tensor, &sub);
      w->WriteBytesField(8, sub.data());
      break;
    }
    case AttrValue::Kind::kPlaceholder: w->WriteBytesField(9, v.s); break;
    case AttrValue::Kind::kFunc: {
      Writer sub;
      if (v.func) EncodeNameAttrList(*v.func, &sub);
      w->WriteBytesField(10, sub.data());
      break;
    }
  }
}

// ----------------------------------------------------------------------------
// NodeDef: name=1, op=2, input=3, device=4, attr=5; experimental fields 6 and 7 are skipped.

Status DecodeNodeDef(Reader& r, NodeDefProto* out) {
  std::vector<Reader> attr_entries;  // decoded once the name is known, for error messages
  Status s;
  while (s.ok() && !r.done()) {
    int field;
    WireType wt;
    const size_t start = r.position();
    s = r.ReadTag(&field, &wt);
    if (!s.ok()) break;
    switch (field) {
      case 1: s = r.ReadString(wt, &out->name); break;
      case 2: s = r.ReadString(wt, &out->op); break;
      case 3: {
        std::string in;
        s = r.ReadString(wt, &in);
        out->input.push_back(std::move(in));
        break;
      }
      case 4: s = r.ReadString(wt, &out->device); break;
      case 5: {
        Reader sub("");
        s = r.ReadSubMessage(wt, &sub);
        attr_entries.push_back(sub);
        break;
      }
      default:
        s = r.Skip(wt);
        if (s.ok()) out->unknown_fields.append(r.Slice(start, r.position()));
    }
  }
  for (size_t k = 0; s.ok() && k < attr_entries.size(); ++k) {
    std::string key;
    AttrValue value;
    s = DecodeAttrEntry(attr_entries[k], &key, &value);
    if (!s.ok()) {
      s = s.WithPrefix("attr '" + key + "': ");
    } else if (key.empty()) {
      s = InvalidArgument("attr with an empty name");
    } else {
      out->attr[key] = std::move(value);  // a repeated key keeps its last value, as a proto map does
    }
  }
  if (!s.ok()) {
    if (s.code() == Code::kDataLoss) s = s.WithPrefix("malformed NodeDef: ");
    return out->name.empty() ? s : s.WithPrefix("[" + out->name + "] ");
  }
  return Status::OK();
}

void EncodeNodeDefParts(const std::string& name, const std::string& op, const std::vector<std::string>& input,
                        const std::string& device, const AttrMap& attr, Writer* w) {
  if (!name.empty()) w->WriteBytesField(1, name);
  if (!op.empty()) w->WriteBytesField(2, op);
  for (const std::string& in : input) w->WriteBytesField(3, in);
  if (!device.empty()) w->WriteBytesField(4, device);
  for (const auto& kv : attr) EncodeAttrEntry(5, kv.first, kv.second, w);
}

void EncodeNodeDef(const NodeDefProto& n, Writer* w) {
  EncodeNodeDefParts(n.name, n.op, n.input, n.device, n.attr, w);
  if (!n.unknown_fields.empty()) w->WriteRaw(n.unknown_fields);
}

// ----------------------------------------------------------------------------
// VersionDef (producer=1, min_consumer=2, bad_consumers=3) and GraphDef.

static Status DecodeVersionDef(Reader& r, VersionDefProto* out) {
  while (!r.done()) {
    int field;
    WireType wt;
    TX_RETURN_IF_ERROR(r.ReadTag(&field, &wt));
    if (field == 1) {
      TX_RETURN_IF_ERROR(r.ReadInt32(wt, &out->producer));
    } else if (field == 2) {
      TX_RETURN_IF_ERROR(r.ReadInt32(wt, &out->min_consumer));
    } else if (field == 3) {
      std::vector<uint64_t> v;
      TX_RETURN_IF_ERROR(r.ReadRepeatedVarint(wt, &v));
      for (uint64_t x : v) out->bad_consumers.push_back(static_cast<int32_t>(static_cast<uint32_t>(x)));
    } else {
      TX_RETURN_IF_ERROR(r.Skip(wt));
    }
  }
  return Status::OK();
}

Status DecodeGraphDef(std::string_view bytes, GraphDefProto* out) {
  Reader r(bytes);
  while (!r.done()) {
    int field;
    WireType wt;
    TX_RETURN_IF_ERROR(r.ReadTag(&field, &wt));
    if (field == 1) {
      Reader sub("");
      TX_RETURN_IF_ERROR(r.ReadSubMessage(wt, &sub));
      NodeDefProto n;
      TX_RETURN_IF_ERROR(DecodeNodeDef(sub, &n));
      out->node.push_back(std::move(n));
    } else if (field == 2) {
      // Repeated occurrences of a message field merge, which on the wire is concatenation.
      if (wt != wire::kLengthDelimited) return DataLoss("GraphDef.library must be length-delimited");
      std::string_view lib;
      TX_RETURN_IF_ERROR(r.ReadBytes(&lib));
      out->library.append(lib.data(), lib.size());
    } else if (field == 4) {
      Reader sub("");
      TX_RETURN_IF_ERROR(r.ReadSubMessage(wt, &sub));
      out->has_versions = true;
      TX_RETURN_IF_ERROR(DecodeVersionDef(sub, &out->versions));
    } else {
      TX_RETURN_IF_ERROR(r.Skip(wt));  // version (3, deprecated), debug_info (5), unknown
    }
  }
  return Status::OK();
}

std::string EncodeGraphDef(const GraphDefProto& g) {
  Writer w;
  for (const NodeDefProto& n : g.node) {
    Writer sub;
    EncodeNodeDef(n, &sub);
    w.WriteBytesField(1, sub.data());
  }
  if (!g.library.empty()) w.WriteBytesField(2, g.library);
  Writer v;
  if (g.versions.producer != 0) v.WriteInt32Field(1, g.versions.producer);
  if (g.versions.min_consumer != 0) v.WriteInt32Field(2, g.versions.min_consumer);
  std::vector<uint64_t> bad;
  for (int32_t b : g.versions.bad_consumers) bad.push_back(static_cast<uint64_t>(static_cast<int64_t>(b)));
  v.WritePackedVarints(3, bad);
  w.WriteBytesField(4, v.data());
  return w.Release();
}

}  // namespace codec
}  // namespace tx
