/* Tensorflux C API: the one boundary between every front end (Python, Go, C) and the engine.
 *
 * Rules (they hold for every function below unless its comment says otherwise):
 *  - Prefix TX_. Opaque objects are created by TX_New* / TX_Allocate* and freed by the matching
 *    TX_Delete*; every TX_Delete* accepts NULL.
 *  - A function that can fail takes a TX_Status* as its last argument (or the one before an out
 *    argument, mirroring TensorFlow). It is set to TX_OK on success and to an error code with a
 *    message on failure. Messages about a node start with the node's name in brackets: "[x] ...".
 *  - Ownership is stated on every function: "borrowed" pointers stay owned by the caller (or by
 *    the object that returned them) and must outlive the call; "caller owns" results must be
 *    freed by the caller with the named function. A returned `const char*` is owned by the object
 *    it came from and lives as long as that object, unless stated otherwise.
 *  - Inputs are copied unless stated otherwise (attr values, names, option strings).
 *  - Booleans are unsigned char (0 or 1), sizes size_t, counts and indices int.
 *  - Protocol buffers cross this boundary only as serialized bytes (TX_Buffer), wire-compatible
 *    with TensorFlow's messages of the same name. No C++ type, exception or STL object crosses it.
 *  - Bad input never crashes the process: it yields an error status.
 *  - Misuse, and what happens (tested: csrc/tests/c_api_misuse_test.c, and c_api_null_test.c,
 *    which calls every function of the C API headers with NULL objects):
 *    - NULL for an object (graph, operation, description, session, options, tensor, buffer,
 *      function, checkpoint, context, op, handle, tape, flag) or for a name: a function taking a
 *      status sets an error (TX_INVALID_ARGUMENT unless stated) and returns NULL, 0 or -1; one
 *      without a status returns its zero value: NULL (objects, TX_FunctionName), "" (operation
 *      names, types and devices), 0 (counts, TX_NumDims, dtypes), -1 (TX_Dim and other dims,
 *      ranks, list lengths), a TX_Output with a NULL oper; setters and TX_Delete* do nothing. A
 *      NULL or bad argument to a TX_SetAttr* / TX_AddInput* call is reported by
 *      TX_FinishOperation, whose error names the operation.
 *    - Negative counts, NULL arrays with a positive count, out-of-range indices (outputs, inputs,
 *      dims, attrs, checkpoint tensors) and operations of another live graph: an error status
 *      naming the argument (TX_OUT_OF_RANGE for output indices), or the zero value above where the
 *      function takes no status. Negative thread counts mean the default (one per core).
 *    - Malformed serialized protocol buffers: an error naming the message (TX_DATA_LOSS, as for
 *      corrupt files; TX_INVALID_ARGUMENT for RunOptions).
 *    - Pointers to freed objects (an operation of a deleted graph, see TX_DeleteGraph; a deleted
 *      tensor, status, session or context; a description after TX_FinishOperation) and a status
 *      shared between threads: undefined behaviour, as in TensorFlow. Such pointers cannot be told
 *      from live ones without a global registry consulted on every call.
 *  - Thread safety: a TX_Graph may be read and extended from several threads; a TX_Session may
 *    be run from several threads at once; TX_OperationDescription, TX_Status and
 *    TX_ImportGraphDefOptions are single-threaded.
 *  - The API evolves by appending functions and enum values; public structs never grow.
 */
#ifndef TENSORFLUX_C_C_API_H_
#define TENSORFLUX_C_C_API_H_

#include <stddef.h>
#include <stdint.h>

#if defined(TX_COMPILING_LIBRARY)
#define TX_CAPI_EXPORT __attribute__((visibility("default")))
#else
#define TX_CAPI_EXPORT
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * Version */

/* The engine's version string, e.g. "0.1.0"; static storage. */
TX_CAPI_EXPORT extern const char* TX_Version(void);

/* ---------------------------------------------------------------------------------------------
 * Status */

/* Error codes, numbered as gRPC's and TensorFlow's. */
typedef enum TX_Code {
  TX_OK = 0,
  TX_CANCELLED = 1,
  TX_UNKNOWN = 2,
  TX_INVALID_ARGUMENT = 3,
  TX_DEADLINE_EXCEEDED = 4,
  TX_NOT_FOUND = 5,
  TX_ALREADY_EXISTS = 6,
  TX_PERMISSION_DENIED = 7,
  TX_RESOURCE_EXHAUSTED = 8,
  TX_FAILED_PRECONDITION = 9,
  TX_ABORTED = 10,
  TX_OUT_OF_RANGE = 11,
  TX_UNIMPLEMENTED = 12,
  TX_INTERNAL = 13,
  TX_UNAVAILABLE = 14,
  TX_DATA_LOSS = 15,
  TX_UNAUTHENTICATED = 16,
} TX_Code;

typedef struct TX_Status TX_Status;

/* Returns a new status set to TX_OK; caller owns it (TX_DeleteStatus). */
TX_CAPI_EXPORT extern TX_Status* TX_NewStatus(void);
/* Frees `s`. */
TX_CAPI_EXPORT extern void TX_DeleteStatus(TX_Status* s);
/* Sets the code and copies `msg` (borrowed). TX_OK clears the message. */
TX_CAPI_EXPORT extern void TX_SetStatus(TX_Status* s, TX_Code code, const char* msg);
/* The code of `s`. */
TX_CAPI_EXPORT extern TX_Code TX_GetCode(const TX_Status* s);
/* The message of `s` ("" when OK); owned by `s`, valid until `s` next changes. */
TX_CAPI_EXPORT extern const char* TX_Message(const TX_Status* s);

/* ---------------------------------------------------------------------------------------------
 * Buffers: bytes passed in or out (serialized protocol buffers). The struct is public, as in
 * TensorFlow. */

typedef struct TX_Buffer {
  const void* data;
  size_t length;
  /* Called by TX_DeleteBuffer with (data, length) when non-NULL. */
  void (*data_deallocator)(void* data, size_t length);
} TX_Buffer;

/* Copies `len` bytes of `proto` into a new buffer; caller owns it (TX_DeleteBuffer). */
TX_CAPI_EXPORT extern TX_Buffer* TX_NewBufferFromString(const void* proto, size_t len);
/* Returns an empty buffer for an API to fill; caller owns it (TX_DeleteBuffer). */
TX_CAPI_EXPORT extern TX_Buffer* TX_NewBuffer(void);
/* Runs the deallocator (if any) and frees `buffer`. */
TX_CAPI_EXPORT extern void TX_DeleteBuffer(TX_Buffer* buffer);
/* Returns a copy of the struct (the data stays owned by `buffer`). */
TX_CAPI_EXPORT extern TX_Buffer TX_GetBuffer(TX_Buffer* buffer);

/* ---------------------------------------------------------------------------------------------
 * Data types: values equal TensorFlow's DataType enum. */

