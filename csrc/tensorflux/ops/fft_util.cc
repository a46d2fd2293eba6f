#include "tensorflux/ops/fft_util.h"

#include <algorithm>

namespace tx {
namespace fft_util {

Status Info(const std::string& op, OpInfo* out) {
  std::string name = op;
  OpInfo info;
  if (name.size() > 2 && name.substr(name.size() - 2) == "ND") {
    info.has_length = true;
    name.resize(name.size() - 2);
  } else if (name.size() > 2 && name.substr(name.size() - 1) == "D") {
    info.fixed_rank = name[name.size() - 2] - '0';
    name.resize(name.size() - 2);
  } else {
    info.fixed_rank = 1;
  }
  if (name == "FFT" || name == "IFFT") {
    info.kind = Kind::kComplex;
  } else if (name == "RFFT" || name == "IRFFT") {
    info.kind = name[0] == 'I' ? Kind::kRealBackward : Kind::kRealForward;
    info.has_length = true;
  } else {
    return Internal("not an FFT op: ", op);
  }
  info.inverse = name[0] == 'I';
  if (info.fixed_rank < 0 || info.fixed_rank > 3) return Internal("not an FFT op: ", op);
  *out = info;
  return Status::OK();
}

Status Resolve(const OpInfo& info, const std::vector<int64_t>& input_dims, const std::vector<int64_t>* fft_length,
               const std::vector<int64_t>* axes, Spec* spec) {
  const int rank = static_cast<int>(input_dims.size());
  spec->axes.clear();
  spec->lengths.clear();
  if (info.fixed_rank > 0) {
    if (rank < info.fixed_rank)
      return InvalidArgument("input must have rank of at least ", info.fixed_rank, " but has rank ", rank);
    for (int i = rank - info.fixed_rank; i < rank; ++i) spec->axes.push_back(i);
  } else if (axes != nullptr) {
    for (int64_t a : *axes) {
      if (a < -rank || a >= rank)
        return InvalidArgument("axes entry ", a, " is out of range for an input of rank ", rank);
      const int axis = static_cast<int>(a < 0 ? a + rank : a);
      if (std::find(spec->axes.begin(), spec->axes.end(), axis) != spec->axes.end())
        return InvalidArgument("axes repeats axis ", axis);
      spec->axes.push_back(axis);
    }
    if (fft_length != nullptr && fft_length->size() != axes->size())
      return InvalidArgument("fft_length has ", fft_length->size(), " entries but axes has ", axes->size(),
                             "; they must have the same shape");
  } else {
    return Status::OK();  // ND op with unknown axes: nothing is known
  }
  const size_t k = spec->axes.size();
  if (k == 0 && info.kind != Kind::kComplex) return InvalidArgument("a real FFT needs at least one axis");
  if (info.has_length && fft_length != nullptr) {
    if (fft_length->size() != k)
      return InvalidArgument("fft_length must have shape [", k, "], got ", fft_length->size(), " entries");
    for (size_t i = 0; i < k; ++i)
      if ((*fft_length)[i] < 0) return InvalidArgument("fft_length[", i, "] must be >= 0, but got ", (*fft_length)[i]);
    spec->lengths = *fft_length;
  } else if (info.has_length) {
    spec->lengths.assign(k, -1);
  } else {
    for (int a : spec->axes) spec->lengths.push_back(input_dims[a]);
  }
  return Status::OK();
}

namespace {

// input_dims with each transformed axis set to its length, the last one to length / 2 + 1 when
// `halve_last`.
std::vector<int64_t> TransformDims(const std::vector<int64_t>& input_dims, const Spec& spec, bool halve_last) {
  std::vector<int64_t> dims = input_dims;
  for (size_t i = 0; i < spec.axes.size(); ++i) {
    const int64_t n = spec.lengths[i];
    dims[spec.axes[i]] = halve_last && i + 1 == spec.axes.size() && n >= 0 ? n / 2 + 1 : n;
  }
  return dims;
}

}  // namespace

std::vector<int64_t> WorkDims(const OpInfo& info, const std::vector<int64_t>& input_dims, const Spec& spec) {
  return TransformDims(input_dims, spec, info.kind == Kind::kRealBackward);
}

std::vector<int64_t> OutputDims(const OpInfo& info, const std::vector<int64_t>& input_dims, const Spec& spec) {
  return TransformDims(input_dims, spec, info.kind == Kind::kRealForward);
}

}  // namespace fft_util
}  // namespace tx
