// Safetensors checkpoint I/O: round trips, the reference writer's exact bytes, every rejected
// corruption, atomic saves, and a fuzz pass (every truncation, 20k random byte flips) that must
// only ever succeed or fail cleanly (it runs under ASan/UBSan in the sanitize session).
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

#include "tensorflux/framework/safetensors.h"
#include "test_util.h"

namespace {

using tx::Code;
using tx::Status;
using tx::Tensor;
using tx::TensorShape;
using Named = std::vector<std::pair<std::string, Tensor>>;

// A fresh directory under $TMPDIR (or /tmp) for this process.
const std::string& TempDir() {
  static const std::string dir = [] {
    const char* base = std::getenv("TMPDIR");
    std::string tmpl = std::string(base != nullptr && *base ? base : "/tmp") + "/tx_safetensors_XXXXXX";
    return std::string(mkdtemp(tmpl.data()) ? tmpl : "/tmp");
  }();
  return dir;
}

std::string PathFor(const std::string& name) { return TempDir() + "/" + name; }

void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string ReadBytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// A file image: little-endian length, header text, data.
std::string Image(const std::string& header, const std::string& data) {
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>(static_cast<uint64_t>(header.size()) >> (8 * i));
  return out + header + data;
}

// A tensor of `dtype` and `shape` whose bytes are 0, 1, 2, ... (mod 251) plus `seed`.
Tensor Filled(tx::DataType dtype, TensorShape shape, int seed = 0) {
  Tensor t;
  if (!Tensor::Allocate(dtype, shape, &t).ok()) return t;
  auto* p = static_cast<uint8_t*>(t.raw_data());
  for (size_t i = 0; i < t.byte_size(); ++i) p[i] = static_cast<uint8_t>((i + seed) % 251);
  if (dtype == tx::DT_BOOL)
    for (size_t i = 0; i < t.byte_size(); ++i) p[i] &= 1;
  return t;
}

bool SameTensor(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() && a.byte_size() == b.byte_size() &&
      (a.byte_size() == 0 || std::memcmp(a.raw_data(), b.raw_data(), a.byte_size()) == 0);
}

Status ReadFile(const std::string& path) {
  Named tensors;
  std::map<std::string, std::string> meta;
  return tx::ReadSafetensors(path, &tensors, &meta);
}

// Expects reading a file holding `bytes` to fail with `code` and a message containing `substr`.
void ExpectReadError(const std::string& bytes, Code code, const char* substr) {
  const std::string path = PathFor("bad.safetensors");
  WriteBytes(path, bytes);
  Status s = ReadFile(path);
  if (s.ok() || s.code() != code || s.message().find(substr) == std::string::npos ||
      s.message().find(path) == std::string::npos) {
    const std::string shown = bytes.size() > 8 ? bytes.substr(8, 120) : std::string();
    std::printf("  reading %s: expected code %d with '%s', got %d: %s\n", shown.c_str(), static_cast<int>(code), substr,
                static_cast<int>(s.code()), s.message().c_str());
    ++tx_test::Failures();
  }
}

std::vector<std::string> FilesIn(const std::string& dir) {
  std::vector<std::string> out;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return out;
  while (dirent* e = readdir(d))
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) out.push_back(e->d_name);
  closedir(d);
  return out;
}

}  // namespace