typedef enum TX_DataType {
  TX_FLOAT = 1,
  TX_DOUBLE = 2,
  TX_INT32 = 3,
  TX_UINT8 = 4,
  TX_INT16 = 5,
  TX_INT8 = 6,
  TX_STRING = 7,
  TX_COMPLEX64 = 8,
  TX_INT64 = 9,
  TX_BOOL = 10,
  TX_QINT8 = 11,
  TX_QUINT8 = 12,
  TX_QINT32 = 13,
  TX_BFLOAT16 = 14,
  TX_QINT16 = 15,
  TX_QUINT16 = 16,
  TX_UINT16 = 17,
  TX_COMPLEX128 = 18,
  TX_HALF = 19,
  TX_RESOURCE = 20,
  TX_VARIANT = 21,
  TX_UINT32 = 22,
  TX_UINT64 = 23,
} TX_DataType;

/* Bytes per element (sizeof(TX_TString) for TX_STRING); 0 for unknown types and TX_RESOURCE. */
TX_CAPI_EXPORT extern size_t TX_DataTypeSize(TX_DataType dt);

/* ---------------------------------------------------------------------------------------------
 * Tensors: dense, row-major, refcounted.
 *
 * Bool tensors: a TX_BOOL element is one byte, 0 (false) or 1 (true). A buffer may hold other
 * bytes (memory wrapped by TX_NewTensor, bytes written through TX_TensorData): the engine reads
 * every nonzero byte as true. Where it first reads a caller's tensor (TX_SessionRun feeds,
 * TXE_NewTensorHandle, TX_SetAttrTensor(List), TXE_OpSetAttrTensor, TX_SaveSafetensors) it
 * works on a 0/1 copy and never writes the caller's memory; decoded TensorProtos and safetensors
 * files are normalised the same way, so every tensor the engine returns holds only 0 and 1.
 * (Note [Canonical bool] in the engine's core/canonical_bool.h.)
 * Writing into a tensor's memory after passing it to one of those functions is undefined.
 *
 * String tensors: a TX_STRING element is a TX_TString (below), so the tensor's memory is an
 * array of TX_TString, read and written with the TX_String* functions.
 *  - TX_AllocateTensor(TX_STRING, dims, num_dims, n * sizeof(TX_TString)) returns n empty
 *    strings; fill them through TX_TensorData before passing the tensor on. The tensor destroys
 *    them (TX_StringDealloc) when its memory is released.
 *  - TX_NewTensor(TX_STRING, ...) wraps `data` holding n initialized TX_TStrings (TX_StringInit,
 *    TX_StringCopy or TX_StringAssignView); len must be n * sizeof(TX_TString). The engine never
 *    modifies or destroys those elements: the deallocator must TX_StringDealloc each before
 *    freeing the memory, as in TensorFlow.
 *  - TX_AllocateStringTensor(dims, num_dims, storage_len, &storage) returns empty strings plus
 *    `storage_len` bytes of storage in the tensor's own memory: copy a batch of strings there
 *    and TX_StringAssignView each element into it.
 *  - Where the engine first reads a caller's tensor (the functions listed above), a malformed
 *    element (an uninitialized or OFFSET-form TX_TString) is TX_INVALID_ARGUMENT, and a tensor
 *    with views of bytes outside its own storage is copied into strings owning their bytes, so
 *    such viewed bytes need only outlive that call (while the caller itself reads the view, they
 *    must stay valid).
 *  - Tensors the engine returns (fetches, resolved handles, attr values) own their strings, or
 *    view bytes in their own storage. */

/* Variant tensors (TX_VARIANT) hold engine objects, such as the TensorLists of the TensorList ops:
 * TX_AllocateTensor makes empty ones, TX_NewTensor refuses the type (returns NULL after calling
 * the deallocator), and the bytes at TX_TensorData of a variant tensor are not to be read or
 * written. Their values leave the engine through ops (TensorListStack, ...). */

typedef struct TX_Tensor TX_Tensor;

/* Wraps caller memory `data` of `len` bytes without copying. The tensor calls
 * `deallocator(data, len, deallocator_arg)` (if non-NULL) once it no longer needs the memory,
 * possibly from another thread; with a NULL deallocator the memory stays the caller's and must
 * outlive every use of the tensor (the engine never frees it). `dims` (borrowed) has `num_dims`
 * entries. If `len` does not equal the dtype size times the element count, a dim is negative, or
 * the engine cannot store `dtype` (e.g. TX_RESOURCE), returns NULL after calling the deallocator.
 * TX_STRING data is an array of initialized TX_TString (see "String tensors" above).
 * Caller owns the result (TX_DeleteTensor). */
TX_CAPI_EXPORT extern TX_Tensor* TX_NewTensor(TX_DataType dtype, const int64_t* dims, int num_dims, void* data,
                                              size_t len, void (*deallocator)(void* data, size_t len, void* arg),
                                              void* deallocator_arg);
/* Allocates a tensor whose 64-byte-aligned, uninitialized memory (empty strings for TX_STRING)
 * the caller fills through TX_TensorData. `len` must equal the dtype size times the element
 * count; returns NULL on mismatch, a dtype the engine cannot store, or allocation failure.
 * Caller owns the result (TX_DeleteTensor). */
TX_CAPI_EXPORT extern TX_Tensor* TX_AllocateTensor(TX_DataType dtype, const int64_t* dims, int num_dims, size_t len);
/* Allocates a TX_STRING tensor of empty strings (shape `dims`) whose memory also holds
 * `storage_len` bytes of string storage, uninitialized and 8-byte aligned, and sets *storage to
 * their address (NULL when storage_len is 0). Elements made with TX_StringAssignView to bytes
 * inside that storage live as long as the tensor's memory, so the engine adopts them as they are
 * (see "String tensors"): n strings cost one allocation, not n. Returns NULL (and *storage NULL)
 * for a negative dim, NULL `dims` with num_dims > 0, NULL `storage`, or allocation failure.
 * Caller owns the result (TX_DeleteTensor). */
TX_CAPI_EXPORT extern TX_Tensor* TX_AllocateStringTensor(const int64_t* dims, int num_dims, size_t storage_len,
                                                         char** storage);
/* Drops the caller's reference; memory is released when no engine object still uses it. */
TX_CAPI_EXPORT extern void TX_DeleteTensor(TX_Tensor* t);
TX_CAPI_EXPORT extern TX_DataType TX_TensorType(const TX_Tensor* t);
TX_CAPI_EXPORT extern int TX_NumDims(const TX_Tensor* t);
/* Size of dimension `dim_index` (0 <= dim_index < TX_NumDims); -1 for another index. */
TX_CAPI_EXPORT extern int64_t TX_Dim(const TX_Tensor* t, int dim_index);
TX_CAPI_EXPORT extern size_t TX_TensorByteSize(const TX_Tensor* t);
/* Pointer to the tensor's bytes; owned by the tensor, valid until TX_DeleteTensor. */
TX_CAPI_EXPORT extern void* TX_TensorData(const TX_Tensor* t);
TX_CAPI_EXPORT extern int64_t TX_TensorElementCount(const TX_Tensor* t);
/* 1 when the data pointer is 64-byte aligned. */
TX_CAPI_EXPORT extern unsigned char TX_TensorIsAligned(const TX_Tensor* t);

/* ---------------------------------------------------------------------------------------------
 * Strings: the elements of TX_STRING tensors, with TensorFlow's TF_TString layout and
 * functions (tensorflow/c/tf_tstring.h; TF_StringCopy -> TX_StringCopy, ...). A TX_TString is 24
 * bytes: strings of up to 22 bytes are stored inline, longer ones in a heap block the string
 * owns, and a view points at bytes someone else owns. Strings are bytes (no encoding; NULs
 * allowed). Treat the struct as opaque; a zeroed TX_TString is the empty string. */

