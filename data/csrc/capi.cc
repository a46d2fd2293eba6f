// Resolving the C API table from the loaded libtensorflux (Note [Resolved C API]).
#include "capi.h"

#include <dlfcn.h>

namespace txd {

CApi api;

bool LoadCApi(const char* path, std::string* error) {
  // RTLD_NOLOAD: the library `import tensorflux` loaded, never a second copy of the engine.
  void* lib = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
  if (lib == nullptr) lib = dlopen(path, RTLD_NOW);
  if (lib == nullptr) {
    const char* why = dlerror();
    *error = std::string("cannot load ") + path + ": " + (why ? why : "unknown error");
    return false;
  }
  CApi table;
#define TXD_RESOLVE(f)                                        \
  table.f = reinterpret_cast<decltype(&::f)>(dlsym(lib, #f)); \
  if (table.f == nullptr) {                                   \
    *error = std::string(path) +                              \
        " has no " #f                                         \
        ": the installed tensorflux is older than this "      \
        "tensorflux-data's engine needs";                     \
    return false;                                             \
  }
  TXD_CAPI_FUNCTIONS(TXD_RESOLVE)
#undef TXD_RESOLVE
  api = table;
  return true;
}

}  // namespace txd
