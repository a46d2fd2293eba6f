/* Tensorflux plugin ABI: how a shared library (a "plugin") adds ops, shape functions, CPU kernels
 * and gradients to the engine, and how a host program (Python, Go, C) loads one.
 *
 * Two sides meet here:
 *  - The host side is part of the C API (exported by libtensorflux): TX_LoadLibrary,
 *    TX_GetOpList, TX_DeleteLibraryHandle, TX_GetPluginAbiVersion. The rules at the top of
 *    c_api.h hold for it.
 *  - The plugin side: a plugin links against nothing from Tensorflux. It includes this header and
 *    exports exactly two functions (TX_PLUGIN_EXPORT, C linkage):
 *
 *        uint32_t TX_PluginAbiVersion(void);   // define it with TX_PLUGIN_DEFINE_ABI_VERSION()
 *        void TX_InitPlugin(const TX_PluginApi* api, TX_PluginRegistrar* registrar, TX_Status* status);
 *
 *    TX_LoadLibrary dlopens the file, calls TX_PluginAbiVersion, and calls TX_InitPlugin only if
 *    the core can serve that version (below). TX_InitPlugin registers everything through `api`, a
 *    table of function pointers owned by the core (valid for the life of the process), and
 *    reports a failure by setting `status` with api->SetStatus. Every call the plugin makes into
 *    the engine goes through `api`; the plugin never sees a C++ type.
 *
 * Versioning (Note [Plugin ABI versions] in the engine's c/plugin_loader.cc):
 *  - TX_PLUGIN_ABI_VERSION_MAJOR.MINOR is the ABI this header describes. A plugin is built for
 *    TX_PLUGIN_TARGET_ABI_VERSION (default: this header's version; define it to
 *    TX_PLUGIN_MAKE_ABI_VERSION(1, k) before including to target an older minor and so load into
 *    older cores).
 *  - A core with ABI M.n loads a plugin built for M'.n' when M' == M and n' <= n. Anything else is
 *    refused by TX_LoadLibrary with TX_FAILED_PRECONDITION and a message naming both versions; the
 *    plugin's TX_InitPlugin is then never called.
 *
 * Evolution rules (what keeps old plugins loading into new cores):
 *  - TX_PluginApi only grows at its end: a new minor version appends entries (each marked with the
 *    version that added it) and never removes, reorders or changes the signature or meaning of an
 *    existing one. A plugin built for minor n' uses only the entries of versions <= n'; the
 *    core's table always holds at least those.
 *  - Enum values and typedef'd callback signatures are never changed; new ones are appended.
 *  - Opaque handles (TX_OpKernelContext, TX_GradContext, ...) stay opaque: a plugin never knows
 *    their size. No struct a plugin allocates ever grows (TX_GradValue is a value of fixed size).
 *  - Removing or changing anything is a new major version, which no old plugin loads into.
 *
 * Ownership, as in c_api.h: "borrowed" pointers stay owned by their giver and are valid only for
 * the stated time (most: the duration of the callback they were given to); builders created by
 * New* are consumed by the matching Register* call (even when it fails) or freed by Delete*.
 * Strings passed in are copied.
 *
 * Threading: shape functions, gradient functions and kernel compute callbacks may be called from
 * any engine thread, and concurrently for different nodes and for different runs of the same
 * kernel instance (a kernel keeps no per-call state in its instance, as in TensorFlow).
 * TX_InitPlugin runs once per process per library, on the thread calling TX_LoadLibrary.
 *
 * docs/plugins.md walks through writing, building and loading a plugin.
 */
#ifndef TENSORFLUX_C_C_API_PLUGIN_H_
#define TENSORFLUX_C_C_API_PLUGIN_H_

#include <stddef.h>
#include <stdint.h>

#include "tensorflux/c/c_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * Versions */