TEST(RoundTripsEveryDtypeAndShape) {
  Named in;
  const tx::DataType dtypes[] = {tx::DT_DOUBLE, tx::DT_FLOAT,  tx::DT_HALF,  tx::DT_BFLOAT16, tx::DT_COMPLEX64,
                                 tx::DT_INT64,  tx::DT_INT32,  tx::DT_INT16, tx::DT_INT8,     tx::DT_UINT64,
                                 tx::DT_UINT32, tx::DT_UINT16, tx::DT_UINT8, tx::DT_BOOL};
  int k = 0;
  for (tx::DataType dt : dtypes) {
    const std::string n = tx::DataTypeString(dt);
    in.emplace_back(n + "/matrix", Filled(dt, TensorShape({3, 5}), k++));
    in.emplace_back(n + "/scalar", Filled(dt, TensorShape({}), k++));
    in.emplace_back(n + "/empty", Filled(dt, TensorShape({0, 4}), k++));
  }
  std::map<std::string, std::string> meta = {{"format", "pt"}, {"quote\"and\\slash", "line\nbreak\x01 é"}};
  const std::string path = PathFor("all.safetensors");
  EXPECT_OK(tx::WriteSafetensors(path, in, meta));
  Named out;
  std::map<std::string, std::string> meta_out;
  EXPECT_OK(tx::ReadSafetensors(path, &out, &meta_out));
  EXPECT_EQ(out.size(), in.size());
  EXPECT_TRUE(meta_out == meta);
  for (const auto& [name, t] : in) {
    bool found = false;
    for (const auto& [n2, t2] : out)
      if (n2 == name) found = SameTensor(t, t2);
    if (!found) std::printf("  tensor %s did not round-trip\n", name.c_str());
    EXPECT_TRUE(found);
  }
  // The engine allocates loaded tensors itself (aligned, reusable by kernels).
  EXPECT_TRUE(out[0].second.buffer()->owned());
}

TEST(HeaderAndLayoutMatchTheReferenceWriter) {
  // Expected bytes produced by the `safetensors` package 0.8.0 for the same dict.
  Named in = {{"b", Filled(tx::DT_FLOAT, TensorShape({3}))},     {"a", Filled(tx::DT_INT8, TensorShape({2}))},
              {"c", Filled(tx::DT_DOUBLE, TensorShape({2, 2}))}, {"z", Filled(tx::DT_FLOAT, TensorShape({0}))},
              {"s", Filled(tx::DT_FLOAT, TensorShape({}))},      {"u", Filled(tx::DT_UINT16, TensorShape({2}))},
              {"bo", Filled(tx::DT_BOOL, TensorShape({2}))},     {"h", Filled(tx::DT_HALF, TensorShape({1}))}};
  const std::string want =
      "{\"__metadata__\":{\"k\":\"v\"},\"c\":{\"dtype\":\"F64\",\"shape\":[2,2],\"data_offsets\":[0,32]},"
      "\"b\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[32,44]},\"s\":{\"dtype\":\"F32\",\"shape\":[],"
      "\"data_offsets\":[44,48]},\"z\":{\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[48,48]},\"h\":{\"dtype\":"
      "\"F16\",\"shape\":[1],\"data_offsets\":[48,50]},\"u\":{\"dtype\":\"U16\",\"shape\":[2],\"data_offsets\":[50,54]}"
      ",\"a\":{\"dtype\":\"I8\",\"shape\":[2],\"data_offsets\":[54,56]},\"bo\":{\"dtype\":\"BOOL\",\"shape\":[2],"
      "\"data_offsets\":[56,58]}}     ";
  const std::string path = PathFor("layout.safetensors");
  EXPECT_OK(tx::WriteSafetensors(path, in, {{"k", "v"}}));
  const std::string bytes = ReadBytes(path);
  EXPECT_EQ(bytes.size(), 8 + want.size() + 58);
  EXPECT_TRUE(bytes.substr(8, want.size()) == want);
  EXPECT_TRUE(bytes.compare(0, 8, std::string("\xd8\x01\0\0\0\0\0\0", 8)) == 0);  // 472
  // The data buffer holds c, b, s, z, h, u, a, bo back to back.
  EXPECT_TRUE(std::memcmp(bytes.data() + 8 + want.size(), in[2].second.raw_data(), 32) == 0);
  EXPECT_TRUE(std::memcmp(bytes.data() + 8 + want.size() + 56, in[6].second.raw_data(), 2) == 0);
}

TEST(ParsesValidJsonVariants) {
  tx::SafetensorsHeader h;
  // Whitespace everywhere, escapes, surrogate pairs, an empty metadata object, raw UTF-8.
  EXPECT_OK(tx::ParseSafetensorsHeader(
      " {\n\t\"__metadata__\" : { } , \"\\u00e9\\ud83d\\ude00\\n\\/\" : { \"shape\" : [ 2 ] ,"
      " \"data_offsets\" : [ 0 , 2 ], \"dtype\" : \"U8\" }, \"ü\": {\"dtype\":\"I8\",\"shape\":[],"
      "\"data_offsets\":[2,3]} }\r\n   ",
      &h));
  EXPECT_EQ(h.tensors.size(), 2u);
  EXPECT_TRUE(h.tensors[0].name == "\xc3\xa9\xf0\x9f\x98\x80\n/");
  EXPECT_TRUE(h.tensors[1].name == "\xc3\xbc");
  EXPECT_TRUE(h.metadata.empty());
  EXPECT_OK(tx::ParseSafetensorsHeader("{}", &h));
  EXPECT_EQ(h.tensors.size(), 0u);
}

