// A linear-time regular expression engine for RE2's syntax (the regex ops' patterns), written
// here: Note [Regex engine].
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tx {
namespace regex {

// Note [Regex engine]
// TensorFlow's regex ops use RE2, which is not installable from PyPI with headers. Backtracking
// engines (std::regex, PCRE without limits) take exponential time on patterns like (a*)*b and
// recurse per character, so a long input can overflow the stack: a crash from bad input. This
// engine parses RE2's syntax into a tree (regex_parse.cc), compiles it to a program of
// instructions (regex_compile.cc) and runs that program as a Pike VM (regex_match.cc): every
// thread of the NFA advances one character at a time in priority order, so matching takes
// O(text length x program size) time, O(program size) memory, and no recursion at all. Threads
// are kept in priority order, which gives RE2's (and Perl's) leftmost-first semantics, including
// submatches and non-greedy repetition.
//
// Supported, with RE2's meaning: literals and escapes (\n \t \x41 \x{263a} \101 \Q...\E, escaped
// punctuation), `.`, classes [a-z] [^...] with \d \w \s and [[:alpha:]]-style POSIX classes,
// \d \D \w \W \s \S, groups (...) (?:...) (?P<name>...) (?<name>...), flags (?i) (?m) (?s) (?U)
// and (?flags:...), alternation, * + ? {n} {n,} {n,m} and their lazy forms, anchors ^ $ \A \z
// and \b \B. Text is UTF-8: `.` and classes match whole code points, and a byte that is not
// valid UTF-8 is matched by nothing (RE2 does the same). Case-insensitive matching folds ASCII,
// Latin-1, Latin Extended-A, Greek and Cyrillic letters (RE2 folds all of Unicode).
// Not supported (a compile error naming the construct): Unicode classes \p{..}, \C, and what RE2
// rejects too (backreferences, lookaround).

// A compiled pattern; immutable and safe to use from several threads.
class Regex {
 public:
  ~Regex();
  Regex(const Regex&) = delete;
  Regex& operator=(const Regex&) = delete;

  // Compiles `pattern`; on failure returns nullptr and sets *error to RE2's wording ("missing ):
  // (", "invalid escape sequence: \q", ...).
  static std::unique_ptr<Regex> Compile(std::string_view pattern, std::string* error);

  // Number of capturing groups.
  int num_groups() const;
  // True when all of `text` matches (RE2::FullMatch).
  bool FullMatch(std::string_view text) const;
  // The leftmost-first match in text[start..] (assertions see all of `text`): fills `spans` with
  // ngroups + 1 (begin, end) byte-offset pairs, -1 for groups that did not take part; false when
  // there is no match. Only the first `nspans` pairs are computed (at least 1).
  bool Search(std::string_view text, size_t start, int nspans, std::vector<int64_t>* spans) const;

  // The compiled program (defined in regex_internal.h).
  struct Program;
  const Program& program() const { return *prog_; }

 private:
  explicit Regex(std::unique_ptr<Program> prog);
  std::unique_ptr<Program> prog_;
};

// Replaces the first match (global false) or every non-overlapping match (global true) of `re`
// in `text` by `rewrite`, in which \0 to \9 insert groups and \\ a backslash, as RE2::Replace and
// RE2::GlobalReplace do (including their handling of empty matches and of rewrites naming a
// group the pattern lacks: the text is left unchanged). Writes the result to *out and returns
// the number of replacements.
int Replace(const Regex& re, std::string_view text, std::string_view rewrite, bool global, std::string* out);

}  // namespace regex
}  // namespace tx
