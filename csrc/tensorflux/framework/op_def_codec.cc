// OpDef codec: name=1, input_arg=2, output_arg=3, attr=4, summary=5, description=6,
// deprecation=8, is_aggregate=16, is_stateful=17, is_commutative=18,
// allows_uninitialized_input=19, control_output=20, is_distributed_communication=21.
// Encoding follows field-number order, as protobuf's serializers do, so FunctionDef signatures
// written here equal TensorFlow's deterministic serialization.
#include "tensorflux/framework/proto_codec.h"

namespace tx {
namespace codec {

using wire::Reader;
using wire::WireType;
using wire::Writer;

namespace {

// ArgDef: name=1, description=2, type=3, type_attr=4, number_attr=5, type_list_attr=6,
// handle_data=7 and experimental_full_type=17 (kept verbatim), is_ref=16.
void EncodeArgDef(const ArgDef& a, Writer* w) {
  if (!a.name.empty()) w->WriteBytesField(1, a.name);
  if (!a.description.empty()) w->WriteBytesField(2, a.description);
  if (a.type != DT_INVALID) w->WriteInt32Field(3, static_cast<int32_t>(a.type));
  if (!a.type_attr.empty()) w->WriteBytesField(4, a.type_attr);
  if (!a.number_attr.empty()) w->WriteBytesField(5, a.number_attr);
  if (!a.type_list_attr.empty()) w->WriteBytesField(6, a.type_list_attr);
  if (a.is_ref) w->WriteBoolField(16, true);
  if (!a.unknown_fields.empty()) w->WriteRaw(a.unknown_fields);
}

Status DecodeArgDef(Reader& r, ArgDef* a) {
  while (!r.done()) {
    const size_t start = r.position();
    int field;
    WireType wt;
    TX_RETURN_IF_ERROR(r.ReadTag(&field, &wt));
    switch (field) {
      case 1: TX_RETURN_IF_ERROR(r.ReadString(wt, &a->name)); break;
      case 2: TX_RETURN_IF_ERROR(r.ReadString(wt, &a->description)); break;
      case 3: {
        int32_t v;
        TX_RETURN_IF_ERROR(r.ReadInt32(wt, &v));
        if (v != 0 && !IsValidDataType(v)) return InvalidArgument("argument '", a->name, "' has invalid type ", v);
        a->type = static_cast<DataType>(v);
        break;
      }
      case 4: TX_RETURN_IF_ERROR(r.ReadString(wt, &a->type_attr)); break;
      case 5: TX_RETURN_IF_ERROR(r.ReadString(wt, &a->number_attr)); break;
      case 6: TX_RETURN_IF_ERROR(r.ReadString(wt, &a->type_list_attr)); break;
      case 16: TX_RETURN_IF_ERROR(r.ReadBool(wt, &a->is_ref)); break;
      default: TX_RETURN_IF_ERROR(r.Skip(wt)); a->unknown_fields.append(r.Slice(start, r.position()));
    }
  }
  return Status::OK();
}

// AttrDef: name=1, type=2, default_value=3, description=4, has_minimum=5, minimum=6,
// allowed_values=7.
void EncodeAttrDef(const AttrDef& a, Writer* w) {
  if (!a.name.empty()) w->WriteBytesField(1, a.name);
  if (!a.type.empty()) w->WriteBytesField(2, a.type);
  if (a.has_default) {
    Writer v;
    EncodeAttrValue(a.default_value, &v);
    w->WriteBytesField(3, v.data());
  }
  if (!a.description.empty()) w->WriteBytesField(4, a.description);
  if (a.has_minimum) w->WriteBoolField(5, true);
  if (a.minimum != 0) w->WriteInt64Field(6, a.minimum);
  if (a.has_allowed_values) {
    Writer v;
    EncodeAttrValue(a.allowed_values, &v);
    w->WriteBytesField(7, v.data());
  }
}

Status DecodeAttrDef(Reader& r, AttrDef* a) {
  while (!r.done()) {
    int field;
    WireType wt;
    TX_RETURN_IF_ERROR(r.ReadTag(&field, &wt));
    if (field == 3 || field == 7) {
      Reader sub("");
      TX_RETURN_IF_ERROR(r.ReadSubMessage(wt, &sub));
      AttrValue* v = field == 3 ? &a->default_value : &a->allowed_values;
      TX_RETURN_IF_ERROR(DecodeAttrValue(sub, v));
      (field == 3 ? a->has_default : a->has_allowed_values) = true;
      continue;
    }
    switch (field) {
      case 1: TX_RETURN_IF_ERROR(r.ReadString(wt, &a->name)); break;
      case 2: TX_RETURN_IF_ERROR(r.ReadString(wt, &a->type)); break;
      case 4: TX_RETURN_IF_ERROR(r.ReadString(wt, &a->description)); break;
      case 5: TX_RETURN_IF_ERROR(r.ReadBool(wt, &a->has_minimum)); break;
      case 6: TX_RETURN_IF_ERROR(r.ReadInt64(wt, &a->minimum)); break;
      default: TX_RETURN_IF_ERROR(r.Skip(wt));
    }
  }
  return Status::OK();
}

template <typename T, typename Decode>
Status DecodeRepeated(Reader& r, WireType wt, std::vector<T>* out, Decode decode) {
  Reader sub("");
  TX_RETURN_IF_ERROR(r.ReadSubMessage(wt, &sub));
  T value;
  TX_RETURN_IF_ERROR(decode(sub, &value));
  out->push_back(std::move(value));
  return Status::OK();
}

}  // namespace

void EncodeOpDef(const OpDef& def, Writer* w) {
  if (!def.name.empty()) w->WriteBytesField(1, def.name);
  auto sub = [&](int field, auto encode, const auto& value) {
    Writer s;
    encode(value, &s);
    w->WriteBytesField(field, s.data());
  };
  for (const ArgDef& a : def.input_arg) sub(2, EncodeArgDef, a);
  for (const ArgDef& a : def.output_arg) sub(3, EncodeArgDef, a);
  for (const AttrDef& a : def.attr) sub(4, EncodeAttrDef, a);
  if (!def.summary.empty()) w->WriteBytesField(5, def.summary);
  if (!def.description.empty()) w->WriteBytesField(6, def.description);
  if (def.is_aggregate) w->WriteBoolField(16, true);
  if (def.is_stateful) w->WriteBoolField(17, true);
  if (def.is_commutative) w->WriteBoolField(18, true);
  if (def.allows_uninitialized_input) w->WriteBoolField(19, true);
  for (const std::string& c : def.control_output) w->WriteBytesField(20, c);
  if (def.is_distributed_communication) w->WriteBoolField(21, true);
}

Status DecodeOpDef(Reader& r, OpDef* out) {
  while (!r.done()) {
    int field;
    WireType wt;
    TX_RETURN_IF_ERROR(r.ReadTag(&field, &wt));
    switch (field) {
      case 1: TX_RETURN_IF_ERROR(r.ReadString(wt, &out->name)); break;
      case 2: TX_RETURN_IF_ERROR(DecodeRepeated(r, wt, &out->input_arg, DecodeArgDef)); break;
      case 3: TX_RETURN_IF_ERROR(DecodeRepeated(r, wt, &out->output_arg, DecodeArgDef)); break;
      case 4: TX_RETURN_IF_ERROR(DecodeRepeated(r, wt, &out->attr, DecodeAttrDef)); break;
      case 5: TX_RETURN_IF_ERROR(r.ReadString(wt, &out->summary)); break;
      case 6: TX_RETURN_IF_ERROR(r.ReadString(wt, &out->description)); break;
      case 16: TX_RETURN_IF_ERROR(r.ReadBool(wt, &out->is_aggregate)); break;
      case 17: TX_RETURN_IF_ERROR(r.ReadBool(wt, &out->is_stateful)); break;
      case 18: TX_RETURN_IF_ERROR(r.ReadBool(wt, &out->is_commutative)); break;
      case 19: TX_RETURN_IF_ERROR(r.ReadBool(wt, &out->allows_uninitialized_input)); break;
      case 20: {
        std::string c;
        TX_RETURN_IF_ERROR(r.ReadString(wt, &c));
        out->control_output.push_back(std::move(c));
        break;
      }
      case 21: TX_RETURN_IF_ERROR(r.ReadBool(wt, &out->is_distributed_communication)); break;
      default: TX_RETURN_IF_ERROR(r.Skip(wt));  // deprecation (8), unknown fields
    }
  }
  return Status::OK();
}

}  // namespace codec
}  // namespace tx
