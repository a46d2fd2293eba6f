/* Tensorflux host-callback C API: functions of the embedding program, registered under a string
 * token, that the PyFunc, PyFuncStateless and EagerPyFunc ops call with their input tensors (in
 * graph mode, eagerly and inside functions). TensorFlow keeps this mechanism private to Python;
 * here any front end can use it (Python's tx.py_function / tx.numpy_function / tx.print use it).
 * The rules at the top of c_api.h hold here too.
 *
 * Threading: a callback may be called from any engine thread, and concurrently when several ops
 * or runs use its token. A front end with a global lock (Python's GIL) takes it inside the callback
 * and must not hold it across calls that may run a callback (TX_SessionRun, TXE_Execute).
 */
#ifndef TENSORFLUX_C_C_API_CALLBACK_H_
#define TENSORFLUX_C_C_API_CALLBACK_H_

#include "tensorflux/c/c_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A host callback. `inputs` (num_inputs tensors) are borrowed, read-only and valid only during
 * the call. `outputs` has num_outputs slots, all NULL on entry: the callback stores a tensor it
 * creates (TX_NewTensor / TX_AllocateTensor) in each, and the engine takes ownership of every
 * non-NULL slot, even when the callback fails. A failure is reported by setting `status` (left
 * TX_OK on entry); its code and message become the run's error. */
typedef void (*TX_HostCallbackFn)(void* context, TX_Tensor* const* inputs, int num_inputs, TX_Tensor** outputs,
                                  int num_outputs, TX_Status* status);

/* Registers `fn` with `context` under `token`. `deleter` (may be NULL) is called with `context`
 * once the token is unregistered and no call of it is running. On failure (an empty token, a NULL
 * fn, or a token already registered: TX_ALREADY_EXISTS) `status` is set and nothing is
 * registered; `deleter` is then not called. */
TX_CAPI_EXPORT extern void TX_RegisterHostCallback(const char* token, TX_HostCallbackFn fn, void* context,
                                                   void (*deleter)(void* context), TX_Status* status);

/* Unregisters `token`; returns 1 when it was registered, 0 otherwise. Ops that name it fail at run
 * time afterwards. */
TX_CAPI_EXPORT extern unsigned char TX_UnregisterHostCallback(const char* token);

/* Number of registered host callbacks (for leak checks). */
TX_CAPI_EXPORT extern int TX_NumHostCallbacks(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TENSORFLUX_C_C_API_CALLBACK_H_ */