typedef struct TX_TString {
  union {
    uint8_t raw[24];
    uint64_t align_[3];
  } u;
} TX_TString;

/* The representation of a TX_TString, numbered as TensorFlow's TF_TString_Type. The engine never
 * produces TX_TSTR_OFFSET (a serialized form) and rejects it in tensors passed to it. */
typedef enum TX_TString_Type {
  TX_TSTR_SMALL = 0,
  TX_TSTR_LARGE = 1,
  TX_TSTR_OFFSET = 2,
  TX_TSTR_VIEW = 3,
} TX_TString_Type;

/* Makes `t` (caller memory) the empty string; call it before any other use of raw memory. */
TX_CAPI_EXPORT extern void TX_StringInit(TX_TString* t);
/* Sets `dst` (initialized) to a copy of `size` bytes at `src` (borrowed; may be NULL when size is
 * 0), freeing what it held. Returns 1, or 0 when out of memory (dst unchanged). TensorFlow's
 * TF_StringCopy returns nothing; callers that ignore the result port unchanged. */
TX_CAPI_EXPORT extern unsigned char TX_StringCopy(TX_TString* dst, const char* src, size_t size);
/* Makes `dst` (initialized) a view of `size` bytes at `src`, which the caller keeps alive and
 * unchanged while `dst` refers to them (see "String tensors" for what the engine copies). */
TX_CAPI_EXPORT extern void TX_StringAssignView(TX_TString* dst, const char* src, size_t size);
/* The string's bytes (NUL-terminated unless a view); owned by `t`, valid until `t` changes. */
TX_CAPI_EXPORT extern const char* TX_StringGetDataPointer(const TX_TString* t);
/* The representation of `t`. */
TX_CAPI_EXPORT extern TX_TString_Type TX_StringGetType(const TX_TString* t);
/* The length of `t` in bytes. */
TX_CAPI_EXPORT extern size_t TX_StringGetSize(const TX_TString* t);
/* Bytes `t` can hold without reallocating (its size for a view). */
TX_CAPI_EXPORT extern size_t TX_StringGetCapacity(const TX_TString* t);
/* Frees the heap block `t` owns (if any) and leaves the empty string; NULL is ignored. */
TX_CAPI_EXPORT extern void TX_StringDealloc(TX_TString* t);

/* ---------------------------------------------------------------------------------------------
 * Graphs and operations */

typedef struct TX_Graph TX_Graph;
typedef struct TX_Operation TX_Operation;
typedef struct TX_OperationDescription TX_OperationDescription;

/* Output `index` of `oper`. */
typedef struct TX_Output {
  TX_Operation* oper;
  int index;
} TX_Output;

/* Input `index` of `oper`. */
typedef struct TX_Input {
  TX_Operation* oper;
  int index;
} TX_Input;

/* Returns a new empty graph; caller owns it (TX_DeleteGraph). */
TX_CAPI_EXPORT extern TX_Graph* TX_NewGraph(void);
/* Drops the caller's reference; the graph lives on while sessions created on it exist.
 * TX_Operation pointers of the graph stay valid as long as the graph lives. Misuse, and what
 * happens:
 *  - an operation (or a TX_Output/TX_Input naming one) of another, live graph passed with this
 *    graph or its session: an error status (TX_INVALID_ARGUMENT, "belongs to another graph");
 *  - an operation used after its graph is gone (TX_DeleteGraph and every session on the graph
 *    deleted): undefined behaviour, as in TensorFlow. Operations are plain pointers into the
 *    graph; a check would need a global registry consulted on every call and could still be
 *    fooled by a new operation at a reused address, so none is made. Keep the graph (or a
 *    session on it) alive while its operations are in use. */
TX_CAPI_EXPORT extern void TX_DeleteGraph(TX_Graph* g);

/* Merges `dims` (borrowed; -1 = unknown dim; num_dims -1 = unknown rank) into the static shape of
 * `output`; TX_INVALID_ARGUMENT if incompatible with what is known. */
TX_CAPI_EXPORT extern void TX_GraphSetTensorShape(TX_Graph* graph, TX_Output output, const int64_t* dims,
                                                  const int num_dims, TX_Status* status);
/* Rank of the static shape of `output`, -1 if unknown. */
TX_CAPI_EXPORT extern int TX_GraphGetTensorNumDims(TX_Graph* graph, TX_Output output, TX_Status* status);
/* Writes `num_dims` dims (-1 = unknown) into caller-allocated `dims`; num_dims must equal the rank. */
TX_CAPI_EXPORT extern void TX_GraphGetTensorShape(TX_Graph* graph, TX_Output output, int64_t* dims, int num_dims,
                                                  TX_Status* status);

/* The operation named `oper_name` (borrowed), or NULL; the graph owns the result. */
TX_CAPI_EXPORT extern TX_Operation* TX_GraphOperationByName(TX_Graph* graph, const char* oper_name);
/* Iterates operations in creation order: start with *pos = 0; returns NULL at the end. */
TX_CAPI_EXPORT extern TX_Operation* TX_GraphNextOperation(TX_Graph* graph, size_t* pos);
/* Number of operations in the graph. */
TX_CAPI_EXPORT extern int TX_GraphNumOperations(TX_Graph* graph);
/* Returns `base` (borrowed) if no operation has that name, else the first free "base_1",
 * "base_2", ...; the result is reserved so later calls never return it again. Names compare
 * case-insensitively. The returned string is owned by the graph (valid while it lives). */
TX_CAPI_EXPORT extern const char* TX_GraphUniqueName(TX_Graph* graph, const char* base);
/* Serializes the graph as a GraphDef into `output_graph_def` (caller-owned, from TX_NewBuffer). */
TX_CAPI_EXPORT extern void TX_GraphToGraphDef(TX_Graph* graph, TX_Buffer* output_graph_def, TX_Status* status);
/* Writes the serialized OpDef of op type `op_name` (borrowed) into `output_op_def`. */
TX_CAPI_EXPORT extern void TX_GraphGetOpDef(TX_Graph* graph, const char* op_name, TX_Buffer* output_op_def,
                                            TX_Status* status);
/* Writes the graph's serialized VersionDef into `output_version_def`. */
TX_CAPI_EXPORT extern void TX_GraphVersions(TX_Graph* graph, TX_Buffer* output_version_def, TX_Status* status);

/* Starts building an operation of type `op_type` named `oper_name` (both borrowed, copied). The
 * graph must outlive the description. Exactly one of TX_FinishOperation or
 * TX_DeleteOperationDescription must then be called. */
TX_CAPI_EXPORT extern TX_OperationDescription* TX_NewOperation(TX_Graph* graph, const char* op_type,
                                                               const char* oper_name);
