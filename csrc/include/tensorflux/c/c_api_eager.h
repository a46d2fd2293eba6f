/* Tensorflux eager C API: execute ops one at a time on an eager context, with the same kernels,
 * attrs checks and gradient registry as graph mode. It mirrors TensorFlow's TFE_ API function for
 * function (prefix TXE_): a TFE client ports by renaming. The rules at the top of c_api.h hold
 * here too (ownership on every function, TX_Status last, NULL-tolerant deletes, no crash on bad
 * input). Thread safety: a TXE_Context and TXE_TensorHandles may be used from several threads; a
 * TXE_Op is used by one thread at a time. Delete every op and handle before their context.
 */
#ifndef TENSORFLUX_C_C_API_EAGER_H_
#define TENSORFLUX_C_C_API_EAGER_H_

#include "tensorflux/c/c_api.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TXE_ContextOptions TXE_ContextOptions;
typedef struct TXE_Context TXE_Context;
typedef struct TXE_TensorHandle TXE_TensorHandle;
typedef struct TXE_Op TXE_Op;

/* What executing an op whose inputs are on another device does (TensorFlow's values). */
typedef enum TXE_ContextDevicePlacementPolicy {
  TXE_DEVICE_PLACEMENT_EXPLICIT = 0, /* an error naming the input and both devices */
  TXE_DEVICE_PLACEMENT_WARN = 1, /* copy (as SILENT) */
  TXE_DEVICE_PLACEMENT_SILENT = 2, /* copy the input to the op's device (the default) */
  TXE_DEVICE_PLACEMENT_SILENT_FOR_INT32 = 3, /* copy int32 inputs, error for others */
} TXE_ContextDevicePlacementPolicy;

/* ---------------------------------------------------------------------------------------------
 * Context */

/* Caller owns; free with TXE_DeleteContextOptions. Defaults: SILENT, one CPU device, threads =
 * number of cores. */
TX_CAPI_EXPORT extern TXE_ContextOptions* TXE_NewContextOptions(void);
TX_CAPI_EXPORT extern void TXE_DeleteContextOptions(TXE_ContextOptions* options);
TX_CAPI_EXPORT extern void TXE_ContextOptionsSetDevicePlacementPolicy(TXE_ContextOptions* options,
                                                                      TXE_ContextDevicePlacementPolicy policy);
/* Intra-op and inter-op thread counts (0: number of cores). */
TX_CAPI_EXPORT extern void TXE_ContextOptionsSetThreads(TXE_ContextOptions* options, int intra_op, int inter_op);
/* Number of logical CPU devices (/device:CPU:0 .. n-1, sharing host memory); at least 1. */
TX_CAPI_EXPORT extern void TXE_ContextOptionsSetNumCpuDevices(TXE_ContextOptions* options, int n);

/* Caller owns; free with TXE_DeleteContext after every op, handle and tape made from it. `options`
 * is borrowed. */
TX_CAPI_EXPORT extern TXE_Context* TXE_NewContext(const TXE_ContextOptions* options, TX_Status* status);
TX_CAPI_EXPORT extern void TXE_DeleteContext(TXE_Context* ctx);
/* Soft device placement (on by default, as in TensorFlow 2): an op requesting a device the context
 * does not have (e.g. "/GPU:0" without a GPU) runs where its inputs are (CPU:0 without inputs)
 * instead of failing with
 * INVALID_ARGUMENT; so does a copy to such a device (TXE_TensorHandleCopyToDevice). */
TX_CAPI_EXPORT extern void TXE_ContextSetSoftDevicePlacement(TXE_Context* ctx, unsigned char enable, TX_Status* status);
TX_CAPI_EXPORT extern unsigned char TXE_ContextGetSoftDevicePlacement(const TXE_Context* ctx);
/* Number of devices, and the full name of device `index` (owned by the context). */
TX_CAPI_EXPORT extern int TXE_ContextNumDevices(const TXE_Context* ctx);
TX_CAPI_EXPORT extern const char* TXE_ContextDeviceName(const TXE_Context* ctx, int index, TX_Status* status);
/* Drops the cached kernels and the instantiated function bodies (the next execution of each
 * signature instantiates them again); ops executing now keep what they use until they end. */
TX_CAPI_EXPORT extern void TXE_ContextClearCaches(TXE_Context* ctx);
/* Number of kernels cached by the context (one per op signature executed so far). */
TX_CAPI_EXPORT extern int64_t TXE_ContextNumCachedKernels(const TXE_Context* ctx);

