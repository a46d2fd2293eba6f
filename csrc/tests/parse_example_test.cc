// ParseExampleV2's two paths against each other (Note [Fast Example parsing]): on random
// Examples, written in every encoding the wire format allows and then often damaged, the fast path
// must give the reference decoder's outputs bit for bit, and decline exactly the batches the
// reference rejects. Values against TensorFlow are checked by core/tests/test_parse_example.py.
#include <cstdio>
#include <algorithm>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "kernel_test_util.h"
#include "test_util.h"
#include "tensorflux/core/tstring.h"
#include "tensorflux/framework/proto_wire.h"
#include "tensorflux/kernels/cpu/parse_example.h"

using namespace tx;
using namespace tx::cpu;
using namespace tx_test;

namespace {

// One requested feature: sparse (VarLen) or dense of `shape` with `defaults` values.
struct Want {
  std::string key;
  DataType dtype;
  bool sparse;
  std::vector<int64_t> shape;  // dense; a first -1 for FixedLenSequenceFeature
  int defaults;  // dense: number of default values (0: required / zero padding)
};

Tensor Strings(const std::vector<std::string>& v) {
  std::vector<TString> s;
  for (const std::string& x : v) s.emplace_back(x);
  return MakeTensor<TString>(TensorShape({static_cast<int64_t>(v.size())}), s);
}

Tensor Defaults(const Want& w) {
  const TensorShape shape({w.defaults});
  if (w.dtype == DT_FLOAT) {
    std::vector<float> v;
    for (int i = 0; i < w.defaults; ++i) v.push_back(0.25f * i - 1);
    return MakeTensor<float>(shape, v);
  }
  if (w.dtype == DT_INT64) {
    std::vector<int64_t> v;
    for (int i = 0; i < w.defaults; ++i) v.push_back(-7 - i);
    return MakeTensor<int64_t>(shape, v);
  }
  std::vector<TString> v;
  for (int i = 0; i < w.defaults; ++i) v.emplace_back(std::string(i == 0 ? 3 : 30, static_cast<char>('p' + i)));
  return MakeTensor<TString>(shape, v);
}

// A ParseExampleV2 node asking for `wants` (sparse ones first, as the Python front end orders them).
class Parser {
 public:
  explicit Parser(std::vector<Want> wants) : wants_(std::move(wants)) {
    AttrMap attrs;
    AttrValue sparse_types = AttrValue::EmptyList(), dense_types = AttrValue::EmptyList();
    AttrValue shapes = AttrValue::EmptyList();
    std::vector<std::string> sparse_keys, dense_keys;
    for (const Want& w : wants_) {
      if (w.sparse) {
        sparse_types.list.type.push_back(w.dtype);
        sparse_keys.push_back(w.key);
      } else {
        dense_types.list.type.push_back(w.dtype);
        shapes.list.shape.push_back(PartialShape(w.shape));
        dense_keys.push_back(w.key);
        defaults_.push_back(Defaults(w));
      }
    }
    sparse_types_ = sparse_types.list.type;
    dense_types_ = dense_types.list.type;
    shapes_ = shapes.list.shape;
    keys_ = {Strings(sparse_keys), Strings(dense_keys), Strings({})};
    attrs["num_sparse"] = AttrValue::Int(static_cast<int64_t>(sparse_keys.size()));
    attrs["sparse_types"] = sparse_types;
    attrs["Tdense"] = dense_types;
    attrs["dense_shapes"] = shapes;
    attrs["ragged_value_types"] = AttrValue::EmptyList();
    attrs["ragged_split_types"] = AttrValue::EmptyList();
    NodeSpec spec;
    spec.name = "parse";
    spec.op_type = "ParseExampleV2";
    spec.attrs = attrs;
    const DataType single[5] = {DT_STRING, DT_STRING, DT_STRING, DT_STRING, DT_STRING};
    for (int i = 0; i < 5 + 1; ++i) {
      NodeSpec::InputArg arg;
      arg.is_list = i == 5;
      const int count = i == 5 ? static_cast<int>(defaults_.size()) : 1;
      for (int d = 0; d < count; ++d) {
        NodeSpec src;
        src.name = tester_.graph().UniqueName("in");
        src.op_type = "Placeholder";
        src.attrs["dtype"] = AttrValue::Type(i == 5 ? dense_types_[d] : single[i]);
        src.attrs["shape"] = AttrValue::Shape(PartialShape());
        Node* n = nullptr;
        EXPECT_OK(tester_.graph().AddNode(std::move(src), &n));
        arg.values.push_back({n, 0});
      }
      spec.inputs.push_back(arg);
    }
    EXPECT_OK(tester_.graph().AddNode(std::move(spec), &node_));
  }

