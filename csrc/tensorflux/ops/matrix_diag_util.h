// Diagonal-band geometry shared by the MatrixDiag*V3 shape functions and their CPU kernels
// (Note [Diagonal alignment]), so static inference and run-time checks agree.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tensorflux/core/status.h"

namespace tx {
namespace diag_util {

// The diagonals k0..k1 (k0 <= k1) of an M x N matrix, laid out as in TensorFlow's V3 ops.
struct DiagBand {
  int64_t k0 = 0, k1 = 0;
  int64_t rows = 0, cols = 0;
  int64_t max_len = 0;  // longest diagonal in the band (the packed row length)
  bool left_super = false, left_sub = true;  // alignment of superdiagonals / subdiagonals
  int64_t num_diags() const { return k1 - k0 + 1; }
  // Elements on diagonal d.
  int64_t Length(int64_t d) const;
  // Where diagonal d's first element sits in its packed row (0 when left aligned).
  int64_t Offset(int64_t d) const;
};

// Reads k (one value or a [k0, k1] pair) into *k0, *k1; InvalidArgument when k has another
// size or k0 > k1.
Status ReadDiagIndex(const std::vector<int64_t>& k, int64_t* k0, int64_t* k1);

// Parses `align` ("LEFT_RIGHT", ...) into the band's alignment flags.
Status ParseAlign(const std::string& align, DiagBand* band);

// The band k0..k1 of a rows x cols matrix, checking -rows < k0 and k1 < cols (TensorFlow's bound
// check, waived for empty matrices).
Status BandOfMatrix(int64_t rows, int64_t cols, int64_t k0, int64_t k1, DiagBand* band);

// Resolves MatrixDiagV3's num_rows/num_cols (-1: infer) from the packed length `max_len`.
Status ResolveDiagMatrixSize(int64_t max_len, int64_t k0, int64_t k1, int64_t* num_rows, int64_t* num_cols);

}  // namespace diag_util
}  // namespace tx

// Note [Diagonal alignment]
// The V3 diagonal ops pack diagonal d (k0 <= d <= k1; d > 0 above the main one) into row k1 - d
// of a [num_diags, max_len] block (no diagonal axis when k0 == k1). A diagonal shorter than
// max_len is padded on one side: `align` names the side superdiagonals are aligned to, then the
// side subdiagonals are; the main diagonal is always the longest. Element t of diagonal d is
// matrix entry (t + max(-d, 0), t + max(d, 0)).
