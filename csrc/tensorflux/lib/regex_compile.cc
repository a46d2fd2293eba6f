// The regex compiler: a parse tree to a Pike VM program (Note [Regex engine] in regex.h). Code is
// emitted back to front: Emit(node, next) returns the entry of code that matches `node` and then
// continues at `next`, so no patch lists are needed.
#include "tensorflux/lib/regex_internal.h"

namespace tx {
namespace regex {
namespace {

// About RE2's default program budget (8 MiB of memory); larger patterns fail to compile.
constexpr size_t kMaxInsts = 200000;

class Compiler {
 public:
  explicit Compiler(Regex::Program* prog) : prog_(prog) {}

  bool too_large() const { return too_large_; }

  int Emit(const Node& n, int next) {
    if (too_large_) return next;
    switch (n.kind) {
      case Node::kEmpty: return next;
      case Node::kClass: {
        CharClass cc;
        cc.ranges = n.ranges;
        for (const auto& [lo, hi] : n.ranges)
          for (int32_t c = lo; c <= hi && c < 128; ++c) cc.ascii[c >> 6] |= uint64_t{1} << (c & 63);
        prog_->classes.push_back(std::move(cc));
        Inst i;
        i.op = Inst::kRanges;
        i.x = next;
        i.arg = static_cast<int32_t>(prog_->classes.size() - 1);
        return Add(i);
      }
      case Node::kAssert: {
        Inst i;
        i.op = Inst::kAssert;
        i.assertion = n.assertion;
        i.x = next;
        return Add(i);
      }
      case Node::kCapture: {
        const int close = Save(2 * n.capture + 1, next);
        return Save(2 * n.capture, Emit(*n.subs[0], close));
      }
      case Node::kConcat:
        for (size_t k = n.subs.size(); k-- > 0;) next = Emit(*n.subs[k], next);
        return next;
      case Node::kAlternate: {
        int entry = Emit(*n.subs.back(), next);
        for (size_t k = n.subs.size() - 1; k-- > 0;) entry = Split(Emit(*n.subs[k], next), entry, true);
        return entry;
      }
      case Node::kRepeat: return EmitRepeat(n, next);
    }
    return next;
  }

  int Save(int slot, int next) {
    Inst i;
    i.op = Inst::kSave;
    i.arg = slot;
    i.x = next;
    return Add(i);
  }

  int Match() {
    Inst i;
    i.op = Inst::kMatch;
    return Add(i);
  }

 private:
  int Add(const Inst& i) {
    if (prog_->insts.size() >= kMaxInsts) {
      too_large_ = true;
      return 0;
    }
    prog_->insts.push_back(i);
    return static_cast<int>(prog_->insts.size() - 1);
  }

  // A split preferring `a` when `prefer_a`, else `b`.
  int Split(int a, int b, bool prefer_a) {
    Inst i;
    i.op = Inst::kSplit;
    i.x = prefer_a ? a : b;
    i.y = prefer_a ? b : a;
    return Add(i);
  }

  // x* (min 0) or x+ (min 1) looping on one copy of x.
  int Loop(const Node& x, bool greedy, int next, bool at_least_once) {
    const int split = Split(0, 0, true);
    if (too_large_) return next;
    const int body = Emit(x, split);
    if (too_large_) return next;
    Inst& s = prog_->insts[split];
    s.x = greedy ? body : next;
    s.y = greedy ? next : body;
    return at_least_once ? body : split;
  }

  int EmitRepeat(const Node& n, int next) {
    const Node& x = *n.subs[0];
    int entry = next;
    int copies = n.min;
    if (n.max < 0) {
      // x{min,}: min - 1 copies followed by x+ (or x* when min is 0).
      entry = Loop(x, n.greedy, next, n.min > 0);
      copies = n.min > 0 ? n.min - 1 : 0;
    } else {
      // x{min,max}: nested optional copies (x(x)?)? for the max - min optional ones; each skip
      // goes to the end.
      for (int k = 0; k < n.max - n.min && !too_large_; ++k) entry = Split(Emit(x, entry), next, n.greedy);
    }
    for (int k = 0; k < copies && !too_large_; ++k) entry = Emit(x, entry);
    return entry;
  }

  Regex::Program* prog_;
  bool too_large_ = false;
};

}  // namespace

bool CharClass::Contains(int32_t r) const {
  if (r < 0) return false;
  if (r < 128) return (ascii[r >> 6] >> (r & 63)) & 1;
  size_t lo = 0, hi = ranges.size();
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    if (r < ranges[mid].first)
      hi = mid;
    else if (r > ranges[mid].second)
      lo = mid + 1;
    else
      return true;
  }
  return false;
}

std::unique_ptr<Regex::Program> CompileTree(const Node& root, int ngroups, std::string* error) {
  auto prog = std::make_unique<Regex::Program>();
  prog->ngroups = ngroups;
  Compiler c(prog.get());
  const int match = c.Match();
  const int body = c.Emit(root, c.Save(1, match));
  prog->start = c.Save(0, body);
  if (c.too_large()) {
    *error = "pattern too large - compile failed";
    return nullptr;
  }
  return prog;
}

}  // namespace regex
}  // namespace tx