#define TX_PLUGIN_ABI_VERSION_MAJOR 1
#define TX_PLUGIN_ABI_VERSION_MINOR 0
/* A version as one number: major in the high 16 bits, minor in the low 16. */
#define TX_PLUGIN_MAKE_ABI_VERSION(major, minor) ((uint32_t)(((uint32_t)(major) << 16) | (uint32_t)(minor)))
#define TX_PLUGIN_ABI_VERSION TX_PLUGIN_MAKE_ABI_VERSION(TX_PLUGIN_ABI_VERSION_MAJOR, TX_PLUGIN_ABI_VERSION_MINOR)
#define TX_PLUGIN_ABI_MAJOR(version) ((unsigned)((uint32_t)(version) >> 16))
#define TX_PLUGIN_ABI_MINOR(version) ((unsigned)((uint32_t)(version) & 0xFFFFu))
#ifndef TX_PLUGIN_TARGET_ABI_VERSION
#define TX_PLUGIN_TARGET_ABI_VERSION TX_PLUGIN_ABI_VERSION
#endif

/* ---------------------------------------------------------------------------------------------
 * Host side (exported by libtensorflux) */

/* A loaded plugin: what TX_LoadLibrary returns. */
typedef struct TX_Library TX_Library;

/* The plugin ABI version this core serves (TX_PLUGIN_ABI_VERSION of the header it was built with). */
TX_CAPI_EXPORT extern uint32_t TX_GetPluginAbiVersion(void);

/* Loads the plugin at `library_filename` (borrowed) and registers its ops, kernels and gradients
 * in the process-wide registries, all or nothing: on any error nothing it asked for is
 * registered, the file is closed again, and NULL is returned with `status` naming the file and
 * what was wrong (TX_NOT_FOUND: no such file, or a kernel or gradient for an op nobody
 * registered; TX_INVALID_ARGUMENT: a file that is not a loadable shared library, a library that
 * does not export TX_PluginAbiVersion and TX_InitPlugin, or a malformed registration;
 * TX_FAILED_PRECONDITION: an ABI version this core cannot serve, naming both versions;
 * TX_ALREADY_EXISTS: an op, kernel or gradient that is already registered; the plugin's own code
 * and message when its TX_InitPlugin fails). Loading a library that is already loaded
 * returns a new handle to it without initializing it again. Registrations are never removed and
 * the library is never unloaded once loaded. Thread-safe. Caller owns the result
 * (TX_DeleteLibraryHandle). */
TX_CAPI_EXPORT extern TX_Library* TX_LoadLibrary(const char* library_filename, TX_Status* status);

/* The serialized OpList of the ops the library registered, in registration order. The bytes are
 * owned by `lib_handle` and valid until TX_DeleteLibraryHandle (the buffer's deallocator is NULL). */
TX_CAPI_EXPORT extern TX_Buffer TX_GetOpList(TX_Library* lib_handle);

/* Frees the handle; the library stays loaded and its registrations stay in place. NULL is allowed. */
TX_CAPI_EXPORT extern void TX_DeleteLibraryHandle(TX_Library* lib_handle);

/* ---------------------------------------------------------------------------------------------
 * Plugin side: types */

#if defined(__cplusplus)
#define TX_PLUGIN_EXPORT extern "C" __attribute__((visibility("default")))
#else
#define TX_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

/* Defines the plugin's TX_PluginAbiVersion(), returning TX_PLUGIN_TARGET_ABI_VERSION. */
#define TX_PLUGIN_DEFINE_ABI_VERSION() \
  TX_PLUGIN_EXPORT uint32_t TX_PluginAbiVersion(void) { return TX_PLUGIN_TARGET_ABI_VERSION; }

/* Opaque handles. Each is borrowed by the callback it is given to and valid only during it. */
typedef struct TX_PluginRegistrar TX_PluginRegistrar; /* TX_InitPlugin's registrations */
typedef struct TX_OpDefinitionBuilder TX_OpDefinitionBuilder; /* an OpDef being built */
typedef struct TX_KernelBuilder TX_KernelBuilder; /* a kernel registration being built */
typedef struct TX_Attrs TX_Attrs; /* a node's attrs, read-only */
typedef struct TX_ShapeInferenceContext TX_ShapeInferenceContext;
typedef struct TX_OpKernelConstruction TX_OpKernelConstruction;
typedef struct TX_OpKernelContext TX_OpKernelContext;
typedef struct TX_VariableLock TX_VariableLock; /* resource variables held for update */
typedef struct TX_GradContext TX_GradContext;
typedef struct TX_GradOp TX_GradOp; /* an op a gradient is adding */

