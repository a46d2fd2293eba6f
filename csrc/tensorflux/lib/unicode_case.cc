#include "tensorflux/lib/unicode_case.h"

#include <algorithm>

namespace tx {
namespace unicase {
namespace {

// A run of uppercase letters: every one maps to r + delta (kAll), or, alternating from `lo`,
// uppercase letters are followed by their lowercase partner (kPairs).
enum Kind { kAll, kPairs };
struct Segment {
  int32_t lo, hi;
  Kind kind;
  int32_t delta;
};

constexpr Segment kSegments[] = {
    {0x41, 0x5A, kAll, 32},    {0xC0, 0xD6, kAll, 32},    {0xD8, 0xDE, kAll, 32},    {0x100, 0x12F, kPairs, 1},
    {0x132, 0x137, kPairs, 1}, {0x139, 0x148, kPairs, 1}, {0x14A, 0x177, kPairs, 1}, {0x178, 0x178, kAll, 0x87},
    {0x179, 0x17E, kPairs, 1}, {0x386, 0x386, kAll, 38},  {0x388, 0x38A, kAll, 37},  {0x38C, 0x38C, kAll, 64},
    {0x38E, 0x38F, kAll, 63},  {0x391, 0x3A1, kAll, 32},  {0x3A3, 0x3AB, kAll, 32},  {0x3D8, 0x3EF, kPairs, 1},
    {0x400, 0x40F, kAll, 80},  {0x410, 0x42F, kAll, 32},  {0x460, 0x481, kPairs, 1}, {0x48A, 0x4BF, kPairs, 1},
    {0x4C0, 0x4C0, kAll, 15},  {0x4C1, 0x4CE, kPairs, 1}, {0x4D0, 0x52F, kPairs, 1},
};

// Letters whose case partners lie outside the segments: {code point, lower, upper}.
struct Special {
  int32_t r, lower, upper;
};
constexpr Special kSpecials[] = {
    {0x212A, 0x6B, 0x212A},  // Kelvin sign -> k
    {0x212B, 0xE5, 0x212B},  // Angstrom sign -> a with ring
    {0x1E9E, 0xDF, 0x1E9E},  // capital sharp s -> sharp s
    {0x17F, 0x17F, 0x53},  // long s -> S
    {0xB5, 0xB5, 0x39C},  // micro sign -> capital mu
    {0x3C2, 0x3C2, 0x3A3},  // final sigma -> capital sigma
};

// Code points equal ignoring case beyond their plain upper/lower pair (-1 pads).
constexpr int32_t kOrbits[][3] = {
    {0x4B, 0x6B, 0x212A},  {0x53, 0x73, 0x17F},  {0xB5, 0x39C, 0x3BC},
    {0x3A3, 0x3C2, 0x3C3}, {0xC5, 0xE5, 0x212B}, {0xDF, 0x1E9E, -1},
};

}  // namespace

int32_t ToLower(int32_t r) {
  for (const Special& s : kSpecials)
    if (s.r == r) return s.lower;
  for (const Segment& s : kSegments) {
    if (r < s.lo || r > s.hi) continue;
    if (s.kind == kAll) return r + s.delta;
    return (r - s.lo) % 2 == 0 ? r + 1 : r;
  }
  return r;
}

int32_t ToUpper(int32_t r) {
  for (const Special& s : kSpecials)
    if (s.r == r) return s.upper;
  for (const Segment& s : kSegments) {
    if (s.kind == kAll) {
      if (r - s.delta >= s.lo && r - s.delta <= s.hi) return r - s.delta;
    } else if (r > s.lo && r <= s.hi && (r - s.lo) % 2 == 1) {
      return r - 1;
    }
  }
  return r;
}

void FoldOrbit(int32_t r, std::vector<int32_t>* out) {
  if (r < 0) return;
  for (const auto& orbit : kOrbits) {
    if (std::find(std::begin(orbit), std::end(orbit), r) != std::end(orbit)) {
      for (int32_t x : orbit)
        if (x >= 0) out->push_back(x);
      return;
    }
  }
  out->push_back(r);
  const int32_t lo = ToLower(r), up = ToUpper(r);
  if (lo != r) out->push_back(lo);
  if (up != r && up != lo) out->push_back(up);
}

}  // namespace unicase
}  // namespace tx
