// Package tf binds the Tensorflux engine for Go through its public C API
// (tensorflux/c/c_api.h and c_api_eager.h) with cgo: tensors, graphs, sessions, functions,
// gradients, eager execution with gradient tapes, and safetensors checkpoints. Its shape follows
// TensorFlow's Go package, so code written against that ports by changing the import path.
//
// Build flags come from the installed Python package (docs/go.md):
//
//	export CGO_CFLAGS="$(python -m tensorflux.sysconfig --cgo-cflags)"
//	export CGO_LDFLAGS="$(python -m tensorflux.sysconfig --cgo-ldflags)"
//
// Every C object is released by a finalizer; Delete and Close release it at once.
package tf

// #cgo LDFLAGS: -ltensorflux
// #include "tensorflux/c/c_api.h"
import "C"

// Version is the engine's version string, e.g. "0.1.0".
func Version() string { return C.GoString(C.TX_Version()) }