/* A tensor in a gradient function's world (a graph endpoint in graph mode, a value in eager mode).
 * id < 0 is "no value": TensorFlow's None gradient. */
typedef struct TX_GradValue {
  int id;
} TX_GradValue;

/* Computes output shapes from input shapes, known constant inputs and attrs; reports a shape
 * error by setting `status` (left TX_OK on entry). Outputs it does not set stay unknown. */
typedef void (*TX_ShapeInferenceFn)(TX_ShapeInferenceContext* ctx, TX_Status* status);

/* Creates a kernel instance for one node (called once per node per plan, and once per eager
 * signature); returns the plugin's state for it (may be NULL). On error set `status`; the delete
 * callback is then called with the returned pointer. */
typedef void* (*TX_KernelCreateFn)(TX_OpKernelConstruction* ctx, TX_Status* status);
/* Runs the kernel: reads inputs, writes outputs; reports an error by setting `status`. */
typedef void (*TX_KernelComputeFn)(void* kernel, TX_OpKernelContext* ctx, TX_Status* status);
/* Frees what the create callback returned (called exactly once per create call; may be NULL). */
typedef void (*TX_KernelDeleteFn)(void* kernel);

/* A range of work for TX_PluginApi.KernelContextParallelFor: items [begin, end). */
typedef void (*TX_ParallelForFn)(void* arg, int64_t begin, int64_t end);

/* Builds the input gradients of one op: reads the forward op through `ctx`, adds ops with
 * GradNewOp/GradFinishOp and stores results with GradSetInputGrad; reports an error by setting
 * `status`. The same function serves graph mode, the eager tape and tx.function. */
typedef void (*TX_GradientFn)(TX_GradContext* ctx, TX_Status* status);

/* ---------------------------------------------------------------------------------------------
 * Plugin side: the function table. Entries are only ever appended (see the rules at the top). */

