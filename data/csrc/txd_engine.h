/* The native pipeline engine of tensorflux-data, as plain C for the package's ctypes binding
 * (tensorflux_data/_native.py): build a chain of nodes bottom-up, then pull elements from its top
 * (Note [Native pipelines] in engine.h). Every function returns 0 (or a count) on success and a
 * negative value with a message in `err` (a caller buffer of `errlen` bytes) on failure; a pipeline
 * or function that failed to build is not to be used. Tensors are the C API's TX_Tensor. */
#ifndef TENSORFLUX_DATA_TXD_ENGINE_H_
#define TENSORFLUX_DATA_TXD_ENGINE_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TXD_EXPORT __attribute__((visibility("default")))

typedef struct TXD_Pipeline TXD_Pipeline;
typedef struct TXD_Function TXD_Function;

/* Resolves the C API from the loaded libtensorflux at `libtensorflux` (Note [Resolved C API]). */
TXD_EXPORT int txd_init(const char* libtensorflux, char* err, int64_t errlen);

/* Registers the serialized FunctionDef `fdef` (`size` bytes) named `name` in the engine's context
 * unless a function of that name is there already. */
TXD_EXPORT int txd_add_function_def(const char* name, const void* fdef, int64_t size, char* err, int64_t errlen);

/* Removes function `name` from the engine's context (calls already made to it are unaffected). */
TXD_EXPORT void txd_remove_function(const char* name);

/* A callable for registered function `name` with outputs of the `num_outputs` `output_dtypes`, whose inputs end with
 * `ncaptures` captured arrays (dtype, rank, dims in `dims_flat` in order, data; copied). Caller owns
 * it (txd_function_delete); NULL on failure. */
TXD_EXPORT TXD_Function* txd_function_new(const char* name, int num_outputs, const int* output_dtypes, int ncaptures,
                                          const int* dtypes, const int* ranks, const int64_t* dims_flat,
                                          const void* const* data, char* err, int64_t errlen);
TXD_EXPORT void txd_function_delete(TXD_Function* fn);

/* A pipeline under construction with `num_nodes` nodes and stamps of `stamp_size` slots. Caller owns
 * it (txd_pipeline_delete, which stops its threads). */
TXD_EXPORT TXD_Pipeline* txd_pipeline_new(int num_nodes, int stamp_size);
TXD_EXPORT void txd_pipeline_delete(TXD_Pipeline* p);

/* The source node: array slices (borrowed `data`, alive while the pipeline is),
 * a range (dtype TX_INT32 or TX_INT64), or TFRecord files (Note [Native pipelines] has the stamp
 * layouts; nodes.h the parameters). */
TXD_EXPORT int txd_slices(TXD_Pipeline* p, int node, int slot, int ncomp, const int* dtypes, const int* ranks,
                          const int64_t* dims_flat, const void* const* data, int64_t size, int64_t index, char* err,
                          int64_t errlen);
TXD_EXPORT int txd_range(TXD_Pipeline* p, int node, int slot, int64_t start, int64_t step, int64_t size, int dtype,
                         int64_t index, char* err, int64_t errlen);
/* TFRecord files `paths` (copied), compressed as `compression` says (0 none, 1 ZLIB, 2 GZIP). */
TXD_EXPORT int txd_tfrecord(TXD_Pipeline* p, int node, int slot, int npaths, const char* const* paths, int compression,
                            int64_t next_file, int open, int64_t offset, char* err, int64_t errlen);
/* The lines of text files `paths` (TextLineDataset), with txd_tfrecord's arguments and stamp. */
TXD_EXPORT int txd_text_line(TXD_Pipeline* p, int node, int slot, int npaths, const char* const* paths, int compression,
                             int64_t next_file, int open, int64_t offset, char* err, int64_t errlen);
/* interleave of TFRecordDataset(name, compression) (0 none, 1 ZLIB, 2 GZIP), followed by `ninner` transformations (the inner chain), over
 * the `npaths` file names `paths` (copied) as a source: `cycle` files at a time, `block` elements
 * from each, from `start` (its stamp slots; Note [Native interleave] in interleave.cc has the
 * layout). Inner step k is `kinds[k]` (0 map, 1 filter, 2 batch) with function `fns[k]` (borrowed;
 * null for a batch, unseeded) and `params[4k..4k+3]`: calls in flight (a map), batch size (a batch,
 * or a map fused with the batch after it), drop remainder, first slot in the inner stamp of
 * `inner_width` slots; parallel maps use `threads` workers (0: one per core). */
TXD_EXPORT int txd_interleave(TXD_Pipeline* p, int node, int slot, int npaths, const char* const* paths, int64_t cycle,
                              int64_t block, int ninner, const int* kinds, const TXD_Function* const* fns,
                              const int64_t* params, int inner_width, int threads, int compression,
                              const int64_t* start, char* err, int64_t errlen);

/* The transformations, each over the node added before it; a `seeded` function takes per-element
 * seeds derived from `seed0` after the element (nodes.h). */
TXD_EXPORT int txd_map(TXD_Pipeline* p, int node, int slot, const TXD_Function* fn, int seeded, uint64_t seed0,
                       int parallel, int threads, int64_t batch, int drop, int64_t count, char* err, int64_t errlen);
TXD_EXPORT int txd_filter(TXD_Pipeline* p, int node, int slot, const TXD_Function* fn, int seeded, uint64_t seed0,
                          int64_t count, char* err, int64_t errlen);
TXD_EXPORT int txd_batch(TXD_Pipeline* p, int node, int64_t size, int drop, char* err, int64_t errlen);
TXD_EXPORT int txd_prefetch(TXD_Pipeline* p, int node, int slot, int64_t buffer, char* err, int64_t errlen);

/* shuffle over the node added before it: a buffer of `size` elements drawing from stream `key`,
 * starting at `stamp` (the pipeline's `stamp_size` values: the shuffle's slots [outputs, words
 * drawn, input ended], the input's position) with `nbuffer` buffered elements of `ncomp` components
 * each, arrays described as txd_slices's, element-major (copied) (Note [Native shuffle] in shuffle.cc). */
TXD_EXPORT int txd_shuffle(TXD_Pipeline* p, int node, int slot, int64_t size, uint64_t key, const int64_t* stamp,
                           int64_t nbuffer, int ncomp, const int* dtypes, const int* ranks, const int64_t* dims_flat,
                           const void* const* data, char* err, int64_t errlen);

/* The buffer of shuffle node `node` as of its output `outputs` (at or after the last element handed
 * out): its number of elements, whose `*ncomp` components each are written to `components`
 * element-major (at most `max`; caller owns the tensors, TX_DeleteTensor); negative on failure. */
TXD_EXPORT int64_t txd_shuffle_buffer(TXD_Pipeline* p, int node, int64_t outputs, void** components, int64_t max,
                                      int* ncomp, char* err, int64_t errlen);

/* The next element: its number of components (<= max), whose tensors (caller owns them,
 * TX_DeleteTensor) are written to `components`, and its stamp to `stamp`; -1 at the end (the end's
 * stamp written); -2 - code on an error (TX_Code `code`, message in `err`). */
TXD_EXPORT int txd_next(TXD_Pipeline* p, void** components, int max, int64_t* stamp, char* err, int64_t errlen);

/* Node `node`'s counters: elements produced, nanoseconds producing them, consumer nanoseconds waited. */
TXD_EXPORT void txd_node_stats(const TXD_Pipeline* p, int node, int64_t* out3);

#ifdef __cplusplus
}
#endif

#endif /* TENSORFLUX_DATA_TXD_ENGINE_H_ */