  // Runs one path on `records` (a scalar when !batched); the fast one says whether it took them.
  // Each record is a view of a heap block of exactly its size, so that a sanitizer build catches
  // any read past its end.
  Status Run(const std::vector<std::string>& records, bool batched, const std::vector<std::string>& names, bool fast,
             bool* taken, std::vector<Tensor>* outputs) {
    std::vector<std::unique_ptr<char[]>> blocks;
    Tensor serialized;
    TX_RETURN_IF_ERROR(Tensor::Allocate(
        DT_STRING, batched ? TensorShape({static_cast<int64_t>(records.size())}) : TensorShape(), &serialized));
    for (size_t i = 0; i < (batched ? records.size() : 1); ++i) {
      blocks.emplace_back(new char[std::max<size_t>(records[i].size(), 1)]);
      std::memcpy(blocks.back().get(), records[i].data(), records[i].size());
      serialized.data<TString>()[i].AssignView(blocks.back().get(), records[i].size());
    }
    std::vector<Tensor> inputs = {serialized, Strings(names), keys_[0], keys_[1], keys_[2]};
    inputs.insert(inputs.end(), defaults_.begin(), defaults_.end());
    outputs->assign(node_->num_outputs(), Tensor());
    OpKernelContext ctx(node_, inputs.data(), outputs->data(), tester_.pool());
    ExampleRequest req;
    TX_RETURN_IF_ERROR(PrepareExampleRequest(ctx, sparse_types_, dense_types_, shapes_, &req));
    if (fast) {
      *taken = ParseExamplesFast(&ctx, req);
      return Status::OK();
    }
    return ParseExamplesReference(&ctx, req);
  }

  const std::vector<Want>& wants() const { return wants_; }

 private:
  std::vector<Want> wants_;
  std::vector<DataType> sparse_types_, dense_types_;
  std::vector<PartialShape> shapes_;
  std::vector<Tensor> keys_, defaults_;
  OpTester tester_{2};
  Node* node_ = nullptr;
};

bool SameTensor(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || !(a.shape() == b.shape())) return false;
  if (a.dtype() != DT_STRING) return std::memcmp(a.raw_data(), b.raw_data(), a.byte_size()) == 0;
  for (int64_t i = 0; i < a.num_elements(); ++i)
    if (a.data<TString>()[i].view() != b.data<TString>()[i].view()) return false;
  return true;
}

// `v` as a varint padded to at least `bytes` bytes (protobuf parsers accept the padding).
std::string PaddedVarint(uint64_t v, int bytes) {
  std::string out;
  for (int i = 0; v >= 0x80 || i + 1 < bytes; ++i, v >>= 7) out += static_cast<char>((v & 0x7f) | 0x80);
  out += static_cast<char>(v);
  return out;
}

// Random Examples in any encoding: packed and unpacked lists, long and padded varints, unknown
// fields, repeated keys and Features, entries without a value. A "bad" Example may also hold
// field numbers past 2^29 - 1, values of the wrong wire type, varints past 64 bits, lists of the
// wrong kind or length, missing required features and damaged bytes.
class ExampleGen {
 public:
  explicit ExampleGen(uint64_t seed) : rng_(seed) {}
  int Int(int n) { return static_cast<int>(rng_() % static_cast<uint64_t>(n)); }
  bool Chance(int percent) { return Int(100) < percent; }
  // A chance of the one fault a bad Example may have (kinds 1..kFaults).
  bool Bad(int kind, int percent) { return bad_ == kind && Chance(percent); }

