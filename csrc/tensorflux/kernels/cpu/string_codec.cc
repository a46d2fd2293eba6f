// CPU kernels for the hash-bucket ops (Note [String hash buckets]), web-safe base64 and DecodeRaw.
#include <cstring>
#include <string>
#include <vector>

#include "tensorflux/kernels/cpu/string_util.h"
#include "tensorflux/lib/string_hash.h"

namespace tx {
namespace cpu {
namespace {

// kFast: Fingerprint64; kLegacy: TensorFlow's Hash64; kStrong: SipHash-2-4 under `key`.
enum class Hash { kFast, kLegacy, kStrong };

template <Hash kHash>
class HashBucketOp : public OpKernel {
 public:
  explicit HashBucketOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("num_buckets", &num_buckets_));
    if (kHash == Hash::kStrong) {
      std::vector<int64_t> key;
      c->SetStatus(c->GetAttr("key", &key));
      if (c->status().ok() && key.size() != 2)
        c->SetStatus(InvalidArgument("Key must have 2 elements, got ", key.size()));
      if (key.size() == 2) key_[0] = static_cast<uint64_t>(key[0]), key_[1] = static_cast<uint64_t>(key[1]);
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const uint64_t buckets = static_cast<uint64_t>(num_buckets_);
    MapStrings<int64_t>(ctx, [&](const TString& s, int64_t* out) {
      uint64_t h;
      if (kHash == Hash::kFast)
        h = strhash::Fingerprint64(s.data(), s.size());
      else if (kHash == Hash::kLegacy)
        h = strhash::Hash64(s.data(), s.size());
      else
        h = strhash::SipHash24(key_[0], key_[1], s.data(), s.size());
      *out = static_cast<int64_t>(h % buckets);
      return Status::OK();
    });
  }

 private:
  int64_t num_buckets_ = 1;
  uint64_t key_[2] = {0, 0};
};

constexpr char kWebSafe[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

class EncodeBase64Op : public OpKernel {
 public:
  explicit EncodeBase64Op(OpKernelConstruction* c) : OpKernel(c) { c->SetStatus(c->GetAttr("pad", &pad_)); }
  void Compute(OpKernelContext* ctx) override {
    MapStrings<TString>(ctx, [&](const TString& s, TString* out) {
      const size_t n = s.size(), full = n / 3, rest = n % 3;
      const size_t size = 4 * full + (rest == 0 ? 0 : pad_ ? 4 : rest + 1);
      char* p = out->ResizeUninitialized(size);
      if (p == nullptr) return StringTooLarge(size);
      const unsigned char* b = reinterpret_cast<const unsigned char*>(s.data());
      for (size_t i = 0; i < full; ++i, b += 3) {
        *p++ = kWebSafe[b[0] >> 2];
        *p++ = kWebSafe[((b[0] & 3) << 4) | (b[1] >> 4)];
        *p++ = kWebSafe[((b[1] & 15) << 2) | (b[2] >> 6)];
        *p++ = kWebSafe[b[2] & 63];
      }
      if (rest > 0) {
        *p++ = kWebSafe[b[0] >> 2];
        const unsigned second = rest == 2 ? b[1] : 0;
        *p++ = kWebSafe[((b[0] & 3) << 4) | (second >> 4)];
        if (rest == 2) *p++ = kWebSafe[(second & 15) << 2];
        if (pad_) *p++ = '=';
        if (pad_ && rest == 1) *p++ = '=';
      }
      return Status::OK();
    });
  }

 private:
  bool pad_ = false;
};

int Base64Value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '-') return 62;
  if (c == '_') return 63;
  return -1;
}

// Decodes as TensorFlow's Base64Decode: groups of four web-safe characters; a last group of four
// may end in "=" or "=="; a remainder of one character is an error.
Status DecodeBase64(std::string_view in, std::string* out) {
  out->clear();
  if (in.empty()) return Status::OK();
  size_t end = in.size();
  size_t i = 0;
  auto group = [&](const char* g, size_t chars) {
    int v[4] = {0, 0, 0, 0};
    for (size_t k = 0; k < 4; ++k) {
      v[k] = Base64Value(g[k]);
      if (v[k] < 0) return false;
    }
    const unsigned char bytes[3] = {static_cast<unsigned char>((v[0] << 2) | (v[1] >> 4)),
                                    static_cast<unsigned char>(((v[1] & 15) << 4) | (v[2] >> 2)),
                                    static_cast<unsigned char>(((v[2] & 3) << 6) | v[3])};
    out->append(reinterpret_cast<const char*>(bytes), chars - 1);
    return true;
  };
  for (; end - i > 4; i += 4)
    if (!group(in.data() + i, 4)) return InvalidArgument("Invalid character found in base64.");
  if (end - i == 4) {
    if (in[i + 2] == '=' && in[i + 3] == '=')
      end -= 2;
    else if (in[i + 3] == '=')
      end -= 1;
  }
  const size_t remain = end - i;
  if (remain == 1) return InvalidArgument("Base64 string length cannot be 1 modulo 4.");
  char tail[4] = {'A', 'A', 'A', 'A'};
  std::memcpy(tail, in.data() + i, remain);
  if (remain > 0 && !group(tail, remain)) return InvalidArgument("Invalid character found in base64.");
  return Status::OK();
}

class DecodeBase64Op : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    MapStrings<TString>(ctx, [](const TString& s, TString* out) {
      std::string bytes;
      TX_RETURN_IF_ERROR(DecodeBase64(s.view(), &bytes));
      return AssignString(bytes, out);
    });
  }
};

