// The regex matcher: a Pike VM over the compiled program, and RE2's Replace / GlobalReplace
// (Note [Regex engine] in regex.h).
#include <algorithm>
#include <cctype>

#include "tensorflux/lib/regex_internal.h"
#include "tensorflux/lib/utf8.h"

namespace tx {
namespace regex {
namespace {

bool IsWordByte(size_t i, std::string_view text) {
  if (i >= text.size()) return false;
  const unsigned char c = static_cast<unsigned char>(text[i]);
  return std::isalnum(c) || c == '_';
}

bool Holds(Assertion a, size_t i, std::string_view text) {
  switch (a) {
    case Assertion::kBeginText: return i == 0;
    case Assertion::kEndText: return i == text.size();
    case Assertion::kBeginLine: return i == 0 || text[i - 1] == '\n';
    case Assertion::kEndLine: return i == text.size() || text[i] == '\n';
    case Assertion::kWordBoundary: return (i > 0 && IsWordByte(i - 1, text)) != IsWordByte(i, text);
    case Assertion::kNoWordBoundary: return (i > 0 && IsWordByte(i - 1, text)) == IsWordByte(i, text);
  }
  return false;
}

// Threads waiting at one text position, in priority order, each with its capture slots.
class ThreadList {
 public:
  ThreadList(size_t ninsts, int ncap) : where_(ninsts, -1), ncap_(ncap) {}
  // True when `pc` was visited at this position (a sparse set: where_ may hold stale indices).
  bool Contains(int pc) const { return where_[pc] >= 0 && where_[pc] < size_ && pcs_[where_[pc]] == pc; }
  // Marks `pc` as visited; `keep` entries (consuming or matching instructions) are threads.
  void Insert(int pc, bool keep, const int64_t* caps) {
    if (static_cast<size_t>(size_) == pcs_.size()) {
      pcs_.resize(pcs_.size() * 2 + 8);
      keep_.resize(pcs_.size());
      caps_.resize(pcs_.size() * static_cast<size_t>(ncap_));
    }
    where_[pc] = size_;
    pcs_[size_] = pc;
    keep_[size_] = keep;
    if (keep) std::copy(caps, caps + ncap_, caps_.begin() + static_cast<ptrdiff_t>(size_) * ncap_);
    ++size_;
  }
  int size() const { return size_; }
  // The instruction of entry k, or -1 for an entry that was only visited.
  int pc(int k) const { return keep_[k] ? pcs_[k] : -1; }
  const int64_t* caps(int k) const { return caps_.data() + static_cast<ptrdiff_t>(k) * ncap_; }
  void Clear() { size_ = 0; }

 private:
  std::vector<int> where_;  // pc -> index in pcs_
  std::vector<int> pcs_;
  std::vector<char> keep_;
  std::vector<int64_t> caps_;
  int size_ = 0;
  int ncap_;
};

class Matcher {
 public:
  Matcher(const Regex::Program& p, std::string_view text, int ncap)
      : p_(p), text_(text), ncap_(ncap), cur_(static_cast<size_t>(ncap), -1) {
    for (int k = 0; k < kLists; ++k) lists_.emplace_back(p.insts.size(), ncap);
  }