TEST(RejectsMalformedHeaders) {
  const std::string ok_entry = "\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]";
  struct Case {
    std::string json;
    const char* error;
  } cases[] = {
      {"", "expected '{'"},
      {"[]", "expected '{'"},
      {"{", "expected a string"},
      {"{\"a\":{" + ok_entry + "},}", "expected a string"},
      {"{\"a\":{" + ok_entry + "}} x", "trailing garbage"},
      {"{\"a\":{" + ok_entry + "}}{}", "trailing garbage"},
      {"{\"a\" {" + ok_entry + "}}", "expected ':'"},
      {"{\"a\":{" + ok_entry + "}", "unexpected end, expected '}'"},
      {"{\"a\":{\"dtype\":\"F32\",\"shape\":[1,],\"data_offsets\":[0,4]}}", "expected an integer"},
      {"{\"a\":{\"dtype\":\"F32\",\"shape\":[01],\"data_offsets\":[0,4]}}", "leading zero"},
      {"{\"a\":{\"dtype\":\"F32\",\"shape\":[-1],\"data_offsets\":[0,4]}}", "non-negative"},
      {"{\"a\":{\"dtype\":\"F32\",\"shape\":[1.0],\"data_offsets\":[0,4]}}", "fraction or exponent"},
      {"{\"a\":{\"dtype\":\"F32\",\"shape\":[1e0],\"data_offsets\":[0,4]}}", "fraction or exponent"},
      {"{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,18446744073709551616]}}", "64 bits"},
      {"{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0]}}", "2 entries"},
      {"{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4,8]}}", "2 entries"},
      {"{\"a\":{\"dtype\":\"F32\",\"shape\":[1]}}", "lacks \"data_offsets\""},
      {"{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4],\"x\":1}}", "unknown field \"x\""},
      {"{\"a\":{\"dtype\":\"F32\",\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}", "duplicate field"},
      {"{\"a\":{\"dtype\":\"X32\",\"shape\":[1],\"data_offsets\":[0,4]}}", "unknown dtype \"X32\""},
      {"{\"a\":{\"dtype\":3,\"shape\":[1],\"data_offsets\":[0,4]}}", "must be a string"},
      {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,4]}}", "needs 2 * 4 bytes"},
      {"{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,0]}}", "end before they begin"},
      {"{\"a\":{\"dtype\":\"U8\",\"shape\":[4294967296,4294967296],\"data_offsets\":[0,0]}}", "invalid shape"},
      {"{\"a\":{" + ok_entry + "},\"a\":{" + ok_entry + "}}", "duplicate tensor name 'a'"},
      {"{\"\":{" + ok_entry + "}}", "empty name"},
      {"{\"__metadata__\":{\"k\":1}}", "metadata value of \"k\" must be a string"},
      {"{\"__metadata__\":{\"k\":\"v\",\"k\":\"w\"}}", "duplicate metadata key"},
      {"{\"__metadata__\":{},\"__metadata__\":{}}", "duplicate \"__metadata__\""},
      {"{\"a\nb\":{" + ok_entry + "}}", "control character"},
      {"{\"a\\x\":{" + ok_entry + "}}", "invalid escape"},
      {"{\"\\ud800\":{" + ok_entry + "}}", "low surrogate"},
      {"{\"\\udc00\":{" + ok_entry + "}}", "lone low surrogate"},
      {"{\"\\u12\":{" + ok_entry + "}}", "invalid \\u escape"},
      {"{\"\xff\":{" + ok_entry + "}}", "invalid UTF-8"},
      {"{\"\xc0\xaf\":{" + ok_entry + "}}", "invalid UTF-8"},
      {"{\"\xed\xa0\x80\":{" + ok_entry + "}}", "invalid UTF-8"},
      {"{\"abc", "unterminated string"},
  };
  for (const Case& c : cases) {
    tx::SafetensorsHeader h;
    Status s = tx::ParseSafetensorsHeader(c.json, &h);
    if (s.ok() || s.message().find(c.error) == std::string::npos) {
      std::printf("  %s: expected '%s', got '%s'\n", c.json.c_str(), c.error, s.ok() ? "OK" : s.message().c_str());
      ++tx_test::Failures();
    }
  }
  tx::SafetensorsHeader h;
  Status s = tx::ParseSafetensorsHeader("{\"a\":{\"dtype\":\"F8_E5M2\",\"shape\":[1],\"data_offsets\":[0,1]}}", &h);
  EXPECT_TRUE(s.code() == Code::kUnimplemented && s.message().find("F8_E5M2") != std::string::npos);
  s = tx::ParseSafetensorsHeader("{\"a\":{\"dtype\":\"X\",\"shape\":[1],\"data_offsets\":[0,1]}}", &h);
  EXPECT_TRUE(s.code() == Code::kDataLoss);
}