/* Adds `function` (borrowed; copied) to the context's function library, so call ops executed on
 * the context (StatefulPartitionedCall with f = its name) can run it. Adding an equal definition
 * again is a no-op; a different one under a taken name is INVALID_ARGUMENT. */
TX_CAPI_EXPORT extern void TXE_ContextAddFunction(TXE_Context* ctx, const TX_Function* function, TX_Status* status);
/* Like TXE_ContextAddFunction, and records `grad` (borrowed; copied; may be NULL) as the gradient
 * function of `function` (TensorFlow's GradientDef: it takes the function's inputs and one gradient
 * per output and returns one gradient per input), as TX_GraphCopyFunction does for graphs. */
TX_CAPI_EXPORT extern void TXE_ContextAddFunctionWithGradient(TXE_Context* ctx, const TX_Function* function,
                                                              const TX_Function* grad, TX_Status* status);
/* Adds a serialized FunctionDef (`proto`, `size` bytes; copied) like TXE_ContextAddFunction. */
TX_CAPI_EXPORT extern void TXE_ContextAddFunctionDef(TXE_Context* ctx, const void* proto, size_t size,
                                                     TX_Status* status);
/* Removes function `name` from the context's library (TensorFlow's TFE_ContextRemoveFunction),
 * freeing its definition, gradient entry, instantiated bodies, the cached kernels of call ops that
 * call it, and the gradient functions tapes generated for it ("<name>_grad_<hash>"); ops executing
 * now keep what they use until they end. NOT_FOUND when absent.
 * Remove a function only after the functions that call it. */
TX_CAPI_EXPORT extern void TXE_ContextRemoveFunction(TXE_Context* ctx, const char* name, TX_Status* status);
/* Number of functions in the context's library (for checking that discarded functions are freed). */
TX_CAPI_EXPORT extern int TXE_ContextNumFunctions(const TXE_Context* ctx);
/* 1 when the context's library has a function named `name`. */
TX_CAPI_EXPORT extern unsigned char TXE_ContextHasFunction(TXE_Context* ctx, const char* name);

/* ---------------------------------------------------------------------------------------------
 * Tensor handles: immutable values living on a device of a context. */

/* A handle on `ctx`'s device 0 sharing `t`'s buffer; `t` stays owned by the caller (who may
 * delete it at once). Caller owns the handle; free with TXE_DeleteTensorHandle. */
TX_CAPI_EXPORT extern TXE_TensorHandle* TXE_NewTensorHandle(const TX_Tensor* t, TX_Status* status);
TX_CAPI_EXPORT extern void TXE_DeleteTensorHandle(TXE_TensorHandle* h);
TX_CAPI_EXPORT extern TX_DataType TXE_TensorHandleDataType(const TXE_TensorHandle* h);
TX_CAPI_EXPORT extern int TXE_TensorHandleNumDims(const TXE_TensorHandle* h, TX_Status* status);
TX_CAPI_EXPORT extern int64_t TXE_TensorHandleNumElements(const TXE_TensorHandle* h, TX_Status* status);
TX_CAPI_EXPORT extern int64_t TXE_TensorHandleDim(const TXE_TensorHandle* h, int dim_index, TX_Status* status);
/* Writes the NumDims dimensions to `dims` (capacity `max_dims`); returns the rank, -1 on error. */
TX_CAPI_EXPORT extern int TXE_TensorHandleShape(const TXE_TensorHandle* h, int64_t* dims, int max_dims,
                                                TX_Status* status);
/* The device the handle lives on (owned by the handle's context). */
TX_CAPI_EXPORT extern const char* TXE_TensorHandleDeviceName(const TXE_TensorHandle* h, TX_Status* status);
TX_CAPI_EXPORT extern const char* TXE_TensorHandleBackingDeviceName(const TXE_TensorHandle* h, TX_Status* status);
/* A new handle to the same value (same identity for tapes). Caller owns. */
TX_CAPI_EXPORT extern TXE_TensorHandle* TXE_TensorHandleCopySharingTensor(const TXE_TensorHandle* h, TX_Status* status);
/* The value as a TX_Tensor sharing the handle's buffer; it must not be modified. Caller owns
 * (TX_DeleteTensor). */
TX_CAPI_EXPORT extern TX_Tensor* TXE_TensorHandleResolve(const TXE_TensorHandle* h, TX_Status* status);
/* A handle to the value on device `device_name` of `ctx` (host memory is shared, so the value is
 * not duplicated). Caller owns. */
TX_CAPI_EXPORT extern TXE_TensorHandle* TXE_TensorHandleCopyToDevice(const TXE_TensorHandle* h, TXE_Context* ctx,
                                                                     const char* device_name, TX_Status* status);

