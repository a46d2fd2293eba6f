// The regex parser: RE2 syntax to a parse tree (Note [Regex engine] in regex.h). Errors use RE2's
// wording so TensorFlow users see familiar messages.
#include <algorithm>
#include <cstring>

#include "tensorflux/lib/regex_internal.h"
#include "tensorflux/lib/unicode_case.h"
#include "tensorflux/lib/utf8.h"

namespace tx {
namespace regex {
namespace {

constexpr int kMaxRepeat = 1000;  // RE2's limit on {n,m} counts
constexpr int kMaxDepth = 1000;  // RE2's limit on nesting

struct Flags {
  bool fold = false, multiline = false, dotnl = false, ungreedy = false;
};

bool IsWordChar(int32_t c) {
  return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}
int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The ranges of \d, \s, \w (ASCII, as in RE2) by letter; empty for other letters.
Ranges PerlClass(char c) {
  switch (c) {
    case 'd': return {{'0', '9'}};
    case 's': return {{'\t', '\n'}, {'\f', '\r'}, {' ', ' '}};
    case 'w': return {{'0', '9'}, {'A', 'Z'}, {'_', '_'}, {'a', 'z'}};
    default: return {};
  }
}

// The ranges of a POSIX class name ("alpha"), or false when unknown.
bool PosixClass(std::string_view name, Ranges* out) {
  struct Entry {
    const char* name;
    Ranges ranges;
  };
  static const Entry kClasses[] = {
      {"alnum", {{'0', '9'}, {'A', 'Z'}, {'a', 'z'}}},
      {"alpha", {{'A', 'Z'}, {'a', 'z'}}},
      {"ascii", {{0, 0x7F}}},
      {"blank", {{'\t', '\t'}, {' ', ' '}}},
      {"cntrl", {{0, 0x1F}, {0x7F, 0x7F}}},
      {"digit", {{'0', '9'}}},
      {"graph", {{'!', '~'}}},
      {"lower", {{'a', 'z'}}},
      {"print", {{' ', '~'}}},
      {"punct", {{'!', '/'}, {':', '@'}, {'[', '`'}, {'{', '~'}}},
      {"space", {{'\t', '\r'}, {' ', ' '}}},
      {"upper", {{'A', 'Z'}}},
      {"word", {{'0', '9'}, {'A', 'Z'}, {'_', '_'}, {'a', 'z'}}},
      {"xdigit", {{'0', '9'}, {'A', 'F'}, {'a', 'f'}}},
  };
  for (const Entry& e : kClasses)
    if (name == e.name) {
      *out = e.ranges;
      return true;
    }
  return false;
}

void AddFolds(Ranges* r) {
  Ranges extra;
  std::vector<int32_t> orbit;
  for (const auto& [lo, hi] : *r) {
    for (int32_t c = std::max<int32_t>(lo, 'A'); c <= std::min(hi, unicase::kMaxFoldedRune); ++c) {
      orbit.clear();
      unicase::FoldOrbit(c, &orbit);
      for (int32_t o : orbit)
        if (o != c) extra.push_back({o, o});
    }
  }
  r->insert(r->end(), extra.begin(), extra.end());
  Normalize(r);
}

std::unique_ptr<Node> ClassNode(Ranges r) {
  auto n = std::make_unique<Node>();
  n->kind = Node::kClass;
  n->ranges = std::move(r);
  return n;
}

std::unique_ptr<Node> AssertNode(Assertion a) {
  auto n = std::make_unique<Node>();
  n->kind = Node::kAssert;
  n->assertion = a;
  return n;
}

std::unique_ptr<Node> LiteralNode(int32_t rune, const Flags& f) {
  Ranges r = {{rune, rune}};
  if (f.fold) AddFolds(&r);
  return ClassNode(std::move(r));
}

class Parser {
 public:
  explicit Parser(std::string_view p) : pat_(p) {}

  std::unique_ptr<Node> Run(int* ngroups, std::string* error) {
    Flags flags;
    std::unique_ptr<Node> root = ParseAlternate(flags, 0);
    if (root != nullptr && pos_ < pat_.size()) {  // only a ')' stops the top level early
      root = nullptr;
      Fail("unexpected ): " + std::string(pat_));
    }
    if (root == nullptr) {
      *error = error_;
      return nullptr;
    }
    *ngroups = ngroups_;
    return root;
  }