  // Runs from byte `start`; `anchored` starts threads there only, `full` accepts matches ending
  // at the end of the text only. Fills `best` (ncap slots) and returns whether a match was found.
  bool Run(size_t start, bool anchored, bool full, std::vector<int64_t>* best) {
    bool matched = false;
    for (ThreadList& l : lists_) l.Clear();
    const std::vector<int64_t> fresh(static_cast<size_t>(ncap_), -1);
    for (size_t i = start; i <= text_.size(); ++i) {
      ThreadList& clist = lists_[i % kLists];
      if (!matched && (!anchored || i == start)) Add(clist, p_.start, i, fresh.data());
      if (clist.size() == 0) {
        if (matched || anchored) {
          bool pending = false;  // threads still consuming a multi-byte character
          for (const ThreadList& l : lists_) pending = pending || l.size() > 0;
          if (!pending) break;
        }
        continue;
      }
      int32_t rune = utf8::kInvalidRune;
      int width = 1;
      if (i < text_.size()) width = utf8::DecodeRune(text_.data() + i, text_.size() - i, &rune);
      ThreadList& nlist = lists_[(i + static_cast<size_t>(width)) % kLists];
      for (int k = 0; k < clist.size(); ++k) {
        const int pc = clist.pc(k);
        if (pc < 0) continue;
        const Inst& inst = p_.insts[pc];
        if (inst.op == Inst::kMatch) {
          if (full && i != text_.size()) continue;
          best->assign(clist.caps(k), clist.caps(k) + ncap_);
          matched = true;
          break;  // lower-priority threads lose to this match (leftmost-first)
        }
        if (inst.op == Inst::kRanges && i < text_.size() && p_.classes[inst.arg].Contains(rune))
          Add(nlist, inst.x, i + static_cast<size_t>(width), clist.caps(k));
      }
      clist.Clear();
    }
    return matched;
  }

 private:
  static constexpr int kLists = 5;  // positions i .. i + 4 (the longest UTF-8 character)

  // Adds the thread at `pc0` with captures `caps` to `l` at position `i`, following jumps,
  // splits (preferred branch first), saves and assertions without recursion.
  void Add(ThreadList& l, int pc0, size_t i, const int64_t* caps) {
    std::copy(caps, caps + ncap_, cur_.begin());
    stack_.clear();
    stack_.push_back({pc0, -1, 0});
    while (!stack_.empty()) {
      const Entry e = stack_.back();
      stack_.pop_back();
      if (e.slot >= 0) {
        cur_[e.slot] = e.value;
        continue;
      }
      if (l.Contains(e.pc)) continue;
      const Inst& inst = p_.insts[e.pc];
      const bool keep = inst.op == Inst::kRanges || inst.op == Inst::kMatch;
      l.Insert(e.pc, keep, cur_.data());
      switch (inst.op) {
        case Inst::kJmp: stack_.push_back({inst.x, -1, 0}); break;
        case Inst::kSplit:
          stack_.push_back({inst.y, -1, 0});
          stack_.push_back({inst.x, -1, 0});
          break;
        case Inst::kSave:
          if (inst.arg < ncap_) {
            stack_.push_back({0, inst.arg, cur_[inst.arg]});
            cur_[inst.arg] = static_cast<int64_t>(i);
          }
          stack_.push_back({inst.x, -1, 0});
          break;
        case Inst::kAssert:
          if (Holds(inst.assertion, i, text_)) stack_.push_back({inst.x, -1, 0});
          break;
        default: break;
      }
    }
  }

  // A pending step of Add: visit `pc`, or (slot >= 0) restore cur_[slot] = value.
  struct Entry {
    int pc;
    int slot;
    int64_t value;
  };