/* Abandons a description without adding anything to the graph. */
TX_CAPI_EXPORT extern void TX_DeleteOperationDescription(TX_OperationDescription* desc);
/* Requests a device, e.g. "/device:CPU:0" (copied). */
TX_CAPI_EXPORT extern void TX_SetDevice(TX_OperationDescription* desc, const char* device);
/* Adds the next single input argument. Calls must follow the OpDef's input order. */
TX_CAPI_EXPORT extern void TX_AddInput(TX_OperationDescription* desc, TX_Output input);
/* Adds the next list input argument (`inputs` borrowed), even for one element. */
TX_CAPI_EXPORT extern void TX_AddInputList(TX_OperationDescription* desc, const TX_Output* inputs, int num_inputs);
/* Adds a control input: this operation runs after `input`. */
TX_CAPI_EXPORT extern void TX_AddControlInput(TX_OperationDescription* desc, TX_Operation* input);

/* Attribute setters: values (and arrays, borrowed) are copied. */
TX_CAPI_EXPORT extern void TX_SetAttrString(TX_OperationDescription* desc, const char* attr_name, const void* value,
                                            size_t length);
TX_CAPI_EXPORT extern void TX_SetAttrStringList(TX_OperationDescription* desc, const char* attr_name,
                                                const void* const* values, const size_t* lengths, int num_values);
TX_CAPI_EXPORT extern void TX_SetAttrInt(TX_OperationDescription* desc, const char* attr_name, int64_t value);
TX_CAPI_EXPORT extern void TX_SetAttrIntList(TX_OperationDescription* desc, const char* attr_name,
                                             const int64_t* values, int num_values);
TX_CAPI_EXPORT extern void TX_SetAttrFloat(TX_OperationDescription* desc, const char* attr_name, float value);
TX_CAPI_EXPORT extern void TX_SetAttrFloatList(TX_OperationDescription* desc, const char* attr_name,
                                               const float* values, int num_values);
TX_CAPI_EXPORT extern void TX_SetAttrBool(TX_OperationDescription* desc, const char* attr_name, unsigned char value);
TX_CAPI_EXPORT extern void TX_SetAttrBoolList(TX_OperationDescription* desc, const char* attr_name,
                                              const unsigned char* values, int num_values);
TX_CAPI_EXPORT extern void TX_SetAttrType(TX_OperationDescription* desc, const char* attr_name, TX_DataType value);
TX_CAPI_EXPORT extern void TX_SetAttrTypeList(TX_OperationDescription* desc, const char* attr_name,
                                              const TX_DataType* values, int num_values);
/* `dims` has `num_dims` entries (-1 = unknown dim); num_dims -1 means unknown rank. */
TX_CAPI_EXPORT extern void TX_SetAttrShape(TX_OperationDescription* desc, const char* attr_name, const int64_t* dims,
                                           int num_dims);
/* dims[i] has num_dims[i] entries; num_dims[i] -1 means unknown rank. */
TX_CAPI_EXPORT extern void TX_SetAttrShapeList(TX_OperationDescription* desc, const char* attr_name,
                                               const int64_t* const* dims, const int* num_dims, int num_shapes);
/* Sets a tensor attr; the value is shared, not copied (tensors are immutable once built).
 * `value` stays owned by the caller. */
TX_CAPI_EXPORT extern void TX_SetAttrTensor(TX_OperationDescription* desc, const char* attr_name, TX_Tensor* value,
                                            TX_Status* status);
TX_CAPI_EXPORT extern void TX_SetAttrTensorList(TX_OperationDescription* desc, const char* attr_name,
                                                TX_Tensor* const* values, int num_values, TX_Status* status);
/* Sets a func attr to the function `value` (length bytes, no attrs). */
TX_CAPI_EXPORT extern void TX_SetAttrFuncName(TX_OperationDescription* desc, const char* attr_name, const char* value,
                                              size_t length);
/* Sets a list(func) attr: element i names the function `values[i]` (lengths[i] bytes, no attrs). */
TX_CAPI_EXPORT extern void TX_SetAttrFuncNameList(TX_OperationDescription* desc, const char* attr_name,
                                                  const void* const* values, const size_t* lengths, int num_values);
/* Sets any attr from a serialized AttrValue (`proto`, borrowed). */
TX_CAPI_EXPORT extern void TX_SetAttrValueProto(TX_OperationDescription* desc, const char* attr_name, const void* proto,
                                                size_t proto_len, TX_Status* status);

/* Validates the description against the op's OpDef (inferring type attrs from inputs and filling
 * defaults), runs shape inference and adds the operation. Always consumes `desc`. Returns the
 * operation (owned by the graph) or NULL with an error naming the operation. */
TX_CAPI_EXPORT extern TX_Operation* TX_FinishOperation(TX_OperationDescription* desc, TX_Status* status);

/* Operation introspection. Returned strings are owned by the graph. */
TX_CAPI_EXPORT extern const char* TX_OperationName(TX_Operation* oper);
TX_CAPI_EXPORT extern const char* TX_OperationOpType(TX_Operation* oper);
/* The requested device ("" if none). */
TX_CAPI_EXPORT extern const char* TX_OperationDevice(TX_Operation* oper);
TX_CAPI_EXPORT extern int TX_OperationNumOutputs(TX_Operation* oper);
TX_CAPI_EXPORT extern TX_DataType TX_OperationOutputType(TX_Output oper_out);
/* Number of tensors in output argument `arg_name`; error if no such argument. */
TX_CAPI_EXPORT extern int TX_OperationOutputListLength(TX_Operation* oper, const char* arg_name, TX_Status* status);
TX_CAPI_EXPORT extern int TX_OperationNumInputs(TX_Operation* oper);
TX_CAPI_EXPORT extern TX_DataType TX_OperationInputType(TX_Input oper_in);
/* Number of tensors in input argument `arg_name`; error if no such argument. */
TX_CAPI_EXPORT extern int TX_OperationInputListLength(TX_Operation* oper, const char* arg_name, TX_Status* status);
/* The producer of input `oper_in`. */
TX_CAPI_EXPORT extern TX_Output TX_OperationInput(TX_Input oper_in);
/* Writes all TX_OperationNumInputs producers into caller-allocated `inputs` (max_inputs entries). */
TX_CAPI_EXPORT extern void TX_OperationAllInputs(TX_Operation* oper, TX_Output* inputs, int max_inputs);
TX_CAPI_EXPORT extern int TX_OperationOutputNumConsumers(TX_Output oper_out);
/* Writes up to `max_consumers` consumers into caller-allocated `consumers`; returns the total. */
TX_CAPI_EXPORT extern int TX_OperationOutputConsumers(TX_Output oper_out, TX_Input* consumers, int max_consumers);
TX_CAPI_EXPORT extern int TX_OperationNumControlInputs(TX_Operation* oper);
/* Writes up to `max_control_inputs` into caller-allocated `control_inputs`; returns the total. */
TX_CAPI_EXPORT extern int TX_OperationGetControlInputs(TX_Operation* oper, TX_Operation** control_inputs,
                                                       int max_control_inputs);
TX_CAPI_EXPORT extern int TX_OperationNumControlOutputs(TX_Operation* oper);
/* Writes up to `max_control_outputs` into caller-allocated `control_outputs`; returns the total. */
TX_CAPI_EXPORT extern int TX_OperationGetControlOutputs(TX_Operation* oper, TX_Operation** control_outputs,
                                                        int max_control_outputs);
/* Serializes the operation as a NodeDef into `output_node_def`. */
TX_CAPI_EXPORT extern void TX_OperationToNodeDef(TX_Operation* oper, TX_Buffer* output_node_def, TX_Status* status);