 private:
  std::nullptr_t Fail(std::string msg) {
    if (error_.empty()) error_ = std::move(msg);
    return nullptr;
  }
  bool AtEnd() const { return pos_ >= pat_.size(); }
  char Peek(size_t ahead = 0) const { return pos_ + ahead < pat_.size() ? pat_[pos_ + ahead] : '\0'; }
  std::string_view From(size_t start) const { return pat_.substr(start, pos_ - start); }

  // Reads one UTF-8 code point of the pattern; false (with the error set) when malformed.
  bool NextRune(int32_t* r) {
    const int len = utf8::DecodeRune(pat_.data() + pos_, pat_.size() - pos_, r);
    if (*r == utf8::kInvalidRune) {
      Fail("invalid UTF-8");
      return false;
    }
    pos_ += static_cast<size_t>(len);
    return true;
  }

  std::unique_ptr<Node> ParseAlternate(Flags& flags, int depth) {
    if (depth > kMaxDepth) return Fail("expression nests too deeply");
    auto alt = std::make_unique<Node>();
    alt->kind = Node::kAlternate;
    while (true) {
      std::unique_ptr<Node> branch = ParseConcat(flags, depth);
      if (branch == nullptr) return nullptr;
      alt->subs.push_back(std::move(branch));
      if (Peek() != '|' || AtEnd()) break;
      ++pos_;
    }
    if (alt->subs.size() == 1) return std::move(alt->subs[0]);
    return alt;
  }

  std::unique_ptr<Node> ParseConcat(Flags& flags, int depth) {
    auto cat = std::make_unique<Node>();
    cat->kind = Node::kConcat;
    while (!AtEnd() && Peek() != '|' && Peek() != ')') {
      const char c = Peek();
      if (c == '*' || c == '+' || c == '?')
        return Fail("missing argument to repetition operator: " + std::string(1, c));
      if (c == '{') {
        size_t save = pos_;
        int lo, hi;
        if (ParseRepeatSpec(&lo, &hi))
          return Fail("missing argument to repetition operator: " + std::string(From(save)));
        pos_ = save;
        if (!error_.empty()) return nullptr;
      }
      std::unique_ptr<Node> atom = ParseAtom(flags, depth);
      if (atom == nullptr) {
        if (!error_.empty()) return nullptr;
        continue;  // a flag group such as (?i)
      }
      atom = ParseRepeats(std::move(atom), flags);
      if (atom == nullptr) return nullptr;
      cat->subs.push_back(std::move(atom));
    }
    if (cat->subs.size() == 1) return std::move(cat->subs[0]);
    return cat;
  }

  // Applies the repetition operators following an atom (at most one, as RE2 requires).
  std::unique_ptr<Node> ParseRepeats(std::unique_ptr<Node> atom, const Flags& flags) {
    size_t first_op = std::string::npos;
    while (!AtEnd()) {
      const size_t op_start = pos_;
      int lo, hi;
      const char c = Peek();
      if (c == '*' || c == '+' || c == '?') {
        ++pos_;
        lo = c == '+' ? 1 : 0;
        hi = c == '?' ? 1 : -1;
      } else if (c == '{') {
        if (!ParseRepeatSpec(&lo, &hi)) {
          if (!error_.empty()) return nullptr;
          pos_ = op_start;
          break;  // a literal '{'
        }
      } else {
        break;
      }
      bool greedy = true;
      if (Peek() == '?' && !AtEnd()) {
        ++pos_;
        greedy = false;
      }
      if (flags.ungreedy) greedy = !greedy;
      if (first_op != std::string::npos) return Fail("bad repetition operator: " + std::string(From(first_op)));
      first_op = op_start;
      auto rep = std::make_unique<Node>();
      rep->kind = Node::kRepeat;
      rep->min = lo;
      rep->max = hi;
      rep->greedy = greedy;
      rep->subs.push_back(std::move(atom));
      atom = std::move(rep);
    }
    return atom;
  }

