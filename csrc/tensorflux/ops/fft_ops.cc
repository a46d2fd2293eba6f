// FFT ops (signatures identical to TensorFlow's spectral ops): FFT, IFFT, FFT2D, IFFT2D, FFT3D,
// IFFT3D over the innermost 1-3 dims; RFFT*/IRFFT* with fft_length; FFTND, IFFTND, RFFTND,
// IRFFTND over given axes. Shape logic is shared with the kernels (fft_util.h).
#include <string>
#include <vector>

#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"
#include "tensorflux/ops/array_util.h"
#include "tensorflux/ops/fft_util.h"

namespace tx {
namespace {

// Reads 1-D int32 input `i` named `what` when it is constant; checks its static rank either way.
Status ConstInts(InferenceContext* c, int i, const char* what, bool* known, std::vector<int64_t>* out) {
  const PartialShape& s = c->input(i);
  if (s.known_rank() && s.rank() != 1) return InvalidArgument(what, " must be 1-D, got shape ", s.ToString());
  const Tensor* t = c->input_tensor(i);
  *known = t != nullptr;
  return t == nullptr ? Status::OK() : array_util::ReadInts(*t, what, out);
}

Status FftShape(InferenceContext* c) {
  fft_util::OpInfo info;
  TX_RETURN_IF_ERROR(fft_util::Info(c->op_def().name, &info));
  if (info.kind != fft_util::Kind::kComplex) {
    DataType real = DT_INVALID, complex = DT_INVALID;
    TX_RETURN_IF_ERROR(c->GetAttr("Treal", &real));
    TX_RETURN_IF_ERROR(c->GetAttr("Tcomplex", &complex));
    if ((real == DT_FLOAT) != (complex == DT_COMPLEX64))
      return InvalidArgument("Treal ", DataTypeString(real), " does not go with Tcomplex ", DataTypeString(complex),
                             " (float goes with complex64, double with complex128)");
  }
  std::vector<int64_t> lengths, axes;
  bool have_lengths = false, have_axes = false;
  if (info.has_length) TX_RETURN_IF_ERROR(ConstInts(c, 1, "fft_length", &have_lengths, &lengths));
  if (info.fixed_rank == 0) TX_RETURN_IF_ERROR(ConstInts(c, 2, "axes", &have_axes, &axes));
  const PartialShape& in = c->input(0);
  if (info.fixed_rank > 0 && info.has_length && c->input(1).known_rank() && c->input(1).dim(0) >= 0 &&
      c->input(1).dim(0) != info.fixed_rank)
    return InvalidArgument("fft_length must have shape [", info.fixed_rank, "], got ", c->input(1).ToString());
  if (!in.known_rank()) {
    c->set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  fft_util::Spec spec;
  TX_RETURN_IF_ERROR(
      fft_util::Resolve(info, in.dims(), have_lengths ? &lengths : nullptr, have_axes ? &axes : nullptr, &spec));
  if (info.fixed_rank == 0 && !have_axes) {
    c->set_output(0, PartialShape::UnknownDims(in.rank()));
    return Status::OK();
  }
  c->set_output(0, PartialShape(fft_util::OutputDims(info, in.dims(), spec)));
  return Status::OK();
}

// One FFT op: input and output of the complex or real type, with an fft_length input (and an
// axes input for the N-D ops) when asked.
OpDefBuilder Fft(const char* name, bool real_in, bool real_out, bool length, bool axes, const char* summary) {
  OpDefBuilder b(name);
  b.Input(real_in ? "input: Treal" : "input: Tcomplex");
  if (length) b.Input("fft_length: int32");
  if (axes) b.Input("axes: int32");
  b.Output(real_out ? "output: Treal" : "output: Tcomplex");
  if (real_in || real_out) b.Attr("Treal: {float, double} = DT_FLOAT");
  b.Attr("Tcomplex: {complex64, complex128} = DT_COMPLEX64").SetShapeFn(FftShape).Summary(summary);
  return b;
}

OpDefBuilder ComplexFft(const char* name, const char* summary) {
  return Fft(name, false, false, false, false, summary);
}
OpDefBuilder RealFft(const char* name, bool inverse, const char* summary) {
  return Fft(name, !inverse, inverse, true, false, summary);
}

}  // namespace

TX_REGISTER_OP_FROM(ComplexFft("FFT", "Fast Fourier transform over the innermost dimension."));
TX_REGISTER_OP_FROM(ComplexFft("IFFT", "Inverse fast Fourier transform over the innermost dimension."));
TX_REGISTER_OP_FROM(ComplexFft("FFT2D", "2-D fast Fourier transform over the two innermost dimensions."));
TX_REGISTER_OP_FROM(ComplexFft("IFFT2D", "Inverse 2-D fast Fourier transform over the two innermost dimensions."));
TX_REGISTER_OP_FROM(ComplexFft("FFT3D", "3-D fast Fourier transform over the three innermost dimensions."));
TX_REGISTER_OP_FROM(ComplexFft("IFFT3D", "Inverse 3-D fast Fourier transform over the three innermost dimensions."));
TX_REGISTER_OP_FROM(RealFft("RFFT", false, "Real fast Fourier transform over the innermost dimension."));
TX_REGISTER_OP_FROM(RealFft("IRFFT", true, "Inverse real fast Fourier transform over the innermost dimension."));
TX_REGISTER_OP_FROM(RealFft("RFFT2D", false, "2-D real fast Fourier transform over the two innermost dimensions."));
TX_REGISTER_OP_FROM(RealFft("IRFFT2D", true, "Inverse 2-D real FFT over the two innermost dimensions."));
TX_REGISTER_OP_FROM(RealFft("RFFT3D", false, "3-D real fast Fourier transform over the three innermost dimensions."));
TX_REGISTER_OP_FROM(RealFft("IRFFT3D", true, "Inverse 3-D real FFT over the three innermost dimensions."));
TX_REGISTER_OP_FROM(
    Fft("FFTND", false, false, true, true,
        "N-D fast Fourier transform over the given axes, cropping or zero-padding each to fft_length."));
TX_REGISTER_OP_FROM(Fft("IFFTND", false, false, true, true,
                        "N-D inverse fast Fourier transform over the given axes, cropping or zero-padding each to "
                        "fft_length."));
TX_REGISTER_OP_FROM(Fft("RFFTND", true, false, true, true,
                        "N-D real fast Fourier transform over the given axes (the last one halved, as np.fft.rfftn)."));
TX_REGISTER_OP_FROM(Fft("IRFFTND", false, true, true, true,
                        "N-D inverse real fast Fourier transform over the given axes (as np.fft.irfftn)."));

}  // namespace tx