  // An unknown field of a large number; in bad Examples one past the largest (fault 1), or in a
  // list field 1 of any wire type, its value made to read on as valid fields if taken for
  // another wire type (fault 10).
  std::string OddField(bool in_list) {
    switch (bad_ == 1 ? 1 : bad_ == 10 && in_list ? 2 : 0) {
      case 0: return PaddedVarint((uint64_t{0x1fffffff} - Int(2)) << 3, 1) + PaddedVarint(1, 1 + Int(3));
      case 1: return PaddedVarint(uint64_t{0x20000000} << 3, 1) + PaddedVarint(1, 1);
      default: {
        const int type = Int(6);
        const std::string tag = PaddedVarint(8 | type, 1);
        if (type == 0) return tag + PaddedVarint(Chance(50) ? 0 : rng_(), 1);
        if (type == 2) return tag + PaddedVarint(1, 1) + "x";
        // fixed32 / fixed64 values that also read as a 3- or 7-byte string, and a fixed64 whose
        // second half reads as two varint fields.
        return tag + (type == 1 ? std::string("\x07xyz\x10\x00\x10\x00", 8) : std::string("\x03xyz"));
      }
    }
  }

  std::string List(int kind, int count) {
    wire::Writer w;
    if (Chance(5)) w.WriteVarintField(9, rng_());
    if (Chance(bad_ == 1 || bad_ == 10 ? 8 : 3)) w.WriteRaw(OddField(true));
    if (kind == 3 && Chance(5)) {  // ten bytes, the last one 0..3 (more than 1 overflows 64 bits)
      w.WriteTag(1, wire::kVarint);
      w.WriteRaw(std::string(9, '\xff') + static_cast<char>(Int(bad_ == 2 ? 4 : 2)));
    }
    std::vector<uint32_t> floats;
    std::vector<uint64_t> ints;
    for (int i = 0; i < count; ++i) {
      if (kind == 1) {
        std::string s(Chance(20) ? 20 + Int(30) : Int(6), 'a');
        for (char& c : s) c = static_cast<char>(rng_());
        w.WriteBytesField(1, s);
      } else if (kind == 2) {
        floats.push_back(static_cast<uint32_t>(rng_()));
      } else {
        const int bits = 1 + Int(64);
        ints.push_back(bits == 64 ? rng_() : rng_() & ((uint64_t{1} << bits) - 1));
      }
    }
    if (kind == 2 && Chance(30)) {
      for (uint32_t f : floats) w.WriteFixed32Field(1, f);
    } else if (kind == 3 && Chance(30)) {
      for (uint64_t v : ints) w.WriteVarintField(1, v);
    } else if (kind == 2 && !floats.empty()) {
      const size_t half = Chance(20) ? floats.size() / 2 : floats.size();
      w.WritePackedFixed32(1, std::vector<uint32_t>(floats.begin(), floats.begin() + half));
      w.WritePackedFixed32(1, std::vector<uint32_t>(floats.begin() + half, floats.end()));
    } else if (kind == 3 && !ints.empty()) {
      w.WritePackedVarints(1, ints);
    } else if (kind != 1 && Chance(20)) {
      w.WriteBytesField(1, "");  // an empty packed run
    }
    return w.Release();
  }

  // True when `want` may be absent or empty (not a fixed shape without a default).
  static bool Optional(const Want& want) {
    return want.sparse || want.defaults > 0 || (!want.shape.empty() && want.shape[0] == -1);
  }