  // Reads {n}, {n,} or {n,m} at pos_; false (pos_ unspecified) when the text is not one, and an
  // error when it is one with counts above kMaxRepeat or m < n.
  bool ParseRepeatSpec(int* lo, int* hi) {
    const size_t start = pos_;
    ++pos_;  // '{'
    auto number = [&](int* v) {
      if (AtEnd() || Peek() < '0' || Peek() > '9') return false;
      int64_t n = 0;
      while (!AtEnd() && Peek() >= '0' && Peek() <= '9') {
        n = std::min<int64_t>(n * 10 + (Peek() - '0'), 100000);
        ++pos_;
      }
      *v = static_cast<int>(n);
      return true;
    };
    if (!number(lo)) return false;
    *hi = *lo;
    if (Peek() == ',') {
      ++pos_;
      if (Peek() == '}')
        *hi = -1;
      else if (!number(hi))
        return false;
    }
    if (Peek() != '}' || AtEnd()) return false;
    ++pos_;
    if (*lo > kMaxRepeat || *hi > kMaxRepeat || (*hi >= 0 && *hi < *lo)) {
      Fail("bad repetition operator: " + std::string(From(start)));
      return false;
    }
    return true;
  }

  // One atom; nullptr without an error for a flag group like (?i), which changes `flags`.
  std::unique_ptr<Node> ParseAtom(Flags& flags, int depth) {
    const char c = Peek();
    if (c == '(') return ParseGroup(flags, depth);
    if (c == '[') return ParseClass(flags);
    if (c == '.') {
      ++pos_;
      return flags.dotnl ? ClassNode({{0, utf8::kMaxRune}}) : ClassNode({{0, '\n' - 1}, {'\n' + 1, utf8::kMaxRune}});
    }
    if (c == '^') {
      ++pos_;
      return AssertNode(flags.multiline ? Assertion::kBeginLine : Assertion::kBeginText);
    }
    if (c == '$') {
      ++pos_;
      return AssertNode(flags.multiline ? Assertion::kEndLine : Assertion::kEndText);
    }
    if (c == '\\') return ParseEscapeAtom(flags);
    int32_t r;
    if (!NextRune(&r)) return nullptr;
    return LiteralNode(r, flags);
  }

  std::unique_ptr<Node> ParseGroup(Flags& flags, int depth) {
    const size_t start = pos_;
    ++pos_;  // '('
    int capture = 0;
    Flags inner = flags;
    if (Peek() == '?') {
      if (Peek(1) == 'P' || (Peek(1) == '<' && Peek(2) != '=' && Peek(2) != '!')) {
        pos_ += Peek(1) == 'P' ? 2 : 1;
        if (Peek() != '<') return Fail("invalid named capture group: " + std::string(From(start)) + Peek());
        const size_t close = pat_.find('>', pos_);
        if (close == std::string_view::npos)
          return Fail("invalid named capture group: " + std::string(pat_.substr(start)));
        const std::string name(pat_.substr(pos_ + 1, close - pos_ - 1));
        pos_ = close + 1;
        bool ok = !name.empty();
        for (char ch : name) ok = ok && IsWordChar(static_cast<unsigned char>(ch));
        if (!ok) return Fail("invalid named capture group: " + std::string(From(start)));
        if (std::find(names_.begin(), names_.end(), name) != names_.end())
          return Fail("duplicate capture group name: " + std::string(From(start)));
        names_.push_back(name);
        capture = ++ngroups_;
      } else {
        ++pos_;  // '?'
        // (?:...), or flags such as (?i), (?s-m), (?i:...): letters, never ending on the '-'.
        bool negate = false, after_letter = false, any = false;
        while (true) {
          if (AtEnd()) return Fail("missing closing ): " + std::string(pat_.substr(start)));
          const char f = pat_[pos_++];
          const bool letter = f == 'i' || f == 'm' || f == 's' || f == 'U';
          if (letter) {
            bool& flag = f == 'i' ? inner.fold : f == 'm' ? inner.multiline : f == 's' ? inner.dotnl : inner.ungreedy;
            flag = !negate;
            after_letter = any = true;
          } else if (f == '-' && !negate) {
            negate = true;
            after_letter = false;
          } else if ((f == ')' || f == ':') && (after_letter || (f == ':' && !any && !negate))) {
            if (f == ')') {  // flags for the rest of the enclosing group
              flags = inner;
              return nullptr;
            }
            break;
          } else {
            return Fail("invalid or unsupported Perl syntax: " + std::string(From(start)));
          }
        }
      }
    } else {
      capture = ++ngroups_;
    }
    std::unique_ptr<Node> sub = ParseAlternate(inner, depth + 1);
    if (sub == nullptr) return nullptr;
    if (AtEnd() || Peek() != ')') return Fail("missing ): " + std::string(pat_));
    ++pos_;
    if (capture == 0) return sub;
    auto cap = std::make_unique<Node>();
    cap->kind = Node::kCapture;
    cap->capture = capture;
    cap->subs.push_back(std::move(sub));
    return cap;
  }