/* Attribute kinds, numbered as TensorFlow's TF_AttrType. */
typedef enum TX_AttrType {
  TX_ATTR_STRING = 0,
  TX_ATTR_INT = 1,
  TX_ATTR_FLOAT = 2,
  TX_ATTR_BOOL = 3,
  TX_ATTR_TYPE = 4,
  TX_ATTR_SHAPE = 5,
  TX_ATTR_TENSOR = 6,
  TX_ATTR_PLACEHOLDER = 7,
  TX_ATTR_FUNC = 8,
} TX_AttrType;

/* Describes an attr's value so callers can size buffers. For lists, list_size is the number of
 * elements; total_size is the summed byte length of strings or of function names (func and
 * list(func) attrs), the summed dims of shapes (-1 for unknown ranks do not count), or -1 when not
 * applicable. */
typedef struct TX_AttrMetadata {
  unsigned char is_list;
  int64_t list_size;
  TX_AttrType type;
  int64_t total_size;
} TX_AttrMetadata;

TX_CAPI_EXPORT extern TX_AttrMetadata TX_OperationGetAttrMetadata(TX_Operation* oper, const char* attr_name,
                                                                  TX_Status* status);
/* Number of attrs on the operation, and the name of attr `i` (owned by the graph) in sorted order. */
TX_CAPI_EXPORT extern int TX_OperationGetNumAttrs(TX_Operation* oper);
TX_CAPI_EXPORT extern const char* TX_OperationGetAttrName(TX_Operation* oper, int i, TX_Status* status);
/* Typed getters. Array forms fill caller-allocated arrays of at most max_* elements. */
TX_CAPI_EXPORT extern void TX_OperationGetAttrString(TX_Operation* oper, const char* attr_name, void* value,
                                                     size_t max_length, TX_Status* status);
/* Fills values[i] with pointers into caller-allocated `storage` (storage_size bytes) and
 * lengths[i] with the string lengths. */
TX_CAPI_EXPORT extern void TX_OperationGetAttrStringList(TX_Operation* oper, const char* attr_name, void** values,
                                                         size_t* lengths, int max_values, void* storage,
                                                         size_t storage_size, TX_Status* status);
TX_CAPI_EXPORT extern void TX_OperationGetAttrInt(TX_Operation* oper, const char* attr_name, int64_t* value,
                                                  TX_Status* status);
TX_CAPI_EXPORT extern void TX_OperationGetAttrIntList(TX_Operation* oper, const char* attr_name, int64_t* values,
                                                      int max_values, TX_Status* status);
TX_CAPI_EXPORT extern void TX_OperationGetAttrFloat(TX_Operation* oper, const char* attr_name, float* value,
                                                    TX_Status* status);
TX_CAPI_EXPORT extern void TX_OperationGetAttrFloatList(TX_Operation* oper, const char* attr_name, float* values,
                                                        int max_values, TX_Status* status);
TX_CAPI_EXPORT extern void TX_OperationGetAttrBool(TX_Operation* oper, const char* attr_name, unsigned char* value,
                                                   TX_Status* status);
TX_CAPI_EXPORT extern void TX_OperationGetAttrBoolList(TX_Operation* oper, const char* attr_name, unsigned char* values,
                                                       int max_values, TX_Status* status);
TX_CAPI_EXPORT extern void TX_OperationGetAttrType(TX_Operation* oper, const char* attr_name, TX_DataType* value,
                                                   TX_Status* status);
TX_CAPI_EXPORT extern void TX_OperationGetAttrTypeList(TX_Operation* oper, const char* attr_name, TX_DataType* values,
                                                       int max_values, TX_Status* status);
/* Writes num_dims dims into `value`; num_dims must be the rank from the metadata's total_size. */
TX_CAPI_EXPORT extern void TX_OperationGetAttrShape(TX_Operation* oper, const char* attr_name, int64_t* value,
                                                    int num_dims, TX_Status* status);
/* Returns a copy of a tensor attr in *value (writing into it leaves the operation's value, and what
 * later runs compute from it, unchanged); caller owns it (TX_DeleteTensor). */
TX_CAPI_EXPORT extern void TX_OperationGetAttrTensor(TX_Operation* oper, const char* attr_name, TX_Tensor** value,
                                                     TX_Status* status);
/* Writes the serialized AttrValue into `output_attr_value` (any kind). */
TX_CAPI_EXPORT extern void TX_OperationGetAttrValueProto(TX_Operation* oper, const char* attr_name,
                                                         TX_Buffer* output_attr_value, TX_Status* status);

/* ---------------------------------------------------------------------------------------------
 * GraphDef import */

typedef struct TX_ImportGraphDefOptions TX_ImportGraphDefOptions;
typedef struct TX_ImportGraphDefResults TX_ImportGraphDefResults;

/* Caller owns the result (TX_DeleteImportGraphDefOptions). */
TX_CAPI_EXPORT extern TX_ImportGraphDefOptions* TX_NewImportGraphDefOptions(void);
TX_CAPI_EXPORT extern void TX_DeleteImportGraphDefOptions(TX_ImportGraphDefOptions* opts);
/* Imported names become "prefix/name". */
TX_CAPI_EXPORT extern void TX_ImportGraphDefOptionsSetPrefix(TX_ImportGraphDefOptions* opts, const char* prefix);
/* Device for imported nodes that request none. */
TX_CAPI_EXPORT extern void TX_ImportGraphDefOptionsSetDefaultDevice(TX_ImportGraphDefOptions* opts, const char* device);
/* Renames imported nodes whose names clash instead of failing. */
TX_CAPI_EXPORT extern void TX_ImportGraphDefOptionsSetUniquifyNames(TX_ImportGraphDefOptions* opts,
                                                                    unsigned char uniquify_names);
/* Makes the prefix itself unique in the graph. */
TX_CAPI_EXPORT extern void TX_ImportGraphDefOptionsSetUniquifyPrefix(TX_ImportGraphDefOptions* opts,
                                                                     unsigned char uniquify_prefix);
/* Imported uses of "src_name:src_index" read `dst` instead. */
TX_CAPI_EXPORT extern void TX_ImportGraphDefOptionsAddInputMapping(TX_ImportGraphDefOptions* opts, const char* src_name,
                                                                   int src_index, TX_Output dst);
/* Imported control inputs "^src_name" become control inputs on `dst`. */
TX_CAPI_EXPORT extern void TX_ImportGraphDefOptionsRemapControlDependency(TX_ImportGraphDefOptions* opts,
                                                                          const char* src_name, TX_Operation* dst);
/* Every imported operation without inputs from the import runs after `oper`. */
TX_CAPI_EXPORT extern void TX_ImportGraphDefOptionsAddControlDependency(TX_ImportGraphDefOptions* opts,
                                                                        TX_Operation* oper);
/* Requests output `index` of imported `oper_name` in the results. */
TX_CAPI_EXPORT extern void TX_ImportGraphDefOptionsAddReturnOutput(TX_ImportGraphDefOptions* opts,
                                                                   const char* oper_name, int index);
TX_CAPI_EXPORT extern int TX_ImportGraphDefOptionsNumReturnOutputs(const TX_ImportGraphDefOptions* opts);
/* Requests imported operation `oper_name` in the results. */
TX_CAPI_EXPORT extern void TX_ImportGraphDefOptionsAddReturnOperation(TX_ImportGraphDefOptions* opts,
                                                                      const char* oper_name);