  const Regex::Program& p_;
  std::string_view text_;
  const int ncap_;
  std::vector<ThreadList> lists_;
  std::vector<int64_t> cur_;
  std::vector<Entry> stack_;
};

// The highest group number a rewrite refers to (\0 .. \9), as RE2's MaxSubmatch.
int MaxSubmatch(std::string_view rewrite) {
  int max = 0;
  for (size_t k = 0; k < rewrite.size(); ++k) {
    if (rewrite[k] != '\\') continue;
    ++k;
    if (k < rewrite.size() && rewrite[k] >= '0' && rewrite[k] <= '9') max = std::max(max, rewrite[k] - '0');
  }
  return max;
}

// Appends `rewrite` with groups substituted; false at an invalid escape (what was written so far
// stays, as in RE2::Rewrite).
bool Rewrite(std::string_view text, std::string_view rewrite, const std::vector<int64_t>& spans, std::string* out) {
  for (size_t k = 0; k < rewrite.size(); ++k) {
    if (rewrite[k] != '\\') {
      out->push_back(rewrite[k]);
      continue;
    }
    ++k;
    const char c = k < rewrite.size() ? rewrite[k] : '\0';
    if (c >= '0' && c <= '9') {
      const size_t g = static_cast<size_t>(c - '0');
      if (2 * g + 1 >= spans.size()) return false;
      if (spans[2 * g] >= 0) out->append(text.substr(spans[2 * g], spans[2 * g + 1] - spans[2 * g]));
    } else if (c == '\\') {
      out->push_back('\\');
    } else {
      return false;
    }
  }
  return true;
}

}  // namespace

Regex::Regex(std::unique_ptr<Program> prog) : prog_(std::move(prog)) {}
Regex::~Regex() = default;

std::unique_ptr<Regex> Regex::Compile(std::string_view pattern, std::string* error) {
  int ngroups = 0;
  std::unique_ptr<Node> tree = Parse(pattern, &ngroups, error);
  if (tree == nullptr) return nullptr;
  std::unique_ptr<Program> prog = CompileTree(*tree, ngroups, error);
  if (prog == nullptr) return nullptr;
  return std::unique_ptr<Regex>(new Regex(std::move(prog)));
}

int Regex::num_groups() const { return prog_->ngroups; }

bool Regex::FullMatch(std::string_view text) const {
  std::vector<int64_t> spans;
  return Matcher(*prog_, text, 0).Run(0, /*anchored=*/true, /*full=*/true, &spans);
}

bool Regex::Search(std::string_view text, size_t start, int nspans, std::vector<int64_t>* spans) const {
  const int n = std::max(1, std::min(nspans, prog_->ngroups + 1));
  spans->assign(2 * static_cast<size_t>(n), -1);
  return Matcher(*prog_, text, 2 * n).Run(start, /*anchored=*/false, /*full=*/false, spans);
}

int Replace(const Regex& re, std::string_view text, std::string_view rewrite, bool global, std::string* out) {
  const int nvec = 1 + MaxSubmatch(rewrite);
  out->assign(text.data(), text.size());
  if (nvec > 1 + re.num_groups()) return 0;  // RE2 refuses rewrites naming missing groups
  std::vector<int64_t> spans;
  if (!global) {
    if (!re.Search(text, 0, nvec, &spans)) return 0;
    std::string piece;
    if (!Rewrite(text, rewrite, spans, &piece)) return 0;
    out->replace(static_cast<size_t>(spans[0]), static_cast<size_t>(spans[1] - spans[0]), piece);
    return 1;
  }
  std::string result;
  size_t p = 0;
  int64_t last_end = -1;
  int count = 0;
  Matcher m(re.program(), text, 2 * nvec);
  spans.assign(2 * static_cast<size_t>(nvec), -1);
  while (p <= text.size()) {
    if (!m.Run(p, /*anchored=*/false, /*full=*/false, &spans)) break;
    const size_t b = static_cast<size_t>(spans[0]), e = static_cast<size_t>(spans[1]);
    if (p < b) result.append(text.substr(p, b - p));
    if (static_cast<int64_t>(b) == last_end && b == e) {
      // An empty match right after the previous match: copy one character and go on.
      if (p < text.size()) {
        int32_t rune;
        const int len = utf8::DecodeRune(text.data() + p, text.size() - p, &rune);
        result.append(text.substr(p, static_cast<size_t>(len)));
        p += static_cast<size_t>(len);
      } else {
        ++p;
      }
      continue;
    }
    Rewrite(text, rewrite, spans, &result);  // RE2 keeps what a bad rewrite wrote
    p = e;
    last_end = static_cast<int64_t>(e);
    ++count;
  }
  if (count == 0) return 0;
  if (p < text.size()) result.append(text.substr(p));
  *out = std::move(result);
  return count;
}

}  // namespace regex
}  // namespace tx