  // Reads the rune of an escape at pos_ (just past the backslash) that denotes one character.
  bool ParseEscapeRune(size_t start, int32_t* r) {
    const char c = Peek();
    auto bad = [&](size_t len) {
      pos_ = std::min(pat_.size(), pos_ + len);
      Fail("invalid escape sequence: " + std::string(From(start)));
      return false;
    };
    if (c >= '1' && c <= '7' && !(Peek(1) >= '0' && Peek(1) <= '7')) return bad(1);  // a backreference
    if (c >= '0' && c <= '7') {
      int v = 0;
      for (int i = 0; i < 3 && Peek() >= '0' && Peek() <= '7' && !AtEnd(); ++i) v = v * 8 + (pat_[pos_++] - '0');
      *r = v;
      return true;
    }
    if (c == 'x') {
      ++pos_;
      if (Peek() == '{') {
        ++pos_;
        int64_t v = 0;
        int digits = 0;
        while (!AtEnd() && HexValue(Peek()) >= 0) {
          v = std::min<int64_t>(v * 16 + HexValue(pat_[pos_++]), int64_t{1} << 32);
          ++digits;
        }
        if (digits == 0 || Peek() != '}' || AtEnd() || v > utf8::kMaxRune) return bad(AtEnd() ? 0 : 1);
        ++pos_;
        *r = static_cast<int32_t>(v);
        return true;
      }
      if (HexValue(Peek()) < 0 || HexValue(Peek(1)) < 0 || pos_ + 1 >= pat_.size()) return bad(AtEnd() ? 0 : 1);
      *r = HexValue(Peek()) * 16 + HexValue(Peek(1));
      pos_ += 2;
      return true;
    }
    static constexpr char kControls[] = "a\af\ft\tn\nr\rv\v";
    for (int i = 0; kControls[i] != '\0'; i += 2)
      if (c == kControls[i]) {
        ++pos_;
        *r = kControls[i + 1];
        return true;
      }
    int32_t rune;
    const size_t at = pos_;
    if (!NextRune(&rune)) return false;
    if (rune < 0x80 && !IsWordChar(rune)) {  // escaped punctuation is literal
      *r = rune;
      return true;
    }
    pos_ = at;
    return bad(static_cast<size_t>(utf8::DecodeRune(pat_.data() + at, pat_.size() - at, &rune)));
  }

  std::unique_ptr<Node> ParseEscapeAtom(const Flags& flags) {
    const size_t start = pos_;
    ++pos_;  // '\'
    if (AtEnd()) return Fail("trailing \\");
    const char c = Peek();
    switch (c) {
      case 'A': ++pos_; return AssertNode(Assertion::kBeginText);
      case 'z': ++pos_; return AssertNode(Assertion::kEndText);
      case 'b': ++pos_; return AssertNode(Assertion::kWordBoundary);
      case 'B': ++pos_; return AssertNode(Assertion::kNoWordBoundary);
      case 'd':
      case 's':
      case 'w': ++pos_; return ClassNode(PerlClass(c));
      case 'D':
      case 'S':
      case 'W': ++pos_; return ClassNode(Complement(PerlClass(static_cast<char>(c + 32))));
      case 'p':
      case 'P': {
        const size_t close = Peek(1) == '{' ? pat_.find('}', pos_) : std::string_view::npos;
        pos_ = close != std::string_view::npos ? close + 1 : std::min(pat_.size(), pos_ + 2);
        return Fail("invalid character class range (Unicode classes are not supported): " + std::string(From(start)));
      }
      case 'Q': {  // literal text up to \E
        ++pos_;
        const size_t end = pat_.find("\\E", pos_);
        const std::string_view text =
            pat_.substr(pos_, end == std::string_view::npos ? std::string_view::npos : end - pos_);
        pos_ = end == std::string_view::npos ? pat_.size() : end + 2;
        auto cat = std::make_unique<Node>();
        cat->kind = Node::kConcat;
        for (size_t i = 0; i < text.size();) {
          int32_t r;
          const int len = utf8::DecodeRune(text.data() + i, text.size() - i, &r);
          if (r == utf8::kInvalidRune) return Fail("invalid UTF-8");
          cat->subs.push_back(LiteralNode(r, flags));
          i += static_cast<size_t>(len);
        }
        return cat;
      }
      default: break;
    }
    int32_t r;
    if (!ParseEscapeRune(start, &r)) return nullptr;
    return LiteralNode(r, flags);
  }