TX_CAPI_EXPORT extern int TX_ImportGraphDefOptionsNumReturnOperations(const TX_ImportGraphDefOptions* opts);

/* Arrays are owned by `results` and valid until TX_DeleteImportGraphDefResults. */
TX_CAPI_EXPORT extern void TX_ImportGraphDefResultsReturnOutputs(TX_ImportGraphDefResults* results, int* num_outputs,
                                                                 TX_Output** outputs);
TX_CAPI_EXPORT extern void TX_ImportGraphDefResultsReturnOperations(TX_ImportGraphDefResults* results, int* num_opers,
                                                                    TX_Operation*** opers);
/* Input mappings that no imported node used: src_names[i] (owned by results) and src_indexes[i]. */
TX_CAPI_EXPORT extern void TX_ImportGraphDefResultsMissingUnusedInputMappings(TX_ImportGraphDefResults* results,
                                                                              int* num_missing, const char*** src_names,
                                                                              int** src_indexes);
TX_CAPI_EXPORT extern void TX_DeleteImportGraphDefResults(TX_ImportGraphDefResults* results);

/* Imports a serialized GraphDef (borrowed). All-or-nothing: on error the graph is unchanged.
 * Caller owns the results (TX_DeleteImportGraphDefResults); NULL on error. */
TX_CAPI_EXPORT extern TX_ImportGraphDefResults* TX_GraphImportGraphDefWithResults(
    TX_Graph* graph, const TX_Buffer* graph_def, const TX_ImportGraphDefOptions* options, TX_Status* status);
/* Same, without results. */
TX_CAPI_EXPORT extern void TX_GraphImportGraphDef(TX_Graph* graph, const TX_Buffer* graph_def,
                                                  const TX_ImportGraphDefOptions* options, TX_Status* status);

/* ---------------------------------------------------------------------------------------------
 * Gradients (symbolic differentiation in the engine; every op's gradient is registered in C++) */

/* What an x that no y depends on gets as its gradient. */
typedef enum TX_UnconnectedGradients {
  TX_UNCONNECTED_NONE = 0, /* dx[i].oper = NULL */
  TX_UNCONNECTED_ZERO = 1, /* zeros shaped like x[i] */
} TX_UnconnectedGradients;

/* Adds to `g` the operations computing the partial derivatives of sum(y) with respect to each x,
 * with TensorFlow's tf.gradients semantics: dx[i] (caller-allocated, nx entries) receives
 * d(y[0] + ... + y[ny-1])/d(x[i]), with gradients of fanned-out tensors summed. `dy` (may be
 * NULL) holds the initial gradients of the ys (same dtypes and shapes; NULL means ones).
 * `prefix` names the new operations' scope ("<prefix>/<op>_grad/..."); NULL means a fresh
 * "gradients", "gradients_1", ...; no existing operation may be named "<prefix>/...".
 * Unconnected xs get dx[i].oper = NULL. A y that is not floating-point or complex contributes
 * nothing (as in TensorFlow; its dy is not checked). Errors: ys/xs/dy from another graph,
 * dtype- or shape-mismatched dy of a differentiable y, an op on the path with no gradient (TX_NOT_FOUND, naming it);
 * on error dx is untouched and the graph keeps only unused extra operations. */
TX_CAPI_EXPORT extern void TX_AddGradients(TX_Graph* g, const char* prefix, const TX_Output* y, int ny,
                                           const TX_Output* x, int nx, const TX_Output* dy, TX_Output* dx,
                                           TX_Status* status);
/* TX_AddGradients with options: the producers of `stop_gradients` (nstop entries; may be NULL)
 * are treated as constants (gradients reach them but do not flow through them), and
 * `unconnected` (a TX_UnconnectedGradients value, passed as int so any value can be checked)
 * says what unconnected xs get. */
TX_CAPI_EXPORT extern void TX_AddGradientsWithOptions(TX_Graph* g, const char* prefix, const TX_Output* y, int ny,
                                                      const TX_Output* x, int nx, const TX_Output* dy,
                                                      const TX_Output* stop_gradients, int nstop, int unconnected,
                                                      TX_Output* dx, TX_Status* status);
/* 1 when op type `op_name` has a registered gradient, 0 when it is declared not differentiable,
 * -1 when it has neither (or is not registered). */
TX_CAPI_EXPORT extern int TX_OpGradientStatus(const char* op_name);

/* ---------------------------------------------------------------------------------------------
 * The op registry */

/* A serialized OpList of every registered op, sorted by name; caller owns it (TX_DeleteBuffer). */
TX_CAPI_EXPORT extern TX_Buffer* TX_GetAllOpList(void);

/* A serialized KernelList (TensorFlow's kernel_def.proto) of every registered kernel: its op, device
 * type and the type each constrained attr must have; caller owns it (TX_DeleteBuffer). NULL, with
 * `status` set, on failure. */
TX_CAPI_EXPORT extern TX_Buffer* TX_GetAllRegisteredKernels(TX_Status* status);
/* As TX_GetAllRegisteredKernels for the kernels of op type `name` only (an empty list when it has
 * none); `name` is borrowed. A NULL `name` gives NULL and TX_INVALID_ARGUMENT. */
TX_CAPI_EXPORT extern TX_Buffer* TX_GetRegisteredKernelsForOp(const char* name, TX_Status* status);

/* ---------------------------------------------------------------------------------------------
 * Sessions */

typedef struct TX_SessionOptions TX_SessionOptions;
typedef struct TX_Session TX_Session;

/* Caller owns the result (TX_DeleteSessionOptions). Defaults: one thread per core for each pool,
 * soft placement on. */
TX_CAPI_EXPORT extern TX_SessionOptions* TX_NewSessionOptions(void);
TX_CAPI_EXPORT extern void TX_DeleteSessionOptions(TX_SessionOptions* opts);
/* Sets options from a serialized ConfigProto (intra_op_parallelism_threads,
 * inter_op_parallelism_threads, allow_soft_placement and graph_options.rewrite_options.remapping
 * are read; other fields are ignored). */
TX_CAPI_EXPORT extern void TX_SetConfig(TX_SessionOptions* opts, const void* proto, size_t proto_len,
                                        TX_Status* status);
/* Threads for running independent operations concurrently (0 or negative = one per core). */
TX_CAPI_EXPORT extern void TX_SessionOptionsSetInterOpThreads(TX_SessionOptions* opts, int num_threads);
/* Threads one operation may use, BLAS included (0 or negative = one per core). */
TX_CAPI_EXPORT extern void TX_SessionOptionsSetIntraOpThreads(TX_SessionOptions* opts, int num_threads);

/* Creates a session on `graph` (borrowed; the session keeps it alive). Operations may still be
 * added to the graph afterwards and used in later runs. Caller owns the result. */