  // A Feature for `want`: its own kind and a fitting number of values, unless bad.
  std::string Feature(const Want& want) {
    const int kind = want.dtype == DT_STRING ? 1 : want.dtype == DT_FLOAT ? 2 : 3;
    int count = Int(5);
    if (!want.sparse) {
      int64_t stride = 1;
      for (size_t d = want.shape.size() && want.shape[0] == -1 ? 1 : 0; d < want.shape.size(); ++d)
        stride *= want.shape[d];
      const bool variable = !want.shape.empty() && want.shape[0] == -1;
      count = static_cast<int>(variable ? stride * Int(4) : stride);
      if (Bad(3, 30)) count += 1;
    }
    if (Optional(want) ? Chance(3) : Bad(4, 20)) count = 40 + Int(40);  // lengths of two-byte varints
    wire::Writer w;
    if (Optional(want) ? Chance(3) : Bad(5, 20)) return w.Release();  // no list (Note [Parsing Examples])
    if (Chance(5)) w.WriteBytesField(1 + Int(3), List(1 + Int(3), 2));  // replaced by the next
    w.WriteBytesField(Bad(6, 20) ? 1 + Int(3) : kind, List(kind, count));
    if (Chance(5)) w.WriteVarintField(4 + Int(20), 1);
    return w.Release();
  }

  // An Example of `wants`, bad with probability bad_percent.
  std::string Example(const std::vector<Want>& wants, int bad_percent) {
    bad_ = Chance(bad_percent) ? 1 + Int(kFaults) : 0;
    std::vector<std::string> entries;
    for (const Want& want : wants) {
      if (Optional(want) ? Chance(15) : Bad(7, 30)) continue;
      for (int copies = Chance(5) ? 2 : 1; copies > 0; --copies) {
        wire::Writer e;
        if (Chance(5)) {
          e.WriteBytesField(2, Feature(want));
          e.WriteBytesField(1, want.key);
        } else if (Chance(5)) {  // padded key and length
          e.WriteRaw(PaddedVarint(0x0a, 2) + PaddedVarint(want.key.size(), 3) + want.key);
          e.WriteBytesField(2, Feature(want));
        } else {
          e.WriteBytesField(1, want.key);
          if (!(Optional(want) ? Chance(3) : Bad(8, 30))) e.WriteBytesField(2, Feature(want));
        }
        entries.push_back(e.Release());
      }
    }
    if (Chance(30)) {
      wire::Writer e;
      e.WriteBytesField(1, "other");
      e.WriteBytesField(2, Feature({"other", DT_FLOAT, true, {}, 0}));
      entries.push_back(e.Release());
    }
    for (size_t i = entries.size(); i > 1; --i) std::swap(entries[i - 1], entries[Int(static_cast<int>(i))]);
    wire::Writer example, features, more;
    if (Chance(5)) example.WriteVarintField(2, 5);
    if (Chance(bad_ == 1 ? 30 : 3)) example.WriteRaw(OddField(false));
    for (const std::string& e : entries) (Chance(10) ? more : features).WriteBytesField(1, e);
    example.WriteBytesField(1, features.data());
    if (!more.data().empty()) example.WriteBytesField(1, more.data());
    std::string out = example.Release();
    if (Bad(9, 100) && !out.empty()) {  // damage
      const size_t at = static_cast<size_t>(Int(static_cast<int>(out.size())));
      switch (Int(4)) {
        case 0: out[at] = static_cast<char>(rng_()); break;
        case 1: out.resize(at); break;
        case 2: out.insert(out.begin() + static_cast<std::ptrdiff_t>(at), static_cast<char>(rng_())); break;
        default: out[at] = static_cast<char>(out[at] | 0x80); break;
      }
    }
    return out;
  }

 private:
  std::mt19937_64 rng_;
  static constexpr int kFaults = 10;
  int bad_ = 0;  // the fault kind of a bad Example, else 0
};