  std::unique_ptr<Node> ParseClass(const Flags& flags) {
    const size_t start = pos_;
    ++pos_;  // '['
    bool negated = false;
    if (Peek() == '^' && !AtEnd()) {
      negated = true;
      ++pos_;
    }
    Ranges ranges;
    bool first = true;
    while (true) {
      if (AtEnd()) return Fail("missing ]: " + std::string(pat_.substr(start)));
      const char c = Peek();
      if (c == ']' && !first) {
        ++pos_;
        break;
      }
      first = false;
      if (c == '[' && Peek(1) == ':') {
        const size_t close = pat_.find(":]", pos_ + 2);
        if (close != std::string_view::npos) {
          std::string_view name = pat_.substr(pos_ + 2, close - pos_ - 2);
          const bool neg = !name.empty() && name[0] == '^';
          if (neg) name.remove_prefix(1);
          const size_t cls_start = pos_;
          pos_ = close + 2;
          Ranges r;
          if (!PosixClass(name, &r)) return Fail("invalid character class range: " + std::string(From(cls_start)));
          if (neg) r = Complement(r);
          ranges.insert(ranges.end(), r.begin(), r.end());
          continue;
        }
      }
      if (c == '\\' && pos_ + 1 < pat_.size()) {
        const char e = Peek(1);
        if (e == 'd' || e == 's' || e == 'w' || e == 'D' || e == 'S' || e == 'W') {
          pos_ += 2;
          Ranges r = PerlClass(e >= 'a' ? e : static_cast<char>(e + 32));
          if (e < 'a') r = Complement(r);
          ranges.insert(ranges.end(), r.begin(), r.end());
          continue;
        }
        if (e == 'p' || e == 'P') {
          pos_ += 2;
          return Fail("invalid character class range (Unicode classes are not supported): \\" + std::string(1, e));
        }
      }
      const size_t range_start = pos_;
      int32_t lo, hi;
      if (!ClassChar(&lo)) return nullptr;
      hi = lo;
      if (Peek() == '-' && pos_ + 1 < pat_.size() && Peek(1) != ']') {
        ++pos_;
        if (!ClassChar(&hi)) return nullptr;
        if (hi < lo) return Fail("invalid character class range: " + std::string(From(range_start)));
      }
      ranges.push_back({lo, hi});
    }
    Normalize(&ranges);
    if (flags.fold) AddFolds(&ranges);
    if (negated) ranges = Complement(ranges);
    return ClassNode(std::move(ranges));
  }

  // One character inside a class: an escape or a literal rune.
  bool ClassChar(int32_t* r) {
    if (Peek() == '\\') {
      const size_t start = pos_;
      ++pos_;
      if (AtEnd()) {
        Fail("missing ]: " + std::string(pat_.substr(start)));
        return false;
      }
      return ParseEscapeRune(start, r);
    }
    return NextRune(r);
  }

  std::string_view pat_;
  size_t pos_ = 0;
  int ngroups_ = 0;
  std::vector<std::string> names_;
  std::string error_;
};

}  // namespace

void Normalize(Ranges* r) {
  std::sort(r->begin(), r->end());
  Ranges out;
  for (const auto& x : *r) {
    if (!out.empty() && x.first <= out.back().second + 1)
      out.back().second = std::max(out.back().second, x.second);
    else
      out.push_back(x);
  }
  *r = std::move(out);
}

Ranges Complement(const Ranges& r) {
  Ranges out;
  int32_t next = 0;
  for (const auto& [lo, hi] : r) {
    if (lo > next) out.push_back({next, lo - 1});
    next = hi + 1;
  }
  if (next <= utf8::kMaxRune) out.push_back({next, utf8::kMaxRune});
  return out;
}

std::unique_ptr<Node> Parse(std::string_view pattern, int* ngroups, std::string* error) {
  return Parser(pattern).Run(ngroups, error);
}

}  // namespace regex
}  // namespace tx