/* ---------------------------------------------------------------------------------------------
 * Ops */

/* An op of type `op_or_function_name` to execute on `ctx` (borrowed; must outlive the op).
 * NOT_FOUND ("Op type not registered") for a name that is not a registered op type, including
 * the name of a library function: unlike TensorFlow's TFE_NewOp, functions are called through
 * StatefulPartitionedCall (attr "f"). Caller owns; free with TXE_DeleteOp. */
TX_CAPI_EXPORT extern TXE_Op* TXE_NewOp(TXE_Context* ctx, const char* op_or_function_name, TX_Status* status);
TX_CAPI_EXPORT extern void TXE_DeleteOp(TXE_Op* op);
/* Makes `op` a fresh op of type `op_or_function_name` on `raw_device_name` (NULL or "": placed by
 * its inputs), clearing inputs and attrs; reusing an op this way skips allocations and the kernel
 * cache lookup when the signature repeats. */
TX_CAPI_EXPORT extern void TXE_OpReset(TXE_Op* op, const char* op_or_function_name, const char* raw_device_name,
                                       TX_Status* status);
/* Removes `op`'s inputs and keeps its type, device and attrs, so the same call runs again on new
 * inputs (add them, then TXE_Execute) without setting its attrs again; when the inputs' dtypes
 * repeat, the kernel is reused without a cache lookup. An error recorded for a rejected attr or
 * input is still reported by TXE_Execute until TXE_OpReset. Not in TensorFlow's C API. */
TX_CAPI_EXPORT extern void TXE_OpClearInputs(TXE_Op* op, TX_Status* status);
/* The op type (owned by the op). */
TX_CAPI_EXPORT extern const char* TXE_OpGetName(const TXE_Op* op, TX_Status* status);
TX_CAPI_EXPORT extern TXE_Context* TXE_OpGetContext(const TXE_Op* op, TX_Status* status);
TX_CAPI_EXPORT extern void TXE_OpSetDevice(TXE_Op* op, const char* device_name, TX_Status* status);
/* The requested device (owned by the op); "" when placed by the inputs. */
TX_CAPI_EXPORT extern const char* TXE_OpGetDevice(const TXE_Op* op, TX_Status* status);
/* Adds the next input argument. The handle is borrowed (its value is shared, the handle may be
 * deleted after this call). */
TX_CAPI_EXPORT extern void TXE_OpAddInput(TXE_Op* op, TXE_TensorHandle* input, TX_Status* status);
/* Adds the next input argument as a list of `num_inputs` handles (borrowed). */
TX_CAPI_EXPORT extern void TXE_OpAddInputList(TXE_Op* op, TXE_TensorHandle** inputs, int num_inputs, TX_Status* status);
TX_CAPI_EXPORT extern int TXE_OpGetFlatInputCount(const TXE_Op* op, TX_Status* status);
/* The kind of attr `attr_name` in the op's OpDef; `*is_list` says whether it is a list. */
TX_CAPI_EXPORT extern TX_AttrType TXE_OpGetAttrType(TXE_Op* op, const char* attr_name, unsigned char* is_list,
                                                    TX_Status* status);

/* Attr setters: values are copied. Errors in values surface from TXE_Execute (naming the attr). */
TX_CAPI_EXPORT extern void TXE_OpSetAttrString(TXE_Op* op, const char* attr_name, const void* value, size_t length);
TX_CAPI_EXPORT extern void TXE_OpSetAttrInt(TXE_Op* op, const char* attr_name, int64_t value);
TX_CAPI_EXPORT extern void TXE_OpSetAttrFloat(TXE_Op* op, const char* attr_name, float value);
TX_CAPI_EXPORT extern void TXE_OpSetAttrBool(TXE_Op* op, const char* attr_name, unsigned char value);
TX_CAPI_EXPORT extern void TXE_OpSetAttrType(TXE_Op* op, const char* attr_name, TX_DataType value);
/* num_dims -1: unknown rank; dims[i] -1: unknown dimension. */
TX_CAPI_EXPORT extern void TXE_OpSetAttrShape(TXE_Op* op, const char* attr_name, const int64_t* dims,
                                              const int num_dims, TX_Status* status);
TX_CAPI_EXPORT extern void TXE_OpSetAttrFunctionName(TXE_Op* op, const char* attr_name, const char* data,
                                                     size_t length);
/* A list(func) attr: function names `values[i]` of `lengths[i]` bytes (borrowed). */
TX_CAPI_EXPORT extern void TXE_OpSetAttrFunctionNameList(TXE_Op* op, const char* attr_name, const void* const* values,
                                                         const size_t* lengths, int num_values);
