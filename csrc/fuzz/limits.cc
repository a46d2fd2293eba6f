// tx_fuzz_init (targets.h): the engine's process-wide input limits, lowered to fit the fuzzer's
// per-allocation cap.
#include "fuzz/targets.h"
#include "tensorflux/framework/proto_codec.h"

namespace {

// Largest tensor a TensorProto's *_val fields may expand to under the fuzzer: the driver fails
// any allocation above 64 MiB (-malloc_limit_mb), and exporting an expanded tensor builds a
// serialization string that grows to about twice its size, so 16 MiB keeps a legal expansion
// clear of that cap. The engine's default (4 GiB) stays what users get.
constexpr uint64_t kFuzzMaxExpandedTensorBytes = uint64_t{16} << 20;

}  // namespace

extern "C" void tx_fuzz_init(void) { tx::codec::SetMaxExpandedTensorBytes(kFuzzMaxExpandedTensorBytes); }
