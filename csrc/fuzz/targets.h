/* The fuzz targets: each feeds one input to a decoder behind the public C API. The in-repo driver
 * (driver.c) and libFuzzer (libfuzzer_main.c) run the same functions. docs/fuzzing.md. */
#ifndef TENSORFLUX_FUZZ_TARGETS_H_
#define TENSORFLUX_FUZZ_TARGETS_H_

#include <stddef.h>
#include <stdint.h>

/* How the driver mutates a target's inputs. */
typedef enum TxFuzzFormat {
  TX_FUZZ_BYTES = 0, /* byte-level mutations only */
  TX_FUZZ_PROTO = 1, /* also protobuf-aware mutations (proto_mutate.c) */
  TX_FUZZ_SAFETENSORS = 2, /* also keep the 8-byte header length consistent with the JSON */
} TxFuzzFormat;

typedef struct TxFuzzTarget {
  const char* name; /* also the corpus folder (corpus/<name>/) and dictionary (dict/<name>.dict) */
  /* Decodes `data` (`size` bytes, borrowed); returns 1 when the engine accepted it, 0 when it
   * returned an error status. Must never crash, hang or leak, whatever the bytes. */
  int (*run)(const uint8_t* data, size_t size);
  TxFuzzFormat format;
} TxFuzzTarget;

/* Every target, one X(name, format) each; a new decoder adds a line here, its run function
 * (tx_fuzz_<name>) in a targets_*.c file, and seeds in csrc/fuzz/corpus/<name>/. Slots reserved
 * for decoders being added: string tensors (DT_STRING TensorProtos and safetensors) and
 * TensorList variants get targets of their own once their import paths land. */
#define TX_FUZZ_TARGETS(X)            \
  X(graphdef, TX_FUZZ_PROTO)          \
  X(functiondef, TX_FUZZ_PROTO)       \
  X(tensorproto, TX_FUZZ_PROTO)       \
  X(safetensors, TX_FUZZ_SAFETENSORS) \
  X(tensor, TX_FUZZ_BYTES)            \
  X(example, TX_FUZZ_PROTO)

#define TX_FUZZ_DECLARE(name, format) int tx_fuzz_##name(const uint8_t* data, size_t size);
TX_FUZZ_TARGETS(TX_FUZZ_DECLARE)
#undef TX_FUZZ_DECLARE

/* The targets, in TX_FUZZ_TARGETS order, and their number. */
extern const TxFuzzTarget tx_fuzz_targets[];
extern const int tx_fuzz_num_targets;

/* Lowers the engine's input limits (today: how far a TensorProto may expand) so that inputs the
 * engine rightly accepts stay under the driver's per-allocation cap; call once before any target.
 * Without it, an 84-byte TensorProto describing a 44 MB tensor passes import and its export then
 * fails an allocation, which ASan reports as a crash (operator new cannot return null). */
#ifdef __cplusplus
extern "C"
#endif
    void tx_fuzz_init(void);

/* The target named `name`, or NULL. */
const TxFuzzTarget* tx_fuzz_find_target(const char* name);

#endif /* TENSORFLUX_FUZZ_TARGETS_H_ */