typedef struct TX_PluginApi {
  /* The core's TX_PLUGIN_ABI_VERSION (a plugin may test it before using entries of later minors). */
  uint32_t abi_version;

  /* ---- 1.0: status ------------------------------------------------------------------------ */
  /* Sets the code and copies `message` (borrowed). */
  void (*SetStatus)(TX_Status* status, TX_Code code, const char* message);
  TX_Code (*GetCode)(const TX_Status* status);
  /* The message ("" when OK); owned by `status`, valid until it next changes. */
  const char* (*Message)(const TX_Status* status);

  /* ---- 1.0: op definitions -----------------------------------------------------------------
   * Specs use TensorFlow's REGISTER_OP syntax: inputs and outputs "x: T", "values: N * T",
   * "z: float", "handle: resource"; attrs "T: {float, double}", "T: numbertype",
   * "scale: float = 1.0", "N: int >= 1", "mode: {'fast', 'exact'} = 'fast'",
   * "axes: list(int) = []". Attrs must be added before the inputs and outputs that name them. */
  /* A builder for op `op_name` (CamelCase); caller owns it (RegisterOpDefinition or DeleteOpDefinitionBuilder). */
  TX_OpDefinitionBuilder* (*NewOpDefinitionBuilder)(const char* op_name);
  void (*OpDefinitionBuilderAddInput)(TX_OpDefinitionBuilder* builder, const char* spec);
  void (*OpDefinitionBuilderAddOutput)(TX_OpDefinitionBuilder* builder, const char* spec);
  void (*OpDefinitionBuilderAddAttr)(TX_OpDefinitionBuilder* builder, const char* spec);
  /* Marks the op stateful (never deduplicated or constant-folded; required for ops on variables). */
  void (*OpDefinitionBuilderSetIsStateful)(TX_OpDefinitionBuilder* builder, unsigned char is_stateful);
  void (*OpDefinitionBuilderSetIsCommutative)(TX_OpDefinitionBuilder* builder, unsigned char is_commutative);
  /* The one-line summary (becomes the generated wrappers' doc comment) and a longer description. */
  void (*OpDefinitionBuilderSetSummary)(TX_OpDefinitionBuilder* builder, const char* summary);
  void (*OpDefinitionBuilderSetDescription)(TX_OpDefinitionBuilder* builder, const char* description);
  /* The shape function (NULL, the default: every output has an unknown shape). */
  void (*OpDefinitionBuilderSetShapeFunction)(TX_OpDefinitionBuilder* builder, TX_ShapeInferenceFn fn);
  /* Frees a builder that will not be registered. NULL is allowed. */
  void (*DeleteOpDefinitionBuilder)(TX_OpDefinitionBuilder* builder);
  /* Parses the specs and stages the op for registration; always consumes `builder`. Errors name
   * the op: a malformed spec (TX_INVALID_ARGUMENT), a name already registered (TX_ALREADY_EXISTS). */
  void (*RegisterOpDefinition)(TX_PluginRegistrar* registrar, TX_OpDefinitionBuilder* builder, TX_Status* status);
  /* Stages the op described by a serialized OpDef (`op_def`, `length` bytes, borrowed;
   * TensorFlow's OpDef message) with shape function `shape_fn` (may be NULL). Errors as above,
   * plus TX_INVALID_ARGUMENT for bytes that do not parse. */
  void (*RegisterOpDef)(TX_PluginRegistrar* registrar, const void* op_def, size_t length, TX_ShapeInferenceFn shape_fn,
                        TX_Status* status);

  /* ---- 1.0: attrs (of a node; read by shape functions, kernels and gradients) --------------
   * Getters fail with TX_INVALID_ARGUMENT naming the attr when it is missing or of another kind. */
  unsigned char (*AttrsHas)(const TX_Attrs* attrs, const char* name);
  void (*AttrsGetInt)(const TX_Attrs* attrs, const char* name, int64_t* value, TX_Status* status);
  void (*AttrsGetFloat)(const TX_Attrs* attrs, const char* name, float* value, TX_Status* status);
  void (*AttrsGetBool)(const TX_Attrs* attrs, const char* name, unsigned char* value, TX_Status* status);
  void (*AttrsGetType)(const TX_Attrs* attrs, const char* name, TX_DataType* value, TX_Status* status);
  /* *data points at the string's bytes (owned by `attrs`), *length is their count. */
  void (*AttrsGetString)(const TX_Attrs* attrs, const char* name, const char** data, size_t* length, TX_Status* status);
  /* The number of elements of a list attr. */
  int (*AttrsGetListSize)(const TX_Attrs* attrs, const char* name, TX_Status* status);
  /* Copy up to `max_values` elements of a list attr into caller-allocated `values`. */
  void (*AttrsGetIntList)(const TX_Attrs* attrs, const char* name, int64_t* values, int max_values, TX_Status* status);
  void (*AttrsGetFloatList)(const TX_Attrs* attrs, const char* name, float* values, int max_values, TX_Status* status);
  void (*AttrsGetTypeList)(const TX_Attrs* attrs, const char* name, TX_DataType* values, int max_values,
                           TX_Status* status);
  /* A shape attr: *num_dims gets its rank (-1: unknown rank) and up to `max_dims` dims (-1:
   * unknown) go into caller-allocated `dims`. */
  void (*AttrsGetShape)(const TX_Attrs* attrs, const char* name, int64_t* dims, int max_dims, int* num_dims,
                        TX_Status* status);

  /* ---- 1.0: shape inference ---------------------------------------------------------------- */
  int (*ShapeContextNumInputs)(const TX_ShapeInferenceContext* ctx);
  int (*ShapeContextNumOutputs)(const TX_ShapeInferenceContext* ctx);
  const TX_Attrs* (*ShapeContextAttrs)(const TX_ShapeInferenceContext* ctx);
  /* Rank of input i, -1 when unknown (also for an out-of-range i). */
  int (*ShapeContextInputRank)(const TX_ShapeInferenceContext* ctx, int i);
  /* Size of dimension d of input i, -1 when unknown (or out of range). */
  int64_t (*ShapeContextInputDim)(const TX_ShapeInferenceContext* ctx, int i, int d);
  /* The value of input i when it is a constant known while building (its dtype in *dtype and its
   * element count in *num_elements; the shape is the input's, fully known), else NULL. The data
   * is borrowed for the duration of the callback. */
  const void* (*ShapeContextInputConstant)(const TX_ShapeInferenceContext* ctx, int i, TX_DataType* dtype,
                                           int64_t* num_elements);
  /* Sets the shape of output i: `dims` (borrowed) has `num_dims` entries (-1: unknown dim);
   * num_dims -1 is an unknown rank. TX_INVALID_ARGUMENT for a bad index or dim. */
  void (*ShapeContextSetOutput)(TX_ShapeInferenceContext* ctx, int i, const int64_t* dims, int num_dims,
                                TX_Status* status);

  /* ---- 1.0: kernels ------------------------------------------------------------------------ */
  /* A builder for a kernel of op `op_name` on `device_type` ("CPU"); caller owns it
   * (RegisterKernel or DeleteKernelBuilder). `compute` is required; `create` and `destroy` may be
   * NULL (the kernel then has no state). */
  TX_KernelBuilder* (*NewKernelBuilder)(const char* op_name, const char* device_type, TX_KernelCreateFn create,
                                        TX_KernelComputeFn compute, TX_KernelDeleteFn destroy);
  /* Restricts the kernel to nodes whose type attr `attr_name` is `dtype` (one call per attr). */
  void (*KernelBuilderTypeConstraint)(TX_KernelBuilder* builder, const char* attr_name, TX_DataType dtype);
  /* 0 for kernels cheap enough to run inline on the scheduling thread (default 1: expensive). */
  void (*KernelBuilderSetIsExpensive)(TX_KernelBuilder* builder, unsigned char is_expensive);
  void (*DeleteKernelBuilder)(TX_KernelBuilder* builder);
  /* Stages the kernel; always consumes `builder`. The op must be registered (by the core or this
   * plugin) and the constrained attrs must be its type attrs; only "CPU" kernels are supported. A
   * kernel with the same (op, device, constraints) as one already registered makes TX_LoadLibrary
   * fail with TX_ALREADY_EXISTS. */
  void (*RegisterKernel)(TX_PluginRegistrar* registrar, TX_KernelBuilder* builder, TX_Status* status);

  /* Kernel construction (the create callback). Strings are owned by the node. */
  const char* (*KernelConstructionNodeName)(const TX_OpKernelConstruction* ctx);
  int (*KernelConstructionNumInputs)(const TX_OpKernelConstruction* ctx);
  int (*KernelConstructionNumOutputs)(const TX_OpKernelConstruction* ctx);
  TX_DataType (*KernelConstructionInputType)(const TX_OpKernelConstruction* ctx, int i);
  TX_DataType (*KernelConstructionOutputType)(const TX_OpKernelConstruction* ctx, int i);
  const TX_Attrs* (*KernelConstructionAttrs)(const TX_OpKernelConstruction* ctx);

  /* Kernel compute (the compute callback). Indices out of range give 0 / NULL / -1. */
  const char* (*KernelContextNodeName)(const TX_OpKernelContext* ctx);
  const TX_Attrs* (*KernelContextAttrs)(const TX_OpKernelContext* ctx);
  int (*KernelContextNumInputs)(const TX_OpKernelContext* ctx);
  int (*KernelContextNumOutputs)(const TX_OpKernelContext* ctx);
  TX_DataType (*KernelContextInputType)(const TX_OpKernelContext* ctx, int i);
  int (*KernelContextInputNumDims)(const TX_OpKernelContext* ctx, int i);
  int64_t (*KernelContextInputDim)(const TX_OpKernelContext* ctx, int i, int d);
  int64_t (*KernelContextInputNumElements)(const TX_OpKernelContext* ctx, int i);
  /* Input i's elements, row-major (read-only; borrowed for the call). */
  const void* (*KernelContextInputData)(const TX_OpKernelContext* ctx, int i);
  /* The dtype output i must have (from the op's signature and the node's attrs). */
  TX_DataType (*KernelContextOutputType)(const TX_OpKernelContext* ctx, int i);
  /* Allocates output i with shape `dims` (borrowed, num_dims entries, each >= 0) and the output's
   * dtype; returns its (uninitialized, 64-byte aligned) memory, valid for the call, or NULL with
   * `status` set. Allocating an output again replaces it. */
  void* (*KernelContextAllocateOutput)(TX_OpKernelContext* ctx, int i, const int64_t* dims, int num_dims,
                                       TX_Status* status);
  /* Like KernelContextAllocateOutput, but reuses input `input`'s buffer (already holding the
   * input's values) when nothing else holds it and its dtype and size match, as elementwise
   * kernels do (Note [Buffer forwarding]). The returned memory may be the input's: read each
   * input element before writing the same output element. */
  void* (*KernelContextForwardInputOrAllocateOutput)(TX_OpKernelContext* ctx, int input, int output,
                                                     const int64_t* dims, int num_dims, TX_Status* status);
  /* Sets output `output` to input `input` itself (shared, not copied; dtypes must match). */
  void (*KernelContextSetOutputToInput)(TX_OpKernelContext* ctx, int output, int input, TX_Status* status);
  /* Threads of the intra-op pool (the calling thread not counted; 0: everything runs inline). */
  int (*KernelContextNumIntraOpThreads)(const TX_OpKernelContext* ctx);
  /* Calls fn(arg, begin, end) over disjoint ranges covering [0, total), on the intra-op pool's
   * threads and the calling one when total * cost_per_unit (about CPU cycles per item) is large
   * enough to pay for it, else inline; returns when every range is done. When it splits, ranges
   * start at multiples of 64 items. `fn` must not call back into the engine except Kernel*
   * getters. */
  void (*KernelContextParallelFor)(TX_OpKernelContext* ctx, int64_t total, int64_t cost_per_unit, TX_ParallelForFn fn,
                                   void* arg);
  /* Locks the resource variables behind resource inputs inputs[0..num_inputs) (borrowed; repeats
   * allowed) in a deadlock-free order and makes each one's buffer private to it, so the kernel may
   * write it in place (copy-on-write when a snapshot of the old value is still read elsewhere).
   * Fails (NULL, `status` set) when an input is not a resource handle or a variable is missing or
   * uninitialized (TX_FAILED_PRECONDITION naming it). Release it with ReleaseVariableLock before
   * the compute callback returns; the core releases a forgotten one. */
  TX_VariableLock* (*KernelContextLockVariables)(TX_OpKernelContext* ctx, const int* inputs, int num_inputs,
                                                 TX_Status* status);
  /* Variable k of the lock (k indexes `inputs` as passed): dtype, shape and writable memory. */
  TX_DataType (*VariableLockType)(const TX_VariableLock* lock, int k);
  int (*VariableLockNumDims)(const TX_VariableLock* lock, int k);
  int64_t (*VariableLockDim)(const TX_VariableLock* lock, int k, int d);
  int64_t (*VariableLockNumElements)(const TX_VariableLock* lock, int k);
  void* (*VariableLockData)(TX_VariableLock* lock, int k);
  /* Unlocks and frees the lock. NULL is allowed. */
  void (*ReleaseVariableLock)(TX_VariableLock* lock);

  /* ---- 1.0: gradients ---------------------------------------------------------------------- */
  /* Stages `fn` as the gradient of op `op_name` (registered by the core or this plugin); `fn` NULL
   * declares the op not differentiable (gradients stop there). TX_ALREADY_EXISTS when the op
   * already has a gradient or a declaration. */
  void (*RegisterGradient)(TX_PluginRegistrar* registrar, const char* op_name, TX_GradientFn fn, TX_Status* status);
  const TX_Attrs* (*GradContextAttrs)(const TX_GradContext* ctx);
  int (*GradContextNumInputs)(const TX_GradContext* ctx);
  int (*GradContextNumOutputs)(const TX_GradContext* ctx);
  /* The forward op's input i and output i (no value for an out-of-range index). */
  TX_GradValue (*GradContextInput)(const TX_GradContext* ctx, int i);
  TX_GradValue (*GradContextOutput)(const TX_GradContext* ctx, int i);
  /* The gradient flowing into output i: zeros shaped like the output when none flowed there, no
   * value for outputs of a non-floating dtype. */
  TX_GradValue (*GradContextOutputGrad)(TX_GradContext* ctx, int i);
  /* 1 when a gradient flowed into output i. */
  unsigned char (*GradContextHasOutputGrad)(const TX_GradContext* ctx, int i);
  /* 1 when the gradient of input i is wanted (a function may skip work for the others). */
  unsigned char (*GradContextNeedsInputGrad)(const TX_GradContext* ctx, int i);
  /* Sets the gradient of input i (no value: none flows there). Unset inputs get no gradient. */
  void (*GradContextSetInputGrad)(TX_GradContext* ctx, int i, TX_GradValue grad);
  /* What is known of a value without running anything: dtype, rank (-1 unknown), dim (-1 unknown).
   * In eager mode every shape is known. */
  TX_DataType (*GradValueType)(const TX_GradContext* ctx, TX_GradValue v);
  int (*GradValueRank)(const TX_GradContext* ctx, TX_GradValue v);
  int64_t (*GradValueDim)(const TX_GradContext* ctx, TX_GradValue v, int d);
  /* A constant of `dtype` and shape `dims` (num_dims entries) holding `length` bytes copied from
   * `data` (borrowed; length must equal the dtype size times the element count). */
  TX_GradValue (*GradConstant)(TX_GradContext* ctx, TX_DataType dtype, const int64_t* dims, int num_dims,
                               const void* data, size_t length, TX_Status* status);
  /* Starts adding op `op_type` (any registered op); inputs follow the OpDef's input arguments in
   * order (a list argument with GradOpAddInputList); type and length attrs are inferred from the
   * inputs, others default when not set. Consumed by GradFinishOp. */
  TX_GradOp* (*GradNewOp)(TX_GradContext* ctx, const char* op_type);
  void (*GradOpAddInput)(TX_GradOp* op, TX_GradValue input);
  void (*GradOpAddInputList)(TX_GradOp* op, const TX_GradValue* inputs, int num_inputs);
  void (*GradOpSetAttrInt)(TX_GradOp* op, const char* name, int64_t value);
  void (*GradOpSetAttrFloat)(TX_GradOp* op, const char* name, float value);
  void (*GradOpSetAttrBool)(TX_GradOp* op, const char* name, unsigned char value);
  void (*GradOpSetAttrType)(TX_GradOp* op, const char* name, TX_DataType value);
  void (*GradOpSetAttrString)(TX_GradOp* op, const char* name, const void* value, size_t length);
  void (*GradOpSetAttrIntList)(TX_GradOp* op, const char* name, const int64_t* values, int num_values);
  /* Adds (graph mode) or runs (eager mode) the op; stores up to `max_outputs` of its outputs in
   * caller-allocated `outputs` and returns the op's number of outputs, or -1 with `status` set
   * (an error in the op's construction, e.g. a shape error). Always consumes `op`. */
  int (*GradFinishOp)(TX_GradOp* op, TX_GradValue* outputs, int max_outputs, TX_Status* status);
} TX_PluginApi;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TENSORFLUX_C_C_API_PLUGIN_H_ */
