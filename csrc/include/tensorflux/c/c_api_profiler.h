/* Tensorflux process-wide C API: the plan rewrites every session and function uses, and the
 * profiler that traces every run and eager op of the process. The rules at the top of c_api.h hold
 * here too; every function is thread-safe.
 */
#ifndef TENSORFLUX_C_C_API_PROFILER_H_
#define TENSORFLUX_C_C_API_PROFILER_H_

#include "tensorflux/c/c_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * Profiling: between TX_ProfilerStart and TX_ProfilerStop every session run and eager op of the
 * process is traced (as with RunOptions.trace_level = FULL_TRACE), the kernels of the function
 * bodies they run included. When no profile records, runs and ops cost what they did without.
 * --------------------------------------------------------------------------------------------- */

/* Starts recording; TX_FAILED_PRECONDITION when a profile is already recording. */
TX_CAPI_EXPORT extern void TX_ProfilerStart(TX_Status* status);
/* Stops recording and fills `trace_json` (an empty buffer, TX_NewBuffer; the caller owns it) with
 * what was recorded as Chrome trace-event JSON: one complete event per kernel, named after its op,
 * on a track per device and thread, which Perfetto and chrome://tracing open.
 * TX_FAILED_PRECONDITION when no profile records; TX_INVALID_ARGUMENT for a NULL or used buffer. */
TX_CAPI_EXPORT extern void TX_ProfilerStop(TX_Buffer* trace_json, TX_Status* status);
/* 1 while a profile records, else 0. */
TX_CAPI_EXPORT extern unsigned char TX_ProfilerIsActive(void);

/* Process-wide plan rewrites for plans built from now on (session signatures first run afterwards,
 * function bodies first called afterwards), TensorFlow's tf.config.optimizer experimental options.
 * The one option is "remapping": fusing Conv2D epilogues and groups of elementwise ops into one
 * kernel (1 at start); any other name is TX_INVALID_ARGUMENT. A session's ConfigProto
 * graph_options.rewrite_options.remapping other than DEFAULT overrides it for that session. */
TX_CAPI_EXPORT extern void TX_SetOptimizerOption(const char* name, unsigned char enabled, TX_Status* status);
/* The current value of option `name` (see TX_SetOptimizerOption); 0 with TX_INVALID_ARGUMENT when unknown. */
TX_CAPI_EXPORT extern unsigned char TX_GetOptimizerOption(const char* name, TX_Status* status);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TENSORFLUX_C_C_API_PROFILER_H_ */
