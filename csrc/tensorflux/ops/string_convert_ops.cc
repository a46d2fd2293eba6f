// String conversion ops (signatures identical to TensorFlow's): numbers to and from text, hash
// buckets, base64 and raw bytes.
#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"

namespace tx {
namespace {

// bytes: S -> output: S + [?] (the element count per string is known only at run time).
Status DecodeRawShape(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  if (!in.known_rank()) {
    c->set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  std::vector<int64_t> dims = in.dims();
  dims.push_back(-1);
  c->set_output(0, PartialShape(std::move(dims)));
  return Status::OK();
}

}  // namespace

TX_REGISTER_OP("StringToNumber")
    .Input("string_tensor: string")
    .Output("output: out_type")
    .Attr("out_type: {float, double, int32, int64, uint32, uint64} = DT_FLOAT")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Summary("Parses each string as a number of `out_type` (surrounding whitespace allowed).");

TX_REGISTER_OP("AsString")
    .Input("input: T")
    .Output("output: string")
    .Attr(
        "T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64, "
        "complex64, complex128, bool, variant, string}")
    .Attr("precision: int = -1")
    .Attr("scientific: bool = false")
    .Attr("shortest: bool = false")
    .Attr("width: int = -1")
    .Attr("fill: string = ''")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Summary("Formats each element as text, printf-style (precision, notation, width and fill).");

TX_REGISTER_OP("StringToHashBucketFast")
    .Input("input: string")
    .Output("output: int64")
    .Attr("num_buckets: int >= 1")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Summary("FarmHash Fingerprint64 of each string modulo num_buckets (TensorFlow's buckets).");

TX_REGISTER_OP("StringToHashBucketStrong")
    .Input("input: string")
    .Output("output: int64")
    .Attr("num_buckets: int >= 1")
    .Attr("key: list(int)")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Summary("SipHash-2-4 of each string under the two-integer `key`, modulo num_buckets.");

TX_REGISTER_OP("StringToHashBucket")
    .Input("string_tensor: string")
    .Output("output: int64")
    .Attr("num_buckets: int >= 1")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Summary("TensorFlow's legacy Hash64 of each string modulo num_buckets (deprecated there too).");

TX_REGISTER_OP("EncodeBase64")
    .Input("input: string")
    .Output("output: string")
    .Attr("pad: bool = false")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Summary("Encodes each string in web-safe base64 ('-' and '_'), '='-padded when `pad`.");

TX_REGISTER_OP("DecodeBase64")
    .Input("input: string")
    .Output("output: string")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Summary("Decodes each web-safe base64 string ('-' and '_'; '=' padding optional).");

TX_REGISTER_OP("DecodeRaw")
    .Input("bytes: string")
    .Output("output: out_type")
    .Attr(
        "out_type: {half, float, double, int32, uint16, uint8, int16, int8, int64, complex64, complex128, bool, "
        "bfloat16}")
    .Attr("little_endian: bool = true")
    .SetShapeFn(DecodeRawShape)
    .Summary("Reinterprets the bytes of each string (all of one length) as a vector of out_type.");

}  // namespace tx
