// CPU kernel of ParseExampleV2: tf.train.Example protos read with the engine's wire reader
// (framework/proto_wire.h) into dense and sparse feature tensors (Note [Parsing Examples]); the
// fast path for well-formed batches is parse_example_fast.cc (Note [Fast Example parsing]).
#include "tensorflux/kernels/cpu/parse_example.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "tensorflux/core/object_types.h"
#include "tensorflux/core/tstring.h"
#include "tensorflux/framework/proto_wire.h"
#include "tensorflux/lib/small_vector.h"
#include "tensorflux/kernels/cpu/kernel_util.h"

// Note [Parsing Examples]
// An Example is `features` (field 1, a Features message, possibly repeated and then merged),
// whose map field 1 holds entries {key = 1, value = 2: Feature}; a Feature holds one of
// bytes_list (1), float_list (2) or int64_list (3), each a repeated field 1 (numbers packed or
// not). As in protobuf, a later map entry for the same key replaces an earlier one and the last
// list set in a Feature wins. The kernel looks each Example's entries up by the requested keys
// only, decodes the lists of those features, and then writes the outputs:
//  - a dense feature of shape S gets exactly prod(S) values per Example, or its default when the
//    Example lacks it (no default: the feature is required). A dense shape whose first dimension
//    is -1 (FixedLenSequenceFeature) takes any multiple of prod(S[1:]) values; rows are padded to
//    the batch's longest with the default scalar (zeros or empty strings without one);
//  - a sparse (VarLen) feature gives indices [example, k] (just [k] for a scalar `serialized`),
//    the values in Example order and the dense shape [batch, longest].
// A Feature message that sets no list is, as in TensorFlow, no entry at all for a dense feature
// (an earlier entry for the key, or the default, stands); for a sparse feature it is an empty
// list in a batch but no entry for a scalar `serialized` (TensorFlow's single-Example path). A
// packed float list of n bytes holds floor(n / 4) values (TensorFlow ignores the rest). Every
// error names the Example (by `names` when given, else <unknown>), its index and the key, as
// TensorFlow's do; for a scalar `serialized`, the key alone, as TensorFlow's single path does.
// This is the reference decoder; ParseExamplesFast (Note [Fast Example parsing]) gives the same
// outputs for well-formed batches, and every batch it declines comes here.

