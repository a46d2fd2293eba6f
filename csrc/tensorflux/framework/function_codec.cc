// FunctionDef and FunctionDefLibrary codecs (function.h). FunctionDef: signature=1,
// node_def=3, ret=4, attr=5, control_ret=6, arg_attr=7, resource_arg_unique_id=8.
// FunctionDefLibrary: function=1, gradient=2 (GradientDef: function_name=1, gradient_func=2),
// registered_gradients=3 (skipped).
#include "tensorflux/framework/function.h"

namespace tx {

using wire::Reader;
using wire::WireType;
using wire::Writer;

namespace {

// map<string, string> entry (key = 1, value = 2).
Status DecodeStringEntry(Reader& r, std::string* key, std::string* value) {
  while (!r.done()) {
    int field;
    WireType wt;
    TX_RETURN_IF_ERROR(r.ReadTag(&field, &wt));
    if (field == 1) {
      TX_RETURN_IF_ERROR(r.ReadString(wt, key));
    } else if (field == 2) {
      TX_RETURN_IF_ERROR(r.ReadString(wt, value));
    } else {
      TX_RETURN_IF_ERROR(r.Skip(wt));
    }
  }
  return Status::OK();
}

void EncodeStringEntry(int field, const std::string& key, const std::string& value, Writer* w) {
  Writer entry;
  entry.WriteBytesField(1, key);
  entry.WriteBytesField(2, value);
  w->WriteBytesField(field, entry.data());
}

uint32_t ToUint32(uint64_t v) { return static_cast<uint32_t>(v); }

// map<uint32, ArgAttrs> entry; ArgAttrs is { map<string, AttrValue> attr = 1 }.
Status DecodeArgAttrEntry(Reader& r, uint32_t* key, AttrMap* attrs) {
  while (!r.done()) {
    int field;
    WireType wt;
    TX_RETURN_IF_ERROR(r.ReadTag(&field, &wt));
    if (field == 1) {
      uint64_t v;
      TX_RETURN_IF_ERROR(r.ReadUInt64(wt, &v));
      *key = ToUint32(v);
    } else if (field == 2) {
      Reader arg_attrs("");
      TX_RETURN_IF_ERROR(r.ReadSubMessage(wt, &arg_attrs));
      while (!arg_attrs.done()) {
        TX_RETURN_IF_ERROR(arg_attrs.ReadTag(&field, &wt));
        if (field != 1) {
          TX_RETURN_IF_ERROR(arg_attrs.Skip(wt));
          continue;
        }
        Reader entry("");
        TX_RETURN_IF_ERROR(arg_attrs.ReadSubMessage(wt, &entry));
        std::string name;
        AttrValue value;
        TX_RETURN_IF_ERROR(codec::DecodeAttrEntry(entry, &name, &value));
        (*attrs)[name] = std::move(value);
      }
    } else {
      TX_RETURN_IF_ERROR(r.Skip(wt));
    }
  }
  return Status::OK();
}

// map<uint32, uint32> entry.
Status DecodeUint32Entry(Reader& r, uint32_t* key, uint32_t* value) {
  while (!r.done()) {
    int field;
    WireType wt;
    TX_RETURN_IF_ERROR(r.ReadTag(&field, &wt));
    uint64_t v = 0;
    if (field == 1 || field == 2) {
      TX_RETURN_IF_ERROR(r.ReadUInt64(wt, &v));
      *(field == 1 ? key : value) = ToUint32(v);
    } else {
      TX_RETURN_IF_ERROR(r.Skip(wt));
    }
  }
  return Status::OK();
}

Status DecodeFields(Reader& r, FunctionDef* f) {
  while (!r.done()) {
    int field;
    WireType wt;
    TX_RETURN_IF_ERROR(r.ReadTag(&field, &wt));
    if (field < 1 || field > 8 || field == 2) {
      TX_RETURN_IF_ERROR(r.Skip(wt));
      continue;
    }
    Reader sub("");
    TX_RETURN_IF_ERROR(r.ReadSubMessage(wt, &sub));
    switch (field) {
      case 1: TX_RETURN_IF_ERROR(codec::DecodeOpDef(sub, &f->signature)); break;
      case 3: {
        codec::NodeDefProto n;
        TX_RETURN_IF_ERROR(codec::DecodeNodeDef(sub, &n));
        f->node_def.push_back(std::move(n));
        break;
      }
      case 4:
      case 6: {
        std::string key, value;
        TX_RETURN_IF_ERROR(DecodeStringEntry(sub, &key, &value));
        (field == 4 ? f->ret : f->control_ret)[key] = std::move(value);
        break;
      }
      case 5: {
        std::string key;
        AttrValue value;
        TX_RETURN_IF_ERROR(codec::DecodeAttrEntry(sub, &key, &value));
        f->attr[key] = std::move(value);
        break;
      }
      case 7: {
        uint32_t key = 0;
        AttrMap attrs;
        TX_RETURN_IF_ERROR(DecodeArgAttrEntry(sub, &key, &attrs));
        f->arg_attr[key] = std::move(attrs);
        break;
      }
      case 8: {
        uint32_t key = 0, value = 0;
        TX_RETURN_IF_ERROR(DecodeUint32Entry(sub, &key, &value));
        f->resource_arg_unique_id[key] = value;
        break;
      }
    }
  }
  return Status::OK();
}

void EncodeFunctionDef(const FunctionDef& f, Writer* w) {
  Writer sig;
  codec::EncodeOpDef(f.signature, &sig);
  w->WriteBytesField(1, sig.data());
  for (const codec::NodeDefProto& n : f.node_def) {
    Writer node;
    codec::EncodeNodeDef(n, &node);
    w->WriteBytesField(3, node.data());
  }
  for (const auto& kv : f.ret) EncodeStringEntry(4, kv.first, kv.second, w);
  for (const auto& kv : f.attr) codec::EncodeAttrEntry(5, kv.first, kv.second, w);
  for (const auto& kv : f.control_ret) EncodeStringEntry(6, kv.first, kv.second, w);
  for (const auto& kv : f.arg_attr) {
    Writer entry, arg_attrs;
    entry.WriteVarintField(1, kv.first);
    for (const auto& a : kv.second) codec::EncodeAttrEntry(1, a.first, a.second, &arg_attrs);
    entry.WriteBytesField(2, arg_attrs.data());
    w->WriteBytesField(7, entry.data());
  }
  for (const auto& kv : f.resource_arg_unique_id) {
    Writer entry;
    entry.WriteVarintField(1, kv.first);
    entry.WriteVarintField(2, kv.second);
    w->WriteBytesField(8, entry.data());
  }
}

}  // namespace

Status ParseFunctionDef(std::string_view bytes, FunctionDef* out) {
  Reader r(bytes, 1);
  FunctionDef f;
  Status s = DecodeFields(r, &f);
  if (!s.ok()) {
    const std::string what = f.name().empty() ? std::string("FunctionDef") : "function '" + f.name() + "'";
    return Status(s.code(), "malformed " + what + ": " + s.message());
  }
  *out = std::move(f);
  return Status::OK();
}

std::string SerializeFunctionDef(const FunctionDef& f) {
  Writer w;
  EncodeFunctionDef(f, &w);
  return w.Release();
}

Status ParseFunctionDefLibrary(std::string_view bytes, FunctionDefLibraryProto* out) {
  Reader r(bytes, 1);
  FunctionDefLibraryProto lib;
  while (!r.done()) {
    int field;
    WireType wt;
    TX_RETURN_IF_ERROR(r.ReadTag(&field, &wt));
    if (field != 1 && field != 2) {
      TX_RETURN_IF_ERROR(r.Skip(wt));  // registered_gradients (3), unknown fields
      continue;
    }
    std::string_view payload;
    if (wt != wire::kLengthDelimited) return DataLoss("FunctionDefLibrary field ", field, " must be length-delimited");
    TX_RETURN_IF_ERROR(r.ReadBytes(&payload));
    if (field == 1) {
      FunctionDef f;
      TX_RETURN_IF_ERROR(ParseFunctionDef(payload, &f));
      lib.function.push_back(std::move(f));
    } else {
      std::string fn, grad;
      Reader g(payload, 2);
      TX_RETURN_IF_ERROR(DecodeStringEntry(g, &fn, &grad));  // GradientDef has the same layout
      lib.gradient.emplace_back(std::move(fn), std::move(grad));
    }
  }
  *out = std::move(lib);
  return Status::OK();
}

std::string FunctionLibrary::Serialize() const {
  std::lock_guard<std::mutex> l(mu_);
  Writer w;
  for (const auto& kv : functions_) w.WriteBytesField(1, kv.second.bytes);
  for (const auto& kv : gradients_) {
    Writer g;  // GradientDef: proto3 strings, written when non-empty
    if (!kv.first.empty()) g.WriteBytesField(1, kv.first);
    if (!kv.second.empty()) g.WriteBytesField(2, kv.second);
    w.WriteBytesField(2, g.data());
  }
  return w.Release();
}

}  // namespace tx