TEST(RejectsBadFiles) {
  const std::string entry = "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}";
  const std::string data(8, '\x01');
  ExpectReadError("", Code::kDataLoss, "fewer than the 8-byte header length");
  ExpectReadError("\x10\0\0", Code::kDataLoss, "fewer than the 8-byte header length");
  ExpectReadError(std::string("\x00\xe2\x01\x06\0\0\0\0", 8) + "{}", Code::kDataLoss, "exceeds the limit");
  ExpectReadError(std::string("\xff\xff\xff\xff\xff\xff\xff\xff", 8), Code::kDataLoss, "exceeds the limit");
  ExpectReadError(std::string("\x40\0\0\0\0\0\0\0", 8) + "{}", Code::kDataLoss, "runs past the end");
  ExpectReadError(Image(entry, data).substr(0, 8 + entry.size() + 5), Code::kDataLoss,
                  "runs past the end of the 5-byte");
  ExpectReadError(Image(entry, data + "xyz"), Code::kDataLoss, "3 trailing bytes");
  ExpectReadError(Image(entry, data) + "\n", Code::kDataLoss, "1 trailing bytes");
  ExpectReadError(Image(entry + "x", data), Code::kDataLoss, "trailing garbage");
  ExpectReadError(Image("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
                        "\"b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[2,6]}}",
                        data),
                  Code::kDataLoss, "overlaps tensor 'a'");
  ExpectReadError(Image("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}", data), Code::kDataLoss,
                  "hole before 'a'");
  ExpectReadError(Image("{\"a\":{\"dtype\":\"U8\",\"shape\":[0],\"data_offsets\":[9,9]}}", ""), Code::kDataLoss,
                  "hole before 'a'");
  ExpectReadError(Image("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
                        "\"b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}",
                        data.substr(4)),
                  Code::kDataLoss, "overlaps");
  ExpectReadError(Image("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}", data), Code::kDataLoss,
                  "unexpected end");
  ExpectReadError(Image("{\"a\":{\"dtype\":\"F64\",\"shape\":[2],\"data_offsets\":[0,8]}}", data), Code::kDataLoss,
                  "needs 2 * 8 bytes");
  // Zero-size tensors may share an offset with their neighbours; padding spaces are fine.
  const std::string path = PathFor("zeros.safetensors");
  WriteBytes(path,
             Image("{\"e\":{\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[8,8]},"
                   "\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
                   "\"f\":{\"dtype\":\"I8\",\"shape\":[0,3],\"data_offsets\":[0,0]}}   ",
                   data));
  EXPECT_OK(ReadFile(path));
  Status s = ReadFile(PathFor("does-not-exist.safetensors"));
  EXPECT_TRUE(s.code() == Code::kNotFound && s.message().find("does-not-exist") != std::string::npos);
  s = ReadFile(TempDir());
  EXPECT_TRUE(s.code() == Code::kFailedPrecondition && s.message().find("not a regular file") != std::string::npos);
}