/* `tensor` is borrowed (its value is copied by reference). */
TX_CAPI_EXPORT extern void TXE_OpSetAttrTensor(TXE_Op* op, const char* attr_name, TX_Tensor* tensor, TX_Status* status);
TX_CAPI_EXPORT extern void TXE_OpSetAttrStringList(TXE_Op* op, const char* attr_name, const void* const* values,
                                                   const size_t* lengths, int num_values);
TX_CAPI_EXPORT extern void TXE_OpSetAttrIntList(TXE_Op* op, const char* attr_name, const int64_t* values,
                                                int num_values);
TX_CAPI_EXPORT extern void TXE_OpSetAttrFloatList(TXE_Op* op, const char* attr_name, const float* values,
                                                  int num_values);
TX_CAPI_EXPORT extern void TXE_OpSetAttrBoolList(TXE_Op* op, const char* attr_name, const unsigned char* values,
                                                 int num_values);
TX_CAPI_EXPORT extern void TXE_OpSetAttrTypeList(TXE_Op* op, const char* attr_name, const TX_DataType* values,
                                                 int num_values);
TX_CAPI_EXPORT extern void TXE_OpSetAttrShapeList(TXE_Op* op, const char* attr_name, const int64_t** dims,
                                                  const int* num_dims, int num_values, TX_Status* status);

/* Runs `op`. `retvals` has room for `*num_retvals` handles; on success `*num_retvals` is set to
 * the number of outputs and the caller owns each returned handle. Too little room is
 * INVALID_ARGUMENT before the op runs (retry with more). On other errors nothing is returned,
 * the message ends with " [Op:<type>]" and the op and context stay usable. */
TX_CAPI_EXPORT extern void TXE_Execute(TXE_Op* op, TXE_TensorHandle** retvals, int* num_retvals, TX_Status* status);
/* TXE_Execute that stops early once `cancellation` (borrowed; may be NULL; TX_Cancel) is cancelled:
 * a function call (PartitionedCall, StatefulPartitionedCall) or loop (While) checks it before each
 * kernel of its body and at every iteration, and fails with TX_CANCELLED ("the run was cancelled
 * [Op:<type>]"); an op started with a cancelled flag fails before it runs. The context stays usable. */
TX_CAPI_EXPORT extern void TXE_ExecuteWithCancellation(TXE_Op* op, TXE_TensorHandle** retvals, int* num_retvals,
                                                       TX_Cancellation* cancellation, TX_Status* status);

/* The number of tensors output argument `output_name` produced in the op's last successful
 * TXE_Execute (1 for a single tensor); -1 and an error before any execution or for an unknown
 * argument. */
TX_CAPI_EXPORT extern int TXE_OpGetOutputLength(TXE_Op* op, const char* output_name, TX_Status* status);

/* ---------------------------------------------------------------------------------------------
 * Gradient tapes (TensorFlow's tf.GradientTape): a tape records the ops executed on the thread that
 * created it, on its context, that read a watched value or the output of a recorded op, and
 * differentiates through them with the engine's registered gradient functions (the ones graph
 * mode uses). Tapes nest: every tape active on a thread records, including the ops an inner
 * tape's TXE_TapeGradient runs, which is how higher-order gradients are taken. Tapes are
 * thread-local ("one thread builds"): ops executed on other threads are not recorded; watching,
 * TXE_TapeGradient and deletion may happen on any thread, but a tape must not be deleted while a
 * call on it runs. Delete every tape before its context. */

typedef struct TXE_Tape TXE_Tape;

/* Starts a tape recording on the calling thread. `ctx` is borrowed and must outlive the tape.
 * `persistent`: TXE_TapeGradient may be called more than once (otherwise the second call is
 * FAILED_PRECONDITION). `watch_accessed_variables`: a ReadVariableOp or ResourceGather executed
 * while the tape records watches its variable handle. Caller owns; free with TXE_DeleteTape. */
TX_CAPI_EXPORT extern TXE_Tape* TXE_NewTape(TXE_Context* ctx, unsigned char persistent,
                                            unsigned char watch_accessed_variables, TX_Status* status);
/* Stops recording and frees the tape and everything it recorded. NULL is ignored. */
TX_CAPI_EXPORT extern void TXE_DeleteTape(TXE_Tape* tape);
/* Watches `handle` (borrowed): gradients with respect to it (a tensor, or a DT_RESOURCE variable
 * handle) can be taken through the ops recorded from now on. Copies made with
 * TXE_TensorHandleCopySharingTensor are the same value for the tape. */