TX_CAPI_EXPORT extern TX_Session* TX_NewSession(TX_Graph* graph, const TX_SessionOptions* opts, TX_Status* status);
/* Runs the graph: `inputs[i]` is fed `input_values[i]` (borrowed; the caller keeps ownership),
 * `outputs` are fetched into caller-allocated `output_values` (each a new tensor the caller owns,
 * TX_DeleteTensor), and `target_opers` run for their side effects. Fetched tensors never share
 * memory with engine data that outlives the run (a Const's value) nor with each other, so the
 * caller may write into them; one may share memory with a fed tensor's caller-owned data (e.g.
 * an Identity of a placeholder). On error every output_values[i] is NULL.
 * `run_options` (may be NULL) is a serialized TensorFlow RunOptions: `timeout_in_ms` (field 2) > 0
 * makes the run fail with TX_DEADLINE_EXCEEDED once that many milliseconds have passed;
 * `trace_level` (field 1) other than NO_TRACE makes the run record each kernel's execution; other
 * fields are ignored. `run_metadata` may be NULL (not written); for a traced run it must be an
 * empty buffer (TX_NewBuffer), which receives a serialized RunMetadata whose step_stats hold one
 * NodeExecStats per kernel run (name, timeline label, start, duration, thread, outputs), also when
 * the run fails after starting (caller frees it with TX_DeleteBuffer).
 * Stopping runs: a run checks for cancellation before each kernel and at every iteration of a
 * loop (While) or function call, so a deadline, TX_CloseSession/TX_DeleteSession, or TX_Cancel
 * (TX_SessionRunWithCancellation) stops it at the next kernel or iteration, releasing the
 * intermediate tensors it held; a kernel already computing finishes first. A run stopped by a
 * deadline or TX_Cancel leaves the session usable. */
TX_CAPI_EXPORT extern void TX_SessionRun(TX_Session* session, const TX_Buffer* run_options, const TX_Output* inputs,
                                         TX_Tensor* const* input_values, int ninputs, const TX_Output* outputs,
                                         TX_Tensor** output_values, int noutputs,
                                         const TX_Operation* const* target_opers, int ntargets, TX_Buffer* run_metadata,
                                         TX_Status* status);

/* A cancellation flag for runs (sessions: TX_SessionRunWithCancellation; eager:
 * TXE_ExecuteWithCancellation). Thread-safe. */
typedef struct TX_Cancellation TX_Cancellation;
/* A new, uncancelled flag; caller owns it (TX_DeleteCancellation), NULL when out of memory. */
TX_CAPI_EXPORT extern TX_Cancellation* TX_NewCancellation(void);
/* Frees the flag; no run may still use it. NULL is ignored. */
TX_CAPI_EXPORT extern void TX_DeleteCancellation(TX_Cancellation* cancellation);
/* Cancels the runs using the flag: each fails with TX_CANCELLED ("the run was cancelled") at its
 * next kernel or loop iteration, and runs started with it later fail at once, until
 * TX_ResetCancellation. Lock-free and async-signal-safe (callable from a signal handler). */
TX_CAPI_EXPORT extern void TX_Cancel(TX_Cancellation* cancellation);
/* Makes a cancelled flag usable for new runs; call it only while no run uses the flag. */
TX_CAPI_EXPORT extern void TX_ResetCancellation(TX_Cancellation* cancellation);
/* 1 when the flag is cancelled (by TX_Cancel, a deadline, or the session closing during the run). */
TX_CAPI_EXPORT extern unsigned char TX_CancellationIsCancelled(const TX_Cancellation* cancellation);
/* TX_SessionRun that also stops when `cancellation` (borrowed; may be NULL) is cancelled. A
 * deadline or the session closing cancels the flag too (use one flag per run at a time). */
TX_CAPI_EXPORT extern void TX_SessionRunWithCancellation(TX_Session* session, const TX_Buffer* run_options,
                                                         TX_Cancellation* cancellation, const TX_Output* inputs,
                                                         TX_Tensor* const* input_values, int ninputs,
                                                         const TX_Output* outputs, TX_Tensor** output_values,
                                                         int noutputs, const TX_Operation* const* target_opers,
                                                         int ntargets, TX_Buffer* run_metadata, TX_Status* status);
/* Closes the session: runs in flight are cancelled (each fails with TX_CANCELLED, "the session was
 * closed during the run", at its next kernel or loop iteration) and this call returns once they
 * have ended; later runs fail with TX_CANCELLED ("session is closed"). Must not be called from a
 * kernel of a run of this session. */
TX_CAPI_EXPORT extern void TX_CloseSession(TX_Session* session, TX_Status* status);
/* Frees the session, closing it first if needed (so it cancels the runs in flight and waits for
 * them to end before freeing anything they use). Calling TX_SessionRun concurrently with, or after,
 * TX_DeleteSession is an error of the caller. */
TX_CAPI_EXPORT extern void TX_DeleteSession(TX_Session* session, TX_Status* status);

/* ---------------------------------------------------------------------------------------------
 * Checkpoints: tensors in the safetensors format (https://github.com/huggingface/safetensors),
 * readable by the reference `safetensors` package and its writers' files readable here. Dtypes:
 * TX_DOUBLE, TX_FLOAT, TX_HALF, TX_BFLOAT16, TX_COMPLEX64, TX_INT64/32/16/8, TX_UINT64/32/16/8,
 * TX_BOOL. */

typedef struct TX_Safetensors TX_Safetensors;

/* Writes tensors[i] (borrowed) under names[i] (borrowed, NUL-terminated, unique, non-empty, not
 * "__metadata__") and the metadata pairs meta_keys[j] -> meta_values[j] (borrowed; nmeta may be 0
 * with NULL arrays) to `path`, atomically: the data goes to a temporary file in the same
 * directory that is fsynced and renamed over `path`, so on error (or a crash) any previous file
 * at `path` is left intact. TX_INVALID_ARGUMENT for bad arguments (the file is not touched);
 * I/O errors name the file. */
TX_CAPI_EXPORT extern void TX_SaveSafetensors(const char* path, const char* const* names, TX_Tensor* const* tensors,
                                              int n, const char* const* meta_keys, const char* const* meta_values,
                                              int nmeta, TX_Status* status);
/* Opens `path` (borrowed) and reads and checks its header and layout; tensor data is read on
 * demand by TX_SafetensorsTensor. Corrupt files fail with TX_DATA_LOSS naming the file and the
 * problem, a missing file with TX_NOT_FOUND. The file stays open until TX_DeleteSafetensors.
 * Caller owns the result (TX_DeleteSafetensors); NULL on error. */
TX_CAPI_EXPORT extern TX_Safetensors* TX_LoadSafetensors(const char* path, TX_Status* status);
/* Closes the file and frees `st`; tensors already returned stay valid. */
TX_CAPI_EXPORT extern void TX_DeleteSafetensors(TX_Safetensors* st);
/* Number of tensors, in header order (0 for NULL). */
TX_CAPI_EXPORT extern int TX_SafetensorsNumTensors(const TX_Safetensors* st);
/* Name of tensor `i` (owned by `st`), or NULL when out of range; writes its byte length into
 * `*length` when `length` is non-NULL (names may contain NUL bytes). */