namespace tx {
namespace cpu {

void KeySlots::Set(std::string_view key, int slot) {
  if (map_.empty()) {
    for (Entry& e : scan_) {
      if (e.key == key) {
        e.slot = slot;
        return;
      }
    }
    if (scan_.size() < kScanKeys) {
      scan_.push_back({key, slot});
      return;
    }
    for (const Entry& e : scan_) map_[e.key] = e.slot;
  }
  map_[key] = slot;
}

namespace {

enum Kind { kNone = 0, kBytes = 1, kFloat = 2, kInt64 = 3 };

const char* KindName(int kind) {
  switch (kind) {
    case kBytes: return "string";
    case kFloat: return "float";
    case kInt64: return "int64";
    default: return "none";
  }
}

int KindOf(DataType dt) { return dt == DT_STRING ? kBytes : dt == DT_FLOAT ? kFloat : kInt64; }

// The decoded values of one feature of one Example; short lists (the common case) stay inside.
struct Values {
  bool present = false;
  SmallVector<float, 16> f;
  SmallVector<int64_t, 4> i;
  SmallVector<std::string_view, 2> s;
  int64_t size(DataType dt) const {
    return static_cast<int64_t>(dt == DT_STRING ? s.size() : dt == DT_FLOAT ? f.size() : i.size());
  }
};

// True unless the Feature message `feature` is well formed and sets no list.
bool SetsList(std::string_view feature) {
  wire::Reader r(feature);
  while (!r.done()) {
    int field;
    wire::WireType type;
    if (!r.ReadTag(&field, &type).ok()) return true;
    if (field >= kBytes && field <= kInt64 && type == wire::kLengthDelimited) return true;
    if (!r.Skip(type).ok()) return true;
  }
  return false;
}

// Reads one Feature message as values of `dt` (appended to `out`, which must be empty) for a
// sparse or dense feature. A list of another kind is InvalidArgument, the caller adding where it
// was; bad bytes are DataLoss.
Status DecodeFeature(std::string_view feature, DataType dt, bool sparse, Values* out) {
  wire::Reader r(feature);
  int kind = kNone;
  std::string_view list;
  while (!r.done()) {
    int field;
    wire::WireType type;
    TX_RETURN_IF_ERROR(r.ReadTag(&field, &type));
    if (field >= kBytes && field <= kInt64 && type == wire::kLengthDelimited) {
      kind = field;
      TX_RETURN_IF_ERROR(r.ReadBytes(&list));
    } else {
      TX_RETURN_IF_ERROR(r.Skip(type));
    }
  }
  out->present = true;
  if (kind == kNone) return Status::OK();  // present, no list: empty
  if (kind != KindOf(dt) && sparse)
    return InvalidArgument("Data types don't match. Expected type: ", DataTypeString(dt),
                           ", Actual type: ", KindName(kind));
  if (kind != KindOf(dt))
    return InvalidArgument("Data types don't match. Data type: ", KindName(kind),
                           " but expected type: ", DataTypeString(dt));
  wire::Reader l(list);
  while (!l.done()) {
    int field;
    wire::WireType type;
    TX_RETURN_IF_ERROR(l.ReadTag(&field, &type));
    if (field != 1) {
      TX_RETURN_IF_ERROR(l.Skip(type));
      continue;
    }
    if (kind == kBytes) {
      std::string_view v;
      if (type != wire::kLengthDelimited) return DataLoss("a bytes_list value has wire type ", type);
      TX_RETURN_IF_ERROR(l.ReadBytes(&v));
      out->s.push_back(v);
    } else if (kind == kFloat) {
      if (type == wire::kLengthDelimited) {  // packed: copied as is (little-endian IEEE floats)
        std::string_view packed;
        TX_RETURN_IF_ERROR(l.ReadBytes(&packed));
        const size_t count = packed.size() / 4;  // trailing bytes ignored, as TensorFlow does
        if (count == 0) continue;
        const size_t at = out->f.size();
        out->f.resize(at + count);
        std::memcpy(out->f.data() + at, packed.data(), count * 4);
      } else {
        uint32_t bits;
        if (type != wire::kFixed32) return DataLoss("a float_list value has wire type ", type);
        TX_RETURN_IF_ERROR(l.ReadFixed32(&bits));
        float v;
        std::memcpy(&v, &bits, sizeof(v));
        out->f.push_back(v);
      }
    } else {
      uint64_t v;
      if (type == wire::kLengthDelimited) {
        std::string_view packed;
        TX_RETURN_IF_ERROR(l.ReadBytes(&packed));
        wire::Reader p(packed);
        while (!p.done()) {
          TX_RETURN_IF_ERROR(p.ReadVarint(&v));
          out->i.push_back(static_cast<int64_t>(v));
        }
      } else {
        if (type != wire::kVarint) return DataLoss("an int64_list value has wire type ", type);
        TX_RETURN_IF_ERROR(l.ReadVarint(&v));
        out->i.push_back(static_cast<int64_t>(v));
      }
    }
  }
  return Status::OK();
}

// The Feature messages of one Example under the requested keys; entries that set no list are
// skipped where they count as no entry (Note [Parsing Examples]).
Status FindFeatures(std::string_view example, const ExampleRequest& req, std::vector<std::string_view>* features,
                    std::vector<bool>* found) {
  wire::Reader r(example);
  while (!r.done()) {
    int field;
    wire::WireType type;
    TX_RETURN_IF_ERROR(r.ReadTag(&field, &type));
    if (field != 1) {
      TX_RETURN_IF_ERROR(r.Skip(type));
      continue;
    }
    wire::Reader feats(std::string_view{}, 0);
    TX_RETURN_IF_ERROR(r.ReadSubMessage(type, &feats));
    while (!feats.done()) {
      TX_RETURN_IF_ERROR(feats.ReadTag(&field, &type));
      if (field != 1) {
        TX_RETURN_IF_ERROR(feats.Skip(type));
        continue;
      }
      wire::Reader entry(std::string_view{}, 0);
      TX_RETURN_IF_ERROR(feats.ReadSubMessage(type, &entry));
      std::string_view key, value;
      bool has_value = false;
      while (!entry.done()) {
        TX_RETURN_IF_ERROR(entry.ReadTag(&field, &type));
        if (field == 1 && type == wire::kLengthDelimited) {
          TX_RETURN_IF_ERROR(entry.ReadBytes(&key));
        } else if (field == 2 && type == wire::kLengthDelimited) {
          TX_RETURN_IF_ERROR(entry.ReadBytes(&value));
          has_value = true;
        } else {
          TX_RETURN_IF_ERROR(entry.Skip(type));
        }
      }
      const int slot = req.slot_of.Find(key);
      if (slot < 0) continue;
      if (!has_value) value = std::string_view{};
      if ((slot >= req.num_sparse || !req.batched) && !SetsList(value)) continue;
      (*features)[slot] = value;
      (*found)[slot] = true;
    }
  }
  return Status::OK();
}

// Writes `n` values of `v` starting at v's element `from` into t's elements from `at`.
void Put(const Values& v, DataType dt, int64_t from, int64_t n, Tensor* t, int64_t at) {
  if (n <= 0) return;
  if (dt == DT_FLOAT)
    std::copy_n(v.f.data() + from, n, t->data<float>() + at);
  else if (dt == DT_INT64)
    std::copy_n(v.i.data() + from, n, t->data<int64_t>() + at);
  else
    for (int64_t k = 0; k < n; ++k) t->data<TString>()[at + k].Assign(v.s[from + k]);
}

// Fills t's elements [at, at + n) with element 0 of `fill` (zeros / empty strings when empty).
void Pad(const Tensor& fill, int64_t at, int64_t n, Tensor* t) {
  if (n <= 0) return;
  const DataType dt = t->dtype();
  if (dt == DT_STRING) {
    const TString pad = fill.num_elements() ? fill.data<TString>()[0] : TString();
    for (int64_t k = 0; k < n; ++k) t->data<TString>()[at + k] = pad;
  } else if (dt == DT_FLOAT) {
    std::fill_n(t->data<float>() + at, n, fill.num_elements() ? fill.data<float>()[0] : 0.0f);
  } else {
    std::fill_n(t->data<int64_t>() + at, n, fill.num_elements() ? fill.data<int64_t>()[0] : int64_t{0});
  }
}

// "Name: <name>, " of Example b in a batch; nothing for a scalar `serialized`.
std::string Name(const ExampleRequest& req, const Tensor& names, int64_t b) {
  if (!req.batched) return std::string();
  return "Name: " + (names.num_elements() ? names.data<TString>()[b].str() : std::string("<unknown>")) + ", ";
}
// The prefix of an error in feature `key` of Example b.
std::string Where(const ExampleRequest& req, const Tensor& names, int64_t b, const std::string& key) {
  return req.batched ? StrCat(Name(req, names, b), "Key: ", key, ", Index: ", b, ".  ") : StrCat("Key: ", key, ".  ");
}
// The first bytes of a bad Example, escaped, for its error message.
std::string Preview(std::string_view bytes) {
  std::string out;
  for (size_t i = 0; i < bytes.size() && i < 32; ++i) {
    const unsigned char ch = static_cast<unsigned char>(bytes[i]);
    if (ch >= 32 && ch < 127 && ch != '\\' && ch != '\'') {
      out += static_cast<char>(ch);
    } else {
      static const char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[ch >> 4];
      out += kHex[ch & 15];
    }
  }
  if (bytes.size() > 32) out += "...";
  return out;
}

// Decodes the requested features of Example `b` into values[0, num_keys).
Status ParseOne(std::string_view example, const ExampleRequest& req, const Tensor& names, int64_t b,
                std::vector<std::string_view>* features, std::vector<bool>* found, Values* values) {
  std::fill(found->begin(), found->end(), false);
  Status s = FindFeatures(example, req, features, found);
  if (!s.ok())
    return InvalidArgument("Could not parse example input, value: '", Preview(example), "'",
                           req.batched ? StrCat(" (", Name(req, names, b), "index ", b, ")") : std::string(), ": ",
                           s.message());
  for (int k = 0; k < req.num_keys(); ++k) {
    if (!(*found)[k]) continue;
    s = DecodeFeature((*features)[k], req.types[k], k < req.num_sparse, &values[k]);
    if (!s.ok())
      return InvalidArgument(Where(req, names, b, req.keys[k]),
                             s.code() == Code::kInvalidArgument ? "" : "Could not parse the feature: ", s.message());
  }
  return Status::OK();
}

// Outputs k (indices), num_sparse + k (values) and 2 num_sparse + k (dense shape) of sparse key k.
Status WriteSparse(OpKernelContext* ctx, const ExampleRequest& req, const std::vector<Values>& values, int k,
                   int64_t batch) {
  const bool batched = req.batched;
  const DataType dt = req.types[k];
  const int num_keys = req.num_keys();
  int64_t total = 0, longest = 0;
  for (int64_t b = 0; b < batch; ++b) {
    const int64_t n = values[b * num_keys + k].size(dt);
    total += n;
    longest = std::max(longest, n);
  }
  const int rank = batched ? 2 : 1;
  Tensor *indices, *vals, *shape;
  TX_RETURN_IF_ERROR(ctx->allocate_output(k, TensorShape({total, rank}), &indices));
  TX_RETURN_IF_ERROR(ctx->allocate_output(req.num_sparse + k, TensorShape({total}), &vals));
  TX_RETURN_IF_ERROR(ctx->allocate_output(2 * req.num_sparse + k, TensorShape({rank}), &shape));
  int64_t* idx = indices->data<int64_t>();
  int64_t at = 0;
  for (int64_t b = 0; b < batch; ++b) {
    const Values& v = values[b * num_keys + k];
    const int64_t n = v.size(dt);
    Put(v, dt, 0, n, vals, at);
    for (int64_t j = 0; j < n; ++j, ++at) {
      if (batched) *idx++ = b;
      *idx++ = j;
    }
  }
  int64_t* dims = shape->data<int64_t>();
  if (batched) *dims++ = batch;
  *dims = longest;
  return Status::OK();
}

// Output 3 num_sparse + j of dense feature j.
Status WriteDense(OpKernelContext* ctx, const ExampleRequest& req, const std::vector<Values>& values,
                  const Tensor& names, int j, int64_t batch) {
  const bool batched = req.batched;
  const int k = req.num_sparse + j;
  const int num_keys = req.num_keys();
  const DataType dt = req.types[k];
  const PartialShape& s = (*req.dense_shapes)[j];
  const Tensor& def = ctx->input(5 + j);
  const bool variable = req.variable[j];
  const int64_t stride = req.stride[j];
  int64_t rows = 0;  // the batch's longest, for variable shapes
  for (int64_t b = 0; b < batch; ++b) {
    const Values& v = values[b * num_keys + k];
    const int64_t n = v.size(dt);
    if (!v.present) {
      if (!variable && def.num_elements() == 0)
        return InvalidArgument(Name(req, names, b), "Feature: ", req.keys[k], " (data type: ", DataTypeString(dt),
                               ") is required but could not be found.");
      continue;
    }
    if (variable) {
      if (stride == 0 ? n != 0 : n % stride != 0)
        return InvalidArgument(Where(req, names, b, req.keys[k]), "Number of ", DataTypeString(dt),
                               " values is not a multiple of stride length. Saw ", n,
                               " values but output shape is: ", s.ToString());
      if (stride > 0) rows = std::max(rows, n / stride);
    } else if (n != stride) {
      return InvalidArgument(Where(req, names, b, req.keys[k]), "Number of ", DataTypeString(dt),
                             " values != expected.  Values size: ", n, " but output shape: ", s.ToString());
    }
  }
  std::vector<int64_t> dims;
  if (batched) dims.push_back(batch);
  for (int d = 0; d < s.rank(); ++d) dims.push_back(d == 0 && variable ? rows : s.dim(d));
  Tensor* out;
  TX_RETURN_IF_ERROR(ctx->allocate_output(3 * req.num_sparse + j, TensorShape(dims), &out));
  const int64_t per_example = variable ? rows * stride : stride;
  for (int64_t b = 0; b < batch; ++b) {
    const Values& v = values[b * num_keys + k];
    const int64_t at = b * per_example;
    if (!v.present && !variable) {
      // The default holds exactly one Example's values.
      if (stride > 0)
        CopyElements(dt, def.raw_data(), static_cast<char*>(out->raw_data()) + at * DataTypeSize(dt), stride);
      continue;
    }
    const int64_t n = v.present ? v.size(dt) : 0;
    Put(v, dt, 0, n, out, at);
    Pad(def, at + n, per_example - n, out);
  }
  return Status::OK();
}

}  // namespace

Status PrepareExampleRequest(const OpKernelContext& ctx, const std::vector<DataType>& sparse_types,
                             const std::vector<DataType>& dense_types, const std::vector<PartialShape>& dense_shapes,
                             ExampleRequest* req) {
  const Tensor& serialized = ctx.input(0);
  const Tensor& names = ctx.input(1);
  if (serialized.rank() > 1)
    return InvalidArgument("serialized must be a scalar or a vector, got shape ", serialized.shape().ToString());
  req->batched = serialized.rank() == 1;
  const int64_t batch = serialized.num_elements();
  if (names.num_elements() != 0 && names.num_elements() != batch)
    return InvalidArgument("names must be empty or hold one name per Example: ", names.num_elements(), " names for ",
                           batch, " Examples");
  const int num_sparse = static_cast<int>(sparse_types.size());
  const int num_dense = static_cast<int>(dense_types.size());
  req->num_sparse = num_sparse;
  req->types = sparse_types;
  req->types.insert(req->types.end(), dense_types.begin(), dense_types.end());
  req->keys.assign(num_sparse + num_dense, std::string());
  req->dense_shapes = &dense_shapes;
  for (int group = 0; group < 2; ++group) {
    const Tensor& k = ctx.input(2 + group);
    const int64_t want = group == 0 ? num_sparse : num_dense;
    if (k.num_elements() != want)
      return InvalidArgument(group == 0 ? "sparse_keys" : "dense_keys", " has ", k.num_elements(), " keys, expected ",
                             want);
    for (int64_t i = 0; i < want; ++i) {
      const int slot = static_cast<int>(group == 0 ? i : num_sparse + i);
      req->keys[slot] = k.data<TString>()[i].str();
      req->slot_of.Set(k.data<TString>()[i].view(), slot);
    }
  }
  if (ctx.input(4).num_elements() != 0)
    return Unimplemented("ParseExampleV2: ragged features (ragged_keys) are not supported yet");
  req->variable.assign(num_dense, false);
  req->stride.assign(num_dense, 1);
  for (int j = 0; j < num_dense; ++j) {
    const PartialShape& s = dense_shapes[j];
    const Tensor& def = ctx.input(5 + j);
    const bool variable = s.rank() > 0 && s.dim(0) == -1;
    int64_t want = 1;  // values per Example (fixed) or per row (variable)
    for (int d = variable ? 1 : 0; d < s.rank(); ++d) want *= s.dim(d);
    req->variable[j] = variable;
    req->stride[j] = want;
    if (def.num_elements() != 0 && def.num_elements() != (variable ? 1 : want))
      return InvalidArgument("dense_defaults[", j, "] for key ", req->keys[num_sparse + j], " has ", def.num_elements(),
                             " values; expected ", variable ? "1 (a scalar)" : "",
                             variable ? "" : StrCat(want, " (shape ", s.ToString(), ")"),
                             " or none (the feature is required)");
  }
  return Status::OK();
}

Status ParseExamplesReference(OpKernelContext* ctx, const ExampleRequest& req) {
  const Tensor& serialized = ctx->input(0);
  const Tensor& names = ctx->input(1);
  const int64_t batch = serialized.num_elements();
  const int num_keys = req.num_keys();
  // Decode every requested feature of every Example, Examples split over the intra-op threads;
  // the error of the first failing Example wins whatever the split.
  std::vector<Values> values(batch * num_keys);
  std::mutex mu;
  int64_t first_bad = batch;
  Status error;
  ParallelRange(ctx->intra_op_pool(), batch, 2000, [&](int64_t begin, int64_t end) {
    std::vector<std::string_view> features(num_keys);
    std::vector<bool> found(num_keys);
    for (int64_t b = begin; b < end; ++b) {
      Status s =
          ParseOne(serialized.data<TString>()[b].view(), req, names, b, &features, &found, &values[b * num_keys]);
      if (s.ok()) continue;
      std::lock_guard<std::mutex> l(mu);
      if (b < first_bad) {
        first_bad = b;
        error = s;
      }
      return;
    }
  });
  TX_RETURN_IF_ERROR(error);
  for (int k = 0; k < req.num_sparse; ++k) TX_RETURN_IF_ERROR(WriteSparse(ctx, req, values, k, batch));
  for (int j = 0; j < num_keys - req.num_sparse; ++j) TX_RETURN_IF_ERROR(WriteDense(ctx, req, values, names, j, batch));
  return Status::OK();
}

namespace {

class ParseExampleV2Op : public OpKernel {
 public:
  explicit ParseExampleV2Op(OpKernelConstruction* c) : OpKernel(c) {
    int64_t num_sparse = 0;
    c->SetStatus(c->GetAttr("num_sparse", &num_sparse));
    const AttrValue* tdense = c->node().attr("Tdense");
    const AttrValue* sparse_types = c->node().attr("sparse_types");
    const AttrValue* shapes = c->node().attr("dense_shapes");
    const AttrValue* ragged = c->node().attr("ragged_value_types");
    if (tdense == nullptr || sparse_types == nullptr || shapes == nullptr || ragged == nullptr) {
      c->SetStatus(InvalidArgument("ParseExampleV2: missing attrs"));
      return;
    }
    dense_types_ = tdense->list.type;
    sparse_types_ = sparse_types->list.type;
    shapes_ = shapes->list.shape;
    if (!ragged->list.type.empty()) {
      c->SetStatus(Unimplemented("ParseExampleV2: ragged features (RaggedFeature) are not supported yet"));
      return;
    }
    if (static_cast<int64_t>(sparse_types_.size()) != num_sparse || shapes_.size() != dense_types_.size()) {
      c->SetStatus(InvalidArgument("ParseExampleV2: ", sparse_types_.size(), " sparse_types for num_sparse ",
                                   num_sparse, ", ", shapes_.size(), " dense_shapes for ", dense_types_.size(),
                                   " dense features"));
      return;
    }
    for (size_t j = 0; j < shapes_.size(); ++j) {
      const PartialShape& s = shapes_[j];
      bool ok = s.known_rank();
      for (int d = 0; ok && d < s.rank(); ++d) ok = s.dim(d) >= 0 || (d == 0 && s.dim(d) == -1);
      if (!ok) {
        c->SetStatus(InvalidArgument("dense_shapes[", j, "] = ", s.ToString(),
                                     ": only the first dimension may be unknown (-1)"));
        return;
      }
    }
  }

  void Compute(OpKernelContext* ctx) override {
    ExampleRequest req;
    TX_CTX_RETURN_IF_ERROR(ctx, PrepareExampleRequest(*ctx, sparse_types_, dense_types_, shapes_, &req));
    if (ParseExamplesFast(ctx, req)) return;
    TX_CTX_RETURN_IF_ERROR(ctx, ParseExamplesReference(ctx, req));
  }

 private:
  std::vector<DataType> dense_types_, sparse_types_;
  std::vector<PartialShape> shapes_;
};

}  // namespace

TX_REGISTER_KERNEL(KernelDefBuilder("ParseExampleV2"), ParseExampleV2Op);

}  // namespace cpu
}  // namespace tx