// Each string's bytes as a vector of out_type; every string must have the same length.
class DecodeRawOp : public OpKernel {
 public:
  explicit DecodeRawOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("out_type", &out_type_));
    c->SetStatus(c->GetAttr("little_endian", &little_endian_));
  }

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DT_STRING));
    const Tensor& in = ctx->input(0);
    const TString* s = in.data<TString>();
    const int64_t n = in.num_elements();
    const size_t elem = DataTypeSize(out_type_);
    const size_t size = n > 0 ? s[0].size() : 0;
    for (int64_t i = 1; i < n; ++i) {
      if (s[i].size() != size) {
        ctx->SetStatus(InvalidArgument("DecodeRaw requires input strings to all be the same size, but element ", i,
                                       " has size ", s[i].size(), " != ", size));
        return;
      }
    }
    if (size % elem != 0) {
      ctx->SetStatus(InvalidArgument("Input to DecodeRaw has length ", size, " that is not a multiple of ", elem,
                                     ", the size of ", DataTypeString(out_type_)));
      return;
    }
    std::vector<int64_t> dims = in.shape().dims();
    dims.push_back(static_cast<int64_t>(size / elem));
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, TensorShape(dims), &out));
    char* o = static_cast<char*>(out->raw_data());
    // Complex elements swap each of their two halves, as TensorFlow does.
    const size_t unit = (out_type_ == DT_COMPLEX64 || out_type_ == DT_COMPLEX128) ? elem / 2 : elem;
    for (int64_t i = 0; i < n; ++i) {
      char* dst = o + static_cast<size_t>(i) * size;
      if (size > 0) std::memcpy(dst, s[i].data(), size);
      if (!little_endian_ && unit > 1)
        for (size_t k = 0; k < size; k += unit) std::reverse(dst + k, dst + k + unit);
    }
    if (out_type_ == DT_BOOL)  // Note [Canonical bool]
      for (size_t k = 0; k < static_cast<size_t>(n) * size; ++k) o[k] = o[k] != 0;
  }

 private:
  DataType out_type_ = DT_FLOAT;
  bool little_endian_ = true;
};

TX_REGISTER_KERNEL(KernelDefBuilder("StringToHashBucketFast"), HashBucketOp<Hash::kFast>);
TX_REGISTER_KERNEL(KernelDefBuilder("StringToHashBucket"), HashBucketOp<Hash::kLegacy>);
TX_REGISTER_KERNEL(KernelDefBuilder("StringToHashBucketStrong"), HashBucketOp<Hash::kStrong>);
TX_REGISTER_KERNEL(KernelDefBuilder("EncodeBase64"), EncodeBase64Op);
TX_REGISTER_KERNEL(KernelDefBuilder("DecodeBase64"), DecodeBase64Op);
TX_REGISTER_KERNEL(KernelDefBuilder("DecodeRaw"), DecodeRawOp);

}  // namespace
}  // namespace cpu
}  // namespace tx
