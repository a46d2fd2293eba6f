// The regex engine's parse tree and program (Note [Regex engine] in regex.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tensorflux/lib/regex.h"

namespace tx {
namespace regex {

// Sorted, non-overlapping, non-adjacent inclusive code point ranges.
using Ranges = std::vector<std::pair<int32_t, int32_t>>;

// Zero-width assertions.
enum class Assertion : uint8_t { kBeginLine, kEndLine, kBeginText, kEndText, kWordBoundary, kNoWordBoundary };

// A node of the parse tree. Literals are one-rune classes (case folding already applied).
struct Node {
  enum Kind : uint8_t { kEmpty, kClass, kAssert, kCapture, kConcat, kAlternate, kRepeat };
  Kind kind = kEmpty;
  Ranges ranges;  // kClass
  Assertion assertion{};  // kAssert
  int capture = 0;  // kCapture: group number (1-based)
  int min = 0, max = 0;  // kRepeat: max -1 is unbounded
  bool greedy = true;  // kRepeat
  std::vector<std::unique_ptr<Node>> subs;
};

// Parses `pattern`; nullptr and *error (RE2's wording) on failure. *ngroups receives the number
// of capturing groups.
std::unique_ptr<Node> Parse(std::string_view pattern, int* ngroups, std::string* error);

// Normalizes `r` (sorts and merges overlapping or adjacent ranges).
void Normalize(Ranges* r);
// The complement of normalized `r` within [0, utf8::kMaxRune].
Ranges Complement(const Ranges& r);

// One instruction of the Pike VM.
struct Inst {
  enum Op : uint8_t { kRanges, kSplit, kJmp, kSave, kAssert, kMatch };
  Op op = kMatch;
  Assertion assertion{};  // kAssert
  int32_t x = -1;  // next instruction (kSplit: the preferred branch)
  int32_t y = -1;  // kSplit: the other branch
  int32_t arg = 0;  // kRanges: class index; kSave: capture slot
};

// A class as ranges plus a bitmap of its ASCII members (the common case, checked first).
struct CharClass {
  Ranges ranges;
  uint64_t ascii[2] = {0, 0};
  bool Contains(int32_t r) const;
};

struct Regex::Program {
  std::vector<Inst> insts;
  std::vector<CharClass> classes;
  int start = 0;
  int ngroups = 0;
};

// Compiles a parse tree; nullptr and *error when the program would be too large.
std::unique_ptr<Regex::Program> CompileTree(const Node& root, int ngroups, std::string* error);

}  // namespace regex
}  // namespace tx