// Runs both paths on `records`: 0 when the fast one declines exactly what the reference rejects
// and otherwise gives its outputs, else 1 (printed, naming `what`); *taken: the fast one took them.
int Compare(Parser& parser, const std::vector<std::string>& records, bool batched,
            const std::vector<std::string>& names, const std::string& what, bool* taken) {
  std::vector<Tensor> fast, ref;
  Status s = parser.Run(records, batched, names, true, taken, &fast);
  if (!s.ok()) {
    std::printf("%s: %s\n", what.c_str(), s.message().c_str());
    return 1;
  }
  s = parser.Run(records, batched, names, false, nullptr, &ref);
  if (*taken != s.ok()) {
    std::printf("%s: fast %s, reference %s\n", what.c_str(), *taken ? "took it" : "declined",
                s.ok() ? "OK" : s.message().c_str());
    return 1;
  }
  for (size_t i = 0; *taken && i < ref.size(); ++i) {
    if (!SameTensor(fast[i], ref[i])) {
      std::printf("%s: output %zu differs: %s vs %s\n", what.c_str(), i, fast[i].DebugString().c_str(),
                  ref[i].DebugString().c_str());
      return 1;
    }
  }
  return 0;
}

std::vector<Want> AllKinds() {
  return {
      {"s_f", DT_FLOAT, true, {}, 0},      {"s_i", DT_INT64, true, {}, 0},     {"s_s", DT_STRING, true, {}, 0},
      {"d_f", DT_FLOAT, false, {2}, 2},    {"d_i", DT_INT64, false, {}, 0},    {"d_s", DT_STRING, false, {}, 1},
      {"d_m", DT_FLOAT, false, {2, 2}, 4}, {"d_t", DT_STRING, false, {2}, 0},  {"v_f", DT_FLOAT, false, {-1, 2}, 0},
      {"v_i", DT_INT64, false, {-1}, 1},   {"v_s", DT_STRING, false, {-1}, 1}, {"v_t", DT_STRING, false, {-1, 2}, 0},
      {"v_g", DT_FLOAT, false, {-1}, 1}};
}

}  // namespace

TEST(ParseExampleFastPathMatchesReference) {
  std::vector<std::vector<Want>> configs = {AllKinds(), {AllKinds()[4]}, {AllKinds()[0], AllKinds()[9]}};
  std::vector<Want> many = AllKinds();  // more keys than KeySlots scans
  for (int i = 0; i < 20; ++i) many.insert(many.begin(), Want{"k" + std::to_string(i), DT_INT64, true, {}, 0});
  configs.push_back(many);
  int taken = 0, declined = 0, mismatches = 0;
  std::vector<int> per_config(configs.size());
  for (size_t c = 0; c < configs.size(); ++c) {
    Parser parser(configs[c]);
    ExampleGen gen(c + 1);
    for (int trial = 0; trial < 600; ++trial) {
      const bool batched = trial % 10 != 0;
      // Now and then a batch big enough to split over the threads.
      const bool big = batched && trial % 50 == 1;
      const int size = !batched ? 1 : big ? 300 + gen.Int(300) : gen.Int(6);
      const int bad_percent = big ? gen.Int(2) : 15;
      std::vector<std::string> records, names;
      for (int b = 0; b < size; ++b) {
        records.push_back(gen.Example(parser.wants(), bad_percent));
        names.push_back("r" + std::to_string(b));
      }
      if (gen.Chance(50)) names.clear();
      bool ok = false;
      mismatches += Compare(parser, records, batched, names, "config " + std::to_string(c), &ok);
      (ok ? taken : declined) += 1;
      per_config[c] += ok;
    }
  }
  std::printf("fast path took %d batches, declined %d; per config:", taken, declined);
  for (int n : per_config) std::printf(" %d", n);
  std::printf("\n");
  EXPECT_EQ(mismatches, 0);
  EXPECT_TRUE(taken > 600 && declined > 600);  // both paths were exercised
}