TEST(RejectsBadArgumentsWithoutTouchingTheFile) {
  const std::string path = PathFor("keep.safetensors");
  Named good = {{"w", Filled(tx::DT_FLOAT, TensorShape({4}))}};
  EXPECT_OK(tx::WriteSafetensors(path, good, {}));
  const std::string before = ReadBytes(path);
  Tensor c128 = Filled(tx::DT_COMPLEX128, TensorShape({1}));
  EXPECT_ERROR(tx::WriteSafetensors(path, {{"a", good[0].second}, {"a", good[0].second}}, {}),
               "duplicate tensor name 'a'");
  EXPECT_ERROR(tx::WriteSafetensors(path, {{"", good[0].second}}, {}), "tensor #0 has an empty name");
  EXPECT_ERROR(tx::WriteSafetensors(path, {{"__metadata__", good[0].second}}, {}), "reserved");
  EXPECT_ERROR(tx::WriteSafetensors(path, {{"c", c128}}, {}), "type complex128, which the safetensors format");
  EXPECT_ERROR(tx::WriteSafetensors(path, {{"u", Tensor()}}, {}), "'u' holds no value");
  EXPECT_ERROR(tx::WriteSafetensors(path, {{"bad\xff", good[0].second}}, {}), "tensor name #0 is not valid UTF-8");
  EXPECT_ERROR(tx::WriteSafetensors(path, good, {{"k", "\xc0\xaf"}}), "must be valid UTF-8");
  EXPECT_ERROR(tx::WriteSafetensors("", good, {}), "path is empty");
  Status s = tx::WriteSafetensors(PathFor("no/such/dir/x.safetensors"), good, {});
  EXPECT_TRUE(s.code() == Code::kNotFound && s.message().find("no/such/dir") != std::string::npos);
  // A rename onto a directory fails after the data is written: the temporary file goes away.
  mkdir(PathFor("adir").c_str(), 0755);
  EXPECT_TRUE(!tx::WriteSafetensors(PathFor("adir"), good, {}).ok());
  EXPECT_TRUE(ReadBytes(path) == before);
  for (const std::string& f : FilesIn(TempDir()))
    if (f.find(".tmp-") != std::string::npos) {
      std::printf("  leftover temporary file %s\n", f.c_str());
      ++tx_test::Failures();
    }
  // Overwriting replaces the file.
  EXPECT_OK(tx::WriteSafetensors(path, {{"v", Filled(tx::DT_INT8, TensorShape({3}))}}, {}));
  Named out;
  EXPECT_OK(tx::ReadSafetensors(path, &out, nullptr));
  EXPECT_TRUE(out.size() == 1 && out[0].first == "v");
}

TEST(ReaderReadsTensorsOnDemand) {
  const std::string path = PathFor("lazy.safetensors");
  Named in = {{"x", Filled(tx::DT_FLOAT, TensorShape({2, 3}))}, {"y", Filled(tx::DT_INT64, TensorShape({5}))}};
  EXPECT_OK(tx::WriteSafetensors(path, in, {}));
  std::unique_ptr<tx::SafetensorsReader> r;
  EXPECT_OK(tx::SafetensorsReader::Open(path, &r));
  if (!r) return;
  EXPECT_EQ(r->tensors().size(), 2u);
  Tensor t;
  EXPECT_ERROR(r->ReadTensor(2, &t), "no tensor #2");
  // Truncating the file after Open is reported when the data is read.
  EXPECT_EQ(truncate(path.c_str(), 100), 0);
  Status s1 = r->ReadTensor(0, &t), s2 = r->ReadTensor(1, &t);
  EXPECT_TRUE(!s1.ok() || !s2.ok());
  EXPECT_TRUE((s1.ok() || s1.code() == Code::kDataLoss) && (s2.ok() || s2.code() == Code::kDataLoss));
}

TEST(BoolBytesAreReadCanonical) {
  // Note [Canonical bool]: a BOOL byte other than 0/1 reads as 1.
  const std::string path = PathFor("bools.safetensors");
  const std::string header = R"({"m":{"dtype":"BOOL","shape":[4],"data_offsets":[0,4]}})";
  std::string bytes(8, '\0');
  bytes[0] = static_cast<char>(header.size());
  WriteBytes(path, bytes + header + std::string("\x00\x01\x02\xff", 4));
  Named out;
  EXPECT_OK(tx::ReadSafetensors(path, &out, nullptr));
  EXPECT_TRUE(out.size() == 1 && std::memcmp(out[0].second.raw_data(), "\x00\x01\x01\x01", 4) == 0);
}

