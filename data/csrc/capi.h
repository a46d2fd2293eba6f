// The Tensorflux C API functions the pipeline engine calls, resolved at run time (Note [Resolved C API]).
#ifndef TENSORFLUX_DATA_CAPI_H_
#define TENSORFLUX_DATA_CAPI_H_

#include <string>

#include "tensorflux/c/c_api.h"
#include "tensorflux/c/c_api_eager.h"

// Note [Resolved C API]
// The engine links nothing from Tensorflux. The Python package hands it the path of the
// libtensorflux.so that `import tensorflux` loaded (tensorflux.sysconfig.get_lib()), and the engine
// looks up the public C API functions it uses in that already-loaded library, with their
// declared types (decltype of the public prototypes). So the add-on builds from the public headers
// alone, in an isolated build that has no core installed, and runs on the very engine the Python
// process uses; a core without one of these functions fails at load with the function's name.
// clang-format off: one function per line
#define TXD_CAPI_FUNCTIONS(X) \
  X(TX_NewStatus) \
  X(TX_DeleteStatus) \
  X(TX_GetCode) \
  X(TX_Message) \
  X(TX_NewTensor) \
  X(TX_AllocateTensor) \
  X(TX_AllocateStringTensor) \
  X(TX_DeleteTensor) \
  X(TX_TensorType) \
  X(TX_NumDims) \
  X(TX_Dim) \
  X(TX_TensorByteSize) \
  X(TX_TensorData) \
  X(TX_DataTypeSize) \
  X(TX_StringCopy) \
  X(TX_StringAssignView) \
  X(TX_StringGetDataPointer) \
  X(TX_StringGetSize) \
  X(TXE_NewContextOptions) \
  X(TXE_DeleteContextOptions) \
  X(TXE_NewContext) \
  X(TXE_ContextAddFunctionDef) \
  X(TXE_ContextHasFunction) \
  X(TXE_ContextRemoveFunction) \
  X(TXE_NewTensorHandle) \
  X(TXE_DeleteTensorHandle) \
  X(TXE_TensorHandleResolve) \
  X(TXE_NewOp) \
  X(TXE_DeleteOp) \
  X(TXE_OpReset) \
  X(TXE_OpClearInputs) \
  X(TXE_OpAddInputList) \
  X(TXE_OpSetAttrFunctionName) \
  X(TXE_OpSetAttrTypeList) \
  X(TXE_Execute)
// clang-format on

namespace txd {

// Pointers to the C API functions of TXD_CAPI_FUNCTIONS, named as the functions.
struct CApi {
#define TXD_DECLARE(f) decltype(&::f) f = nullptr;
  TXD_CAPI_FUNCTIONS(TXD_DECLARE)
#undef TXD_DECLARE
};

// The table, valid once LoadCApi has succeeded.
extern CApi api;

// Fills `api` from the loaded library at `path`; false with `*error` set when the library or a
// function is missing.
bool LoadCApi(const char* path, std::string* error);

}  // namespace txd

#endif  // TENSORFLUX_DATA_CAPI_H_