TX_CAPI_EXPORT extern void TXE_TapeWatch(TXE_Tape* tape, const TXE_TensorHandle* handle, TX_Status* status);
/* Pauses (0) or resumes (1) recording (TensorFlow's tape.stop_recording()); watching still works. */
TX_CAPI_EXPORT extern void TXE_TapeSetRecording(TXE_Tape* tape, unsigned char recording);
/* 1 while the tape records, 0 when paused or used up (a non-persistent tape after its gradient). */
TX_CAPI_EXPORT extern unsigned char TXE_TapeIsRecording(const TXE_Tape* tape);

/* The gradients of sum_i(targets[i] * output_gradients[i]) with respect to each source.
 * `targets` (any tensor: those not floating-point or complex contribute nothing, as in
 * TensorFlow) and `sources` (any tensor, or DT_RESOURCE variable handles, whose gradient is that
 * of the values read through them) are borrowed. `output_gradients` is NULL or has `ntargets`
 * borrowed entries, each NULL (ones) or shaped and typed like its target (unchecked for a target
 * that contributes nothing).
 * `results` has room for `nsources` handles: each gets a caller-owned handle, or NULL for a source
 * no target depends on (through differentiable ops and floating values; integer sources are
 * never connected) when `unconnected` is TX_UNCONNECTED_NONE; TX_UNCONNECTED_ZERO gives zeros
 * shaped like the source (like the variable's value for a handle). Errors: INVALID_ARGUMENT for
 * bad arguments (the tape is unchanged); NOT_FOUND naming an op on the path that has no gradient;
 * FAILED_PRECONDITION for a second call on a non-persistent tape (used up once backprop started,
 * even if it failed). On error every result is NULL; the context stays usable. */
TX_CAPI_EXPORT extern void TXE_TapeGradient(TXE_Tape* tape, TXE_TensorHandle** targets, int ntargets,
                                            TXE_TensorHandle** sources, int nsources,
                                            TXE_TensorHandle** output_gradients, int unconnected,
                                            TXE_TensorHandle** results, TX_Status* status);

/* The number of variable handles the tape watched (explicitly or by reads), and the index-th of
 * them, in the order first watched, as a new caller-owned handle (TXE_DeleteTensorHandle) with the
 * same identity (TXE_TensorHandleId) as the handle watched. */
TX_CAPI_EXPORT extern int TXE_TapeNumWatchedVariables(const TXE_Tape* tape);
TX_CAPI_EXPORT extern TXE_TensorHandle* TXE_TapeWatchedVariable(const TXE_Tape* tape, int index, TX_Status* status);

/* The identity tapes key values on (never 0): handles made by TXE_TensorHandleCopySharingTensor
 * share it; every other handle-making call gives a new one. 0 for NULL. */
TX_CAPI_EXPORT extern int64_t TXE_TensorHandleId(const TXE_TensorHandle* h);

/* A custom gradient's backward function. `output_grads` has `num_outputs` borrowed handles, valid
 * during the call, NULL where no gradient flowed into that output. `input_grads` has room for
 * `num_inputs` handles, all NULL on entry: set each to a caller-owned handle (the engine takes
 * ownership, also when an error is reported) of the input's dtype and shape (the variable's dtype
 * for a resource input), or leave it NULL for no gradient. Report errors in `status` (it arrives
 * OK). Ops executed here are recorded by the tapes active on the thread (higher order). */
typedef void (*TXE_CustomGradientFn)(void* arg, TXE_TensorHandle** output_grads, int num_outputs,
                                     TXE_TensorHandle** input_grads, int num_inputs, TX_Status* status);

/* Records on every tape recording on the calling thread for `ctx` that `outputs` were computed
 * from `inputs` and that `fn` gives their gradient (what tx.custom_gradient uses): a tape records
 * it, like an op, when one of `inputs` is watched or recorded there; gradients reaching `outputs`
 * then go to `fn` instead of the ops that computed the outputs, which must be new values (not one
 * of `inputs`: pass such an output through Identity first). Handles are borrowed. `arg` is
 * passed to `fn`; the engine owns it from this call on: `deleter` (may be NULL) is called exactly
 * once, when no tape holds the record any more — before this call returns when no tape recorded it
 * or on error. */
TX_CAPI_EXPORT extern void TXE_TapeRecordCustomGradient(TXE_Context* ctx, TXE_TensorHandle** inputs, int nin,
                                                        TXE_TensorHandle** outputs, int nout, TXE_CustomGradientFn fn,
                                                        void* arg, void (*deleter)(void*), TX_Status* status);

#ifdef __cplusplus
} /* end extern "C" */
#endif

#endif /* TENSORFLUX_C_C_API_EAGER_H_ */