TEST(FifoIsRejectedWithoutBlocking) {
  // Opening a FIFO for reading blocks until a writer appears unless opened non-blocking.
  const std::string path = PathFor("fifo.safetensors");
  ::unlink(path.c_str());
  EXPECT_EQ(::mkfifo(path.c_str(), 0600), 0);
  Named out;
  Status s = tx::ReadSafetensors(path, &out, nullptr);
  EXPECT_TRUE(s.code() == Code::kFailedPrecondition && s.message().find("is not a regular file") != std::string::npos);
  ::unlink(path.c_str());
}

TEST(FuzzTruncationsAndByteFlips) {
  const std::string path = PathFor("valid.safetensors");
  Named in = {{"weights", Filled(tx::DT_FLOAT, TensorShape({2, 3}))},
              {"bias", Filled(tx::DT_HALF, TensorShape({3}))},
              {"step", Filled(tx::DT_INT64, TensorShape({}))},
              {"mask", Filled(tx::DT_BOOL, TensorShape({0, 2}))},
              {"ids", Filled(tx::DT_UINT8, TensorShape({5}))}};
  EXPECT_OK(tx::WriteSafetensors(path, in, {{"format", "tx"}, {"epoch", "3"}}));
  const std::string valid = ReadBytes(path);
  int failures_seen = 0, files = 0;
  auto check = [&](const std::string& bytes) {
    // A new file each time: rewriting one file in place makes ext4 flush it to disk at every close.
    const std::string fuzz = PathFor("fuzz" + std::to_string(files++) + ".safetensors");
    WriteBytes(fuzz, bytes);
    struct Unlink {
      const std::string& p;
      ~Unlink() { unlink(p.c_str()); }
    } unlink_after{fuzz};
    Named out;
    Status s = tx::ReadSafetensors(fuzz, &out, nullptr);
    if (!s.ok()) {
      ++failures_seen;
      const bool named = s.message().find(fuzz) != std::string::npos;
      const bool code_ok = s.code() == Code::kDataLoss || s.code() == Code::kUnimplemented;
      if (!named || !code_ok) {
        std::printf("  unexpected error %d: %s\n", static_cast<int>(s.code()), s.message().c_str());
        ++tx_test::Failures();
      }
      return;
    }
    // A file that parses has consistent tensors covering exactly its data buffer.
    size_t total = 0;
    for (const auto& [n, t] : out) total += t.byte_size();
    if (total > bytes.size()) ++tx_test::Failures();
  };
  for (size_t len = 0; len < valid.size(); ++len) check(valid.substr(0, len));
  EXPECT_EQ(failures_seen, static_cast<int>(valid.size()));
  std::mt19937 rng(1234);
  for (int iter = 0; iter < 20000; ++iter) {
    std::string bytes = valid;
    const int flips = 1 + static_cast<int>(rng() % 3);
    for (int f = 0; f < flips; ++f) {
      // Mostly the length field and header (where parsing happens), sometimes the data.
      const size_t header_part = std::min<size_t>(bytes.size(), 8 + 24 + rng() % bytes.size());
      const size_t limit = rng() % 4 == 0 ? bytes.size() : header_part;
      bytes[rng() % limit] = static_cast<char>(rng() % 4 == 0 ? "{}[]\",:0 9-."[rng() % 12] : rng());
    }
    check(bytes);
  }
  std::printf("  fuzz: %d of %d corrupted files were rejected\n", failures_seen,
              20000 + static_cast<int>(valid.size()));
}

// Removes the suite's temporary directory and what its cases left in it.
TX_TEST_TEARDOWN() {
  for (const std::string& f : FilesIn(TempDir())) {
    const std::string p = TempDir() + "/" + f;
    if (unlink(p.c_str()) != 0) rmdir(p.c_str());
  }
  rmdir(TempDir().c_str());
}
