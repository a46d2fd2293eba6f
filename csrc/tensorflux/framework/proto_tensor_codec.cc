// TensorShapeProto and TensorProto codecs (see proto_codec.h).
#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>

#include "tensorflux/core/canonical_bool.h"
#include "tensorflux/core/object_types.h"
#include "tensorflux/core/tstring.h"
#include "tensorflux/framework/proto_codec.h"

namespace tx {
namespace codec {

using wire::Reader;
using wire::WireType;
using wire::Writer;

namespace {

std::atomic<uint64_t> g_max_expanded_tensor_bytes{uint64_t{1} << 32};

// TensorFlow's limit on tensor rank.
constexpr size_t kMaxRank = 254;
// TensorProto.variant_val (VariantTensorDataProto values, not decoded here).
constexpr int kVariantValField = 15;

}  // namespace

uint64_t MaxExpandedTensorBytes() { return g_max_expanded_tensor_bytes.load(std::memory_order_relaxed); }
void SetMaxExpandedTensorBytes(uint64_t bytes) { g_max_expanded_tensor_bytes.store(bytes, std::memory_order_relaxed); }

// ----------------------------------------------------------------------------
// TensorShapeProto: dim = 2 (Dim{size = 1, name = 2}), unknown_rank = 3.

static Status DecodeDim(Reader& r, int64_t* size) {
  *size = 0;
  while (!r.done()) {
    int field;
    WireType wt;
    TX_RETURN_IF_ERROR(r.ReadTag(&field, &wt));
    if (field == 1) {
      TX_RETURN_IF_ERROR(r.ReadInt64(wt, size));
    } else {
      TX_RETURN_IF_ERROR(r.Skip(wt));  // name (2) and unknown fields
    }
  }
  if (*size < -1) return InvalidArgument("shape has dimension of size ", *size, " (must be >= -1)");
  return Status::OK();
}

Status MergeTensorShape(Reader& r, std::vector<int64_t>* dims, bool* unknown_rank) {
  while (!r.done()) {
    int field;
    WireType wt;
    TX_RETURN_IF_ERROR(r.ReadTag(&field, &wt));
    if (field == 2) {
      Reader sub("");
      TX_RETURN_IF_ERROR(r.ReadSubMessage(wt, &sub));
      int64_t size;
      TX_RETURN_IF_ERROR(DecodeDim(sub, &size));
      if (dims->size() >= kMaxRank) return InvalidArgument("shape has more than ", kMaxRank, " dimensions");
      dims->push_back(size);
    } else if (field == 3) {
      TX_RETURN_IF_ERROR(r.ReadBool(wt, unknown_rank));
    } else {
      TX_RETURN_IF_ERROR(r.Skip(wt));
    }
  }
  return Status::OK();
}

Status FinishTensorShape(std::vector<int64_t> dims, bool unknown_rank, PartialShape* out) {
  if (unknown_rank && !dims.empty())
    return InvalidArgument("shape has unknown_rank set but also ", dims.size(), " dimensions");
  *out = unknown_rank ? PartialShape::Unknown() : PartialShape(std::move(dims));
  return Status::OK();
}

Status DecodeTensorShape(Reader& r, PartialShape* out) {
  std::vector<int64_t> dims;
  bool unknown_rank = false;
  TX_RETURN_IF_ERROR(MergeTensorShape(r, &dims, &unknown_rank));
  return FinishTensorShape(std::move(dims), unknown_rank, out);
}

void EncodeTensorShape(const PartialShape& s, Writer* w) {
  if (!s.known_rank()) {
    w->WriteBoolField(3, true);
    return;
  }
  for (int64_t d : s.dims()) {
    Writer dim;
    if (d != 0) dim.WriteInt64Field(1, d);
    w->WriteBytesField(2, dim.data());
  }
}

// ----------------------------------------------------------------------------
// TensorProto.

namespace {

// The raw values of a TensorProto's repeated *_val fields.
struct ValFields {
  std::vector<uint32_t> float_val, scomplex_val;
  std::vector<uint64_t> double_val, dcomplex_val;
  std::vector<uint64_t> int_val, int64_val, bool_val, half_val, uint32_val, uint64_val;
};

struct Complex64 {
  float re, im;
};
struct Complex128 {
  double re, im;
};

// Writes get(0..k-1) into dst[0..k-1], then repeats the last value (zero when k == 0) up to n.
template <typename T, typename Get>
void Fill(void* dst, int64_t n, int64_t k, Get get) {
  T* p = static_cast<T*>(dst);
  if (k == 0) {
    std::memset(dst, 0, static_cast<size_t>(n) * sizeof(T));
    return;
  }
  for (int64_t i = 0; i < k; ++i) p[i] = get(static_cast<size_t>(i));
  const T last = p[k - 1];
  for (int64_t i = k; i < n; ++i) p[i] = last;
}

// Number of elements the dtype's *_val field holds; -1 if it holds a dangling complex half.
int64_t ValCount(DataType dt, const ValFields& v) {
  switch (dt) {
    case DT_FLOAT: return static_cast<int64_t>(v.float_val.size());
    case DT_DOUBLE: return static_cast<int64_t>(v.double_val.size());
    case DT_INT32:
    case DT_INT16:
    case DT_INT8:
    case DT_UINT8:
    case DT_UINT16: return static_cast<int64_t>(v.int_val.size());
    case DT_INT64: return static_cast<int64_t>(v.int64_val.size());
    case DT_BOOL: return static_cast<int64_t>(v.bool_val.size());
    case DT_HALF:
    case DT_BFLOAT16: return static_cast<int64_t>(v.half_val.size());
    case DT_UINT32: return static_cast<int64_t>(v.uint32_val.size());
    case DT_UINT64: return static_cast<int64_t>(v.uint64_val.size());
    case DT_COMPLEX64: return v.scomplex_val.size() % 2 ? -1 : static_cast<int64_t>(v.scomplex_val.size() / 2);
    case DT_COMPLEX128: return v.dcomplex_val.size() % 2 ? -1 : static_cast<int64_t>(v.dcomplex_val.size() / 2);
    default: return 0;
  }
}

// Fills `dst` (n elements of dt) from the dtype's *_val field holding k elements.
void FillFromVals(DataType dt, const ValFields& v, void* dst, int64_t n, int64_t k) {
  switch (dt) {
    case DT_FLOAT: Fill<float>(dst, n, k, [&](size_t i) { return wire::BitsToFloat(v.float_val[i]); }); break;
    case DT_DOUBLE: Fill<double>(dst, n, k, [&](size_t i) { return wire::BitsToDouble(v.double_val[i]); }); break;
    case DT_INT32: Fill<int32_t>(dst, n, k, [&](size_t i) { return static_cast<int32_t>(v.int_val[i]); }); break;
    case DT_INT16: Fill<int16_t>(dst, n, k, [&](size_t i) { return static_cast<int16_t>(v.int_val[i]); }); break;
    case DT_INT8: Fill<int8_t>(dst, n, k, [&](size_t i) { return static_cast<int8_t>(v.int_val[i]); }); break;
    case DT_UINT8: Fill<uint8_t>(dst, n, k, [&](size_t i) { return static_cast<uint8_t>(v.int_val[i]); }); break;
    case DT_UINT16: Fill<uint16_t>(dst, n, k, [&](size_t i) { return static_cast<uint16_t>(v.int_val[i]); }); break;
    case DT_INT64: Fill<int64_t>(dst, n, k, [&](size_t i) { return static_cast<int64_t>(v.int64_val[i]); }); break;
    case DT_BOOL: Fill<uint8_t>(dst, n, k, [&](size_t i) { return static_cast<uint8_t>(v.bool_val[i] != 0); }); break;
    case DT_HALF:
    case DT_BFLOAT16: Fill<uint16_t>(dst, n, k, [&](size_t i) { return static_cast<uint16_t>(v.half_val[i]); }); break;
    case DT_UINT32: Fill<uint32_t>(dst, n, k, [&](size_t i) { return static_cast<uint32_t>(v.uint32_val[i]); }); break;
    case DT_UINT64: Fill<uint64_t>(dst, n, k, [&](size_t i) { return v.uint64_val[i]; }); break;
    case DT_COMPLEX64:
      Fill<Complex64>(dst, n, k, [&](size_t i) {
        return Complex64{wire::BitsToFloat(v.scomplex_val[2 * i]), wire::BitsToFloat(v.scomplex_val[2 * i + 1])};
      });
      break;
    case DT_COMPLEX128:
      Fill<Complex128>(dst, n, k, [&](size_t i) {
        return Complex128{wire::BitsToDouble(v.dcomplex_val[2 * i]), wire::BitsToDouble(v.dcomplex_val[2 * i + 1])};
      });
      break;
    default: std::memset(dst, 0, static_cast<size_t>(n) * DataTypeSize(dt)); break;
  }
}

// Reads one TensorProto field into the accumulators; false if `field` is not a *_val field.
Status ReadValField(Reader& r, int field, WireType wt, ValFields* v, bool* handled) {
  *handled = true;
  switch (field) {
    case 5: return r.ReadRepeatedFixed32(wt, &v->float_val);
    case 6: return r.ReadRepeatedFixed64(wt, &v->double_val);
    case 7: return r.ReadRepeatedVarint(wt, &v->int_val);
    case 9: return r.ReadRepeatedFixed32(wt, &v->scomplex_val);
    case 10: return r.ReadRepeatedVarint(wt, &v->int64_val);
    case 11: return r.ReadRepeatedVarint(wt, &v->bool_val);
    case 12: return r.ReadRepeatedFixed64(wt, &v->dcomplex_val);
    case 13: return r.ReadRepeatedVarint(wt, &v->half_val);
    case 16: return r.ReadRepeatedVarint(wt, &v->uint32_val);
    case 17: return r.ReadRepeatedVarint(wt, &v->uint64_val);
    default: *handled = false; return Status::OK();
  }
}

// Note [String TensorProtos]
// TensorFlow writes DT_STRING tensors as repeated string_val (field 8), one bytes value per
// element, fewer than the shape holds meaning "repeat the last" like the other *_val fields; its
// C++ Tensor::AsProtoTensorContent may instead put them in tensor_content as n varint32 lengths
// followed by the n strings' bytes. Both are read here; EncodeTensor writes string_val. The
// decoded strings are copies (TString owns its bytes), never views into the proto buffer.

// Decodes a DT_STRING tensor of shape `ts` from string_val entries or tensor_content.
Status DecodeStrings(const TensorShape& ts, const std::vector<std::string_view>& vals, std::string_view content,
                     Tensor* out) {
  const int64_t n = ts.num_elements();
  std::vector<std::string_view> items;
  if (!content.empty()) {  // n varint32 lengths, then the bytes
    Reader r(content);
    std::vector<uint64_t> sizes(static_cast<size_t>(std::min<int64_t>(n, static_cast<int64_t>(content.size()))));
    if (static_cast<int64_t>(sizes.size()) != n)
      return InvalidArgument("tensor_content of ", content.size(), " bytes cannot hold ", n, " string lengths");
    for (uint64_t& s : sizes) {
      TX_RETURN_IF_ERROR(r.ReadVarint(&s).WithPrefix("string tensor_content: "));
      if (s > UINT32_MAX) return InvalidArgument("string tensor_content has a length above 2^32");
    }
    std::string_view rest = r.Slice(r.position(), content.size());
    for (uint64_t s : sizes) {
      if (s > rest.size()) return InvalidArgument("string tensor_content is shorter than its lengths say");
      items.push_back(rest.substr(0, s));
      rest.remove_prefix(s);
    }
    if (!rest.empty()) return InvalidArgument("string tensor_content has ", rest.size(), " bytes past its strings");
  } else {
    const int64_t k = static_cast<int64_t>(vals.size());
    if (k > n)
      return InvalidArgument("TensorProto has ", k, " values but its string shape ", ts.ToString(), " holds only ", n);
    const uint64_t tail = k == 0 ? 0 : vals.back().size();
    const uint64_t expanded = static_cast<uint64_t>(n - k) * (sizeof(TString) + tail);
    if (k < n && expanded > MaxExpandedTensorBytes())
      return InvalidArgument("TensorProto of shape ", ts.ToString(), " would expand to ", expanded,
                             " bytes, above the limit of ", MaxExpandedTensorBytes());
    items = vals;
  }
  Tensor t;
  TX_RETURN_IF_ERROR(Tensor::Allocate(DT_STRING, ts, &t));
  TString* s = t.data<TString>();
  for (int64_t i = 0; i < n; ++i) {
    if (items.empty()) break;  // no values: every element stays empty
    const std::string_view v = i < static_cast<int64_t>(items.size()) ? items[i] : items.back();
    if (!s[i].Assign(v)) return ResourceExhausted("out of memory decoding a string of ", v.size(), " bytes");
  }
  *out = std::move(t);
  return Status::OK();
}

}  // namespace

Status DecodeTensor(Reader& r, Tensor* out) {
  int32_t dtype_value = 0;
  std::vector<int64_t> shape_dims;  // a missing tensor_shape means a scalar
  bool unknown_rank = false;
  std::string_view content;
  ValFields vals;
  std::vector<std::string_view> string_vals;
  bool saw_variant_val = false;
  while (!r.done()) {
    int field;
    WireType wt;
    TX_RETURN_IF_ERROR(r.ReadTag(&field, &wt));
    bool handled = false;
    TX_RETURN_IF_ERROR(ReadValField(r, field, wt, &vals, &handled));
    if (handled) continue;
    if (field == 1) {
      TX_RETURN_IF_ERROR(r.ReadInt32(wt, &dtype_value));
    } else if (field == 2) {  // occurrences merge (the fuzzer found the last one winning)
      Reader sub("");
      TX_RETURN_IF_ERROR(r.ReadSubMessage(wt, &sub));
      TX_RETURN_IF_ERROR(MergeTensorShape(sub, &shape_dims, &unknown_rank));
    } else if (field == 4) {
      if (wt != wire::kLengthDelimited) return DataLoss("tensor_content must be length-delimited");
      TX_RETURN_IF_ERROR(r.ReadBytes(&content));
    } else if (field == 8) {
      if (wt != wire::kLengthDelimited) return DataLoss("string_val must be length-delimited");
      TX_RETURN_IF_ERROR(r.ReadBytes(&string_vals.emplace_back()));
    } else {
      // version_number (3), resource/variant/float8 values and unknown fields: only meaningful
      // for dtypes rejected below.
      saw_variant_val = saw_variant_val || field == kVariantValField;
      TX_RETURN_IF_ERROR(r.Skip(wt));
    }
  }

  PartialShape shape;
  TX_RETURN_IF_ERROR(FinishTensorShape(std::move(shape_dims), unknown_rank, &shape));
  if (!IsValidDataType(dtype_value)) return InvalidArgument("TensorProto has invalid dtype ", dtype_value);
  const DataType dt = static_cast<DataType>(dtype_value);
  if (!IsSupportedStorageType(dt))
    return Unimplemented("tensors of dtype ", DataTypeString(dt), " are not supported yet");
  if (!shape.known_rank()) return InvalidArgument("TensorProto shape must have a known rank");
  TensorShape ts;
  TX_RETURN_IF_ERROR(TensorShape::Make(shape.dims().data(), shape.rank(), &ts)
                         .WithPrefix("invalid TensorProto shape " + shape.ToString() + ": "));
  if (dt == DT_STRING) return DecodeStrings(ts, string_vals, content, out);  // Note [String TensorProtos]
  if (ObjectOpsFor(dt) != nullptr) {  // variant elements: only empty ones can be described here
    if (!content.empty() || ValCount(dt, vals) != 0 || !string_vals.empty() || saw_variant_val)
      return Unimplemented("TensorProto values of dtype ", DataTypeString(dt),
                           " are not supported (only a shape "
                           "without values, whose elements are empty)");
    const uint64_t bytes = static_cast<uint64_t>(ts.num_elements()) * DataTypeSize(dt);
    if (bytes > MaxExpandedTensorBytes())
      return InvalidArgument("TensorProto of shape ", ts.ToString(), " would expand to ", bytes,
                             " bytes, above the limit of ", MaxExpandedTensorBytes());
    return Tensor::Allocate(dt, ts, out);
  }
  const int64_t n = ts.num_elements();
  const uint64_t elem = DataTypeSize(dt);
  if (static_cast<uint64_t>(n) > std::numeric_limits<size_t>::max() / elem)
    return InvalidArgument("tensor of shape ", ts.ToString(), " is too large");
  const uint64_t bytes = static_cast<uint64_t>(n) * elem;

  if (!content.empty()) {
    if (content.size() != bytes)
      return InvalidArgument("tensor_content has ", content.size(), " bytes but a ", DataTypeString(dt),
                             " tensor of shape ", ts.ToString(), " needs ", bytes);
    Tensor t;
    TX_RETURN_IF_ERROR(Tensor::Allocate(dt, ts, &t));
    std::memcpy(t.raw_data(), content.data(), content.size());
    CanonicalizeBoolInPlace(t);  // Note [Canonical bool]
    *out = std::move(t);
    return Status::OK();
  }

  const int64_t k = ValCount(dt, vals);
  if (k < 0) return InvalidArgument("complex tensor has an odd number of *complex_val entries");
  if (k > n)
    return InvalidArgument("TensorProto has ", k, " values but its ", DataTypeString(dt), " shape ", ts.ToString(),
                           " holds only ", n);
  if (k < n && bytes > MaxExpandedTensorBytes())
    return InvalidArgument("TensorProto of shape ", ts.ToString(), " would expand to ", bytes,
                           " bytes, above the limit of ", MaxExpandedTensorBytes());
  Tensor t;
  TX_RETURN_IF_ERROR(Tensor::Allocate(dt, ts, &t));
  if (n > 0) FillFromVals(dt, vals, t.raw_data(), n, k);
  *out = std::move(t);
  return Status::OK();
}

void EncodeTensor(const Tensor& t, Writer* w) {
  if (t.dtype() != DT_INVALID) w->WriteInt32Field(1, static_cast<int32_t>(t.dtype()));
  Writer shape;
  EncodeTensorShape(PartialShape(t.shape()), &shape);
  w->WriteBytesField(2, shape.data());
  if (t.dtype() == DT_STRING) {  // Note [String TensorProtos]
    if (!t.initialized()) return;
    const TString* s = t.data<TString>();
    for (int64_t i = 0; i < t.num_elements(); ++i) w->WriteBytesField(8, s[i].view());
    return;
  }
  if (ObjectOpsFor(t.dtype()) != nullptr) return;  // variant values are not serialized (no variant_val)
  if (t.initialized() && t.byte_size() > 0)
    w->WriteBytesField(4, std::string_view(static_cast<const char*>(t.raw_data()), t.byte_size()));
}

}  // namespace codec
}  // namespace tx