// Each field number, wire type and payload at each level of an Example (the Example, Features, a
// map entry, a Feature, a list), in both paths; the feature given the odd field comes last, so
// that its bytes end the record, and a list given one may also be a value short.
TEST(ParseExampleOddFieldsAtEveryLevel) {
  Parser parser({{"f", DT_FLOAT, true, {}, 0},
                 {"i", DT_INT64, true, {}, 0},
                 {"s", DT_STRING, true, {}, 0},
                 {"g", DT_FLOAT, false, {-1}, 1},
                 {"h", DT_FLOAT, false, {2}, 0},
                 {"j", DT_INT64, false, {2}, 0},
                 {"t", DT_STRING, false, {1}, 0}});
  const std::string keys = "fisghjt";
  const int kinds[] = {2, 3, 1, 2, 2, 3, 1};  // float, int64 and bytes lists
  // Payloads that read on as valid fields, or as a string, under some other wire type.
  const std::string payloads[] = {"",
                                  std::string("\x00", 1),
                                  "\x03xyz",
                                  std::string("\x07xyz\x10\x00\x10\x00", 8),
                                  "\x05\x01\x02\x03\x04\x05\x06\x07\x08\x09",
                                  "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"};
  const uint64_t numbers[] = {1, 2, 3, 0x1fffffff, 0x20000000};
  int taken = 0, mismatches = 0;
  for (int level = 0; level < 5; ++level) {
    for (int target = 0; target < 7; ++target) {
      for (uint64_t number : numbers) {
        for (int type = 0; type < 8; ++type) {
          for (int item = 0; item < 12; ++item) {
            const std::string& payload = payloads[item % 6];
            const bool short_list = item >= 6;
            if (short_list && level != 4) continue;
            const std::string odd = PaddedVarint(number << 3 | type, 1) + payload;
            wire::Writer features;
            for (int i = 0; i < 7; ++i) {
              const int k = i == 6 ? target : i < target ? i : i + 1;
              wire::Writer list, feature, entry;
              const bool one = short_list && k == target;
              if (kinds[k] == 2)
                list.WritePackedFixed32(1, one ? std::vector<uint32_t>{1} : std::vector<uint32_t>{1, 2});
              if (kinds[k] == 3)
                list.WritePackedVarints(1, one ? std::vector<uint64_t>{3} : std::vector<uint64_t>{3, 300});
              if (kinds[k] == 1 && !one) list.WriteBytesField(1, "ab");
              if (level == 4 && k == target) list.WriteRaw(odd);
              feature.WriteBytesField(kinds[k], list.data());
              if (level == 3 && k == target) feature.WriteRaw(odd);
              entry.WriteBytesField(1, std::string(1, keys[k]));
              entry.WriteBytesField(2, feature.data());
              if (level == 2 && k == target) entry.WriteRaw(odd);
              features.WriteBytesField(1, entry.data());
            }
            if (level == 1) features.WriteRaw(odd);
            wire::Writer example;
            example.WriteBytesField(1, features.data());
            if (level == 0) example.WriteRaw(odd);
            bool ok = false;
            const std::string what = "level " + std::to_string(level) + " feature " + std::to_string(target) +
                " field " + std::to_string(number) + " type " + std::to_string(type);
            mismatches += Compare(parser, {example.data(), example.data()}, true, {}, what, &ok);
            taken += ok;
          }
        }
      }
    }
  }
  EXPECT_EQ(mismatches, 0);
  std::printf("fast path took %d of the records\n", taken);
  EXPECT_TRUE(taken > 500);
}

TEST(ParseExampleKeySlots) {
  KeySlots few;
  few.Set("a", 0);
  few.Set("bb", 1);
  few.Set("a", 2);  // the later slot wins, as a map assignment
  EXPECT_EQ(few.Find("a"), 2);
  EXPECT_EQ(few.Find("bb"), 1);
  EXPECT_EQ(few.Find("b"), -1);
  EXPECT_EQ(few.Find(""), -1);
  std::vector<std::string> keys;
  for (int i = 0; i < 40; ++i) keys.push_back("key" + std::to_string(i));
  KeySlots many;
  for (int i = 0; i < 40; ++i) many.Set(keys[i], i);
  many.Set(keys[3], 99);
  for (int i = 0; i < 40; ++i) EXPECT_EQ(many.Find(keys[i]), i == 3 ? 99 : i);
  EXPECT_EQ(many.Find("key40"), -1);
}
