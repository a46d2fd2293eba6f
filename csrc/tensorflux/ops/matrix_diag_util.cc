// Diagonal-band geometry of the MatrixDiag*V3 ops (Note [Diagonal alignment]).
#include "tensorflux/ops/matrix_diag_util.h"

#include <algorithm>

namespace tx {
namespace diag_util {

int64_t DiagBand::Length(int64_t d) const {
  return std::max<int64_t>(0, std::min(rows + std::min<int64_t>(d, 0), cols - std::max<int64_t>(d, 0)));
}

int64_t DiagBand::Offset(int64_t d) const {
  const bool left = d >= 0 ? left_super : left_sub;
  return left ? 0 : max_len - Length(d);
}

Status ReadDiagIndex(const std::vector<int64_t>& k, int64_t* k0, int64_t* k1) {
  if (k.empty() || k.size() > 2)
    return InvalidArgument("diag_index must be a scalar or a vector of at most 2 elements, got ", k.size(),
                           " elements");
  *k0 = k[0];
  *k1 = k.size() == 2 ? k[1] : k[0];
  if (*k0 > *k1) return InvalidArgument("lower_diag_index must not be larger than upper_diag_index: ", *k0, " > ", *k1);
  return Status::OK();
}

Status ParseAlign(const std::string& align, DiagBand* band) {
  if (align == "LEFT_RIGHT")
    band->left_super = true, band->left_sub = false;
  else if (align == "RIGHT_LEFT")
    band->left_super = false, band->left_sub = true;
  else if (align == "LEFT_LEFT")
    band->left_super = true, band->left_sub = true;
  else if (align == "RIGHT_RIGHT")
    band->left_super = false, band->left_sub = false;
  else
    return InvalidArgument("Unknown align '", align, "'");
  return Status::OK();
}

Status BandOfMatrix(int64_t rows, int64_t cols, int64_t k0, int64_t k1, DiagBand* band) {
  if (rows != 0 && cols != 0 && !(-rows < k0 && k0 < cols))
    return InvalidArgument("lower_diag_index is out of bound: ", k0, ". It must be between ", -rows, " and ", cols);
  if (rows != 0 && cols != 0 && !(-rows < k1 && k1 < cols))
    return InvalidArgument("upper_diag_index is out of bound: ", k1, " It must be between ", -rows, " and ", cols);
  band->k0 = k0;
  band->k1 = k1;
  band->rows = rows;
  band->cols = cols;
  band->max_len = std::max<int64_t>(0, std::min(rows + std::min<int64_t>(k1, 0), cols - std::max<int64_t>(k0, 0)));
  return Status::OK();
}

Status ResolveDiagMatrixSize(int64_t max_len, int64_t k0, int64_t k1, int64_t* num_rows, int64_t* num_cols) {
  const int64_t min_rows = max_len - std::min<int64_t>(k1, 0);
  const int64_t min_cols = max_len + std::max<int64_t>(k0, 0);
  if (*num_rows == -1 && *num_cols == -1) {
    *num_rows = *num_cols = std::max(min_rows, min_cols);
  } else if (*num_rows == -1) {
    *num_rows = min_rows;
  } else if (*num_cols == -1) {
    *num_cols = min_cols;
  }
  if (*num_rows < min_rows) return InvalidArgument("The number of rows is too small: ", *num_rows, " < ", min_rows);
  if (*num_cols < min_cols) return InvalidArgument("The number of columns is too small: ", *num_cols, " < ", min_cols);
  if (*num_rows != min_rows && *num_cols != min_cols)
    return InvalidArgument("The number of rows or columns is not consistent with the specified d_lower, d_upper, ",
                           "and diagonal: num_rows ", *num_rows, " (expected ", min_rows, ") and num_cols ", *num_cols,
                           " (expected ", min_cols, ")");
  return Status::OK();
}

}  // namespace diag_util
}  // namespace tx
