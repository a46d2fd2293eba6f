package tf

// #include <stdlib.h>
// #include "tensorflux/c/c_api_plugin.h"
import "C"

import "unsafe"

// LibraryHandler is a loaded plugin: a shared library built against c_api_plugin.h whose ops,
// kernels and gradients joined the engine's registries (TensorFlow's tf.LibraryHandler).
type LibraryHandler struct {
	opList []byte
}

// LoadLibrary loads the plugin at path (TX_LoadLibrary). Its ops then work in every graph,
// session and eager context of the process, through OpSpec and Scope.AddOperation like built-in
// ops; its gradients serve AddGradients and tapes. A file that is not a plugin, a plugin built for
// a newer plugin ABI than the engine serves, or one registering a name that exists is an *Error
// and registers nothing. Loading a file again returns its ops without initializing it twice.
func LoadLibrary(path string) (*LibraryHandler, error) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	s := newStatus()
	defer s.done()
	lib := C.TX_LoadLibrary(cpath, s.c)
	if err := s.err(); err != nil {
		return nil, err
	}
	defer C.TX_DeleteLibraryHandle(lib)
	buf := C.TX_GetOpList(lib)
	return &LibraryHandler{opList: C.GoBytes(buf.data, C.int(buf.length))}, nil
}

// OpList returns the serialized OpList (TensorFlow's OpList message) of the ops the library
// registered.
func (l *LibraryHandler) OpList() []byte { return l.opList }

// PluginABIVersion returns the plugin ABI version the engine serves, as major<<16 | minor.
func PluginABIVersion() uint32 { return uint32(C.TX_GetPluginAbiVersion()) }