TX_CAPI_EXPORT extern const char* TX_SafetensorsName(const TX_Safetensors* st, int i, size_t* length);
/* Data type of tensor `i` without reading its data (0 when out of range). */
TX_CAPI_EXPORT extern TX_DataType TX_SafetensorsTensorType(const TX_Safetensors* st, int i);
/* Rank of tensor `i` without reading its data (-1 when out of range). */
TX_CAPI_EXPORT extern int TX_SafetensorsTensorNumDims(const TX_Safetensors* st, int i);
/* Size of dimension `dim_index` of tensor `i` (-1 when either is out of range). */
TX_CAPI_EXPORT extern int64_t TX_SafetensorsTensorDim(const TX_Safetensors* st, int i, int dim_index);
/* Reads tensor `i` from the file into a new tensor; caller owns it (TX_DeleteTensor). NULL on
 * error (TX_OUT_OF_RANGE for a bad index, TX_DATA_LOSS if the file shrank since it was opened).
 * Safe to call from several threads at once. */
TX_CAPI_EXPORT extern TX_Tensor* TX_SafetensorsTensor(TX_Safetensors* st, int i, TX_Status* status);
/* Number of "__metadata__" entries, sorted by key (0 for NULL). */
TX_CAPI_EXPORT extern int TX_SafetensorsNumMetadata(const TX_Safetensors* st);
/* Key and value of metadata entry `i` (owned by `st`), or NULL when out of range; byte lengths go
 * to `*length` when non-NULL. */
TX_CAPI_EXPORT extern const char* TX_SafetensorsMetadataKey(const TX_Safetensors* st, int i, size_t* length);
TX_CAPI_EXPORT extern const char* TX_SafetensorsMetadataValue(const TX_Safetensors* st, int i, size_t* length);

/* ---------------------------------------------------------------------------------------------
 * Functions: named graph bodies in a graph's function library, run as one operation by
 * PartitionedCall / StatefulPartitionedCall (attr "f" names the function; Tin/Tout its argument
 * and result types). Gradients of calls are generated functions added to the same library.
 * Serialized forms are TensorFlow's FunctionDef. */

typedef struct TX_Function TX_Function;
/* Reserved for future options; every function taking one requires NULL. */
typedef struct TX_FunctionOptions TX_FunctionOptions;

/* Builds a function from operations of `fn_body` (borrowed; not modified). `fn_name` (borrowed)
 * names it; with append_hash_to_fn_name = 1 the name becomes fn_name + "_" + a hash of the
 * definition. The body is the `num_opers` operations in `opers` (borrowed), or with num_opers -1
 * (opers ignored) every operation between the inputs and the outputs (reached from the outputs
 * through data and control edges without crossing an input); TensorFlow's TF_GraphToFunction
 * takes every operation of the graph in that case. `inputs` (ninputs, borrowed) become the
 * input arguments, named after their producing operations (lowercased, other characters '_',
 * made unique); `outputs` (noutputs, borrowed) the results, named `output_names[i]` (borrowed;
 * NULL: after the producing operations). An output that is also an input returns that input.
 * `description` (borrowed, may be NULL) is recorded in the signature. `opts` must be NULL.
 * Errors: repeated inputs, tensors of another graph, a body operation reading a tensor that is
 * neither an input nor computed in the body, a Placeholder reached that is not an input.
 * Caller owns the result (TX_DeleteFunction); NULL on error. */
TX_CAPI_EXPORT extern TX_Function* TX_GraphToFunction(const TX_Graph* fn_body, const char* fn_name,
                                                      unsigned char append_hash_to_fn_name, int num_opers,
                                                      const TX_Operation* const* opers, int ninputs,
                                                      const TX_Output* inputs, int noutputs, const TX_Output* outputs,
                                                      const char* const* output_names, const TX_FunctionOptions* opts,
                                                      const char* description, TX_Status* status);
/* TX_GraphToFunction plus control outputs: `control_outputs` (ncontrol_outputs operations of the
 * body, borrowed) run whenever the function runs, even if no result depends on them; they are
 * named `control_output_names[i]` (borrowed; NULL: the operations' names). */
TX_CAPI_EXPORT extern TX_Function* TX_GraphToFunctionWithControlOutputs(
    const TX_Graph* fn_body, const char* fn_name, unsigned char append_hash_to_fn_name, int num_opers,
    const TX_Operation* const* opers, int ninputs, const TX_Output* inputs, int noutputs, const TX_Output* outputs,
    const char* const* output_names, int ncontrol_outputs, const TX_Operation* const* control_outputs,
    const char* const* control_output_names, const TX_FunctionOptions* opts, const char* description,
    TX_Status* status);
/* The function's name; the string is owned by `func` and lives as long as it. */
TX_CAPI_EXPORT extern const char* TX_FunctionName(TX_Function* func);
/* Writes the serialized FunctionDef into `output_func_def` (caller-owned, empty, from
 * TX_NewBuffer). Map entries are sorted by key, as TensorFlow's deterministic serialization. */
TX_CAPI_EXPORT extern void TX_FunctionToFunctionDef(TX_Function* func, TX_Buffer* output_func_def, TX_Status* status);
/* Parses and validates a serialized FunctionDef (`proto`, `proto_len` bytes, borrowed). Caller
 * owns the result (TX_DeleteFunction); NULL on error. */
TX_CAPI_EXPORT extern TX_Function* TX_FunctionImportFunctionDef(const void* proto, size_t proto_len, TX_Status* status);
/* Frees `func` (NULL is allowed); graphs it was copied into keep their copies. */
TX_CAPI_EXPORT extern void TX_DeleteFunction(TX_Function* func);
/* Adds copies of `func` and, when `grad` is non-NULL, of `grad` to the library of `g`, and records
 * `grad` as the gradient of `func` (gradients of calls of `func` then call `grad` with func's
 * inputs and one gradient per output, and take its results as the input gradients). Both stay
 * owned by the caller. Adding a function whose name is taken by a different definition is
 * TX_INVALID_ARGUMENT; an identical one is a no-op. */
TX_CAPI_EXPORT extern void TX_GraphCopyFunction(TX_Graph* g, const TX_Function* func, const TX_Function* grad,
                                                TX_Status* status);
/* Number of functions in the library of `g`. */
TX_CAPI_EXPORT extern int TX_GraphNumFunctions(TX_Graph* g);
/* Stores up to `max_func` of the graph's functions (sorted by name) into caller-allocated `funcs`
 * and returns how many it stored; each stored TX_Function is new and owned by the caller
 * (TX_DeleteFunction). */
TX_CAPI_EXPORT extern int TX_GraphGetFunctions(TX_Graph* g, TX_Function** funcs, int max_func, TX_Status* status);
/* Copies the name of the function a func-valued attr (set with TX_SetAttrFuncName or imported)
 * names into caller-allocated `value` (at most max_length bytes, no terminating NUL); the
 * metadata's total_size is the name's length. */
TX_CAPI_EXPORT extern void TX_OperationGetAttrFuncName(TX_Operation* oper, const char* attr_name, void* value,
                                                       size_t max_length, TX_Status* status);
/* Reads a list(func) attr like TX_OperationGetAttrStringList: values[i] points at the name of
 * function i, copied into caller-allocated `storage` (storage_size bytes, at least the metadata's
 * total_size), lengths[i] is its length; at most max_values names are read. */
TX_CAPI_EXPORT extern void TX_OperationGetAttrFuncNameList(TX_Operation* oper, const char* attr_name, void** values,
                                                           size_t* lengths, int max_values, void* storage,
                                                           size_t storage_size, TX_Status* status);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TENSORFLUX_C_C_API_H_ */
