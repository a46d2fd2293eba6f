package tf

// #include <stdlib.h>
// #include "tensorflux/c/c_api.h"
import "C"

import (
	"runtime"
	"unsafe"
)

// AddGradients adds operations computing the partial derivatives of sum(y) with respect to
// each x (tf.gradients semantics), with dx the initial gradients of y (nil: ones). The new
// operations are named "<prefix>/..." (prefix "" picks a fresh "gradients", "gradients_1", ...).
// An x that no y depends on gets an Output with a nil Op.
func (g *Graph) AddGradients(prefix string, y []Output, x []Output, dx []Output) ([]Output, error) {
	if err := g.check(); err != nil {
		return nil, err
	}
	if dx != nil && len(dx) != len(y) {
		return nil, errorf(InvalidArgument, "%d initial gradients for %d ys", len(dx), len(y))
	}
	cy, err := g.cOutputs(y)
	if err != nil {
		return nil, errorf(InvalidArgument, "y: %s", errorMessage(err))
	}
	cx, err := g.cOutputs(x)
	if err != nil {
		return nil, errorf(InvalidArgument, "x: %s", errorMessage(err))
	}
	var cdy []C.TX_Output
	if dx != nil {
		if cdy, err = g.cOutputs(dx); err != nil {
			return nil, errorf(InvalidArgument, "dx: %s", errorMessage(err))
		}
	}
	var cprefix *C.char
	if prefix != "" {
		cprefix = C.CString(prefix)
		defer C.free(unsafe.Pointer(cprefix))
	}
	out := make([]C.TX_Output, len(x))
	s := newStatus()
	defer s.done()
	C.TX_AddGradients(g.c, cprefix, (*C.TX_Output)(firstOrNil(cy)), C.int(len(cy)), (*C.TX_Output)(firstOrNil(cx)),
		C.int(len(cx)), (*C.TX_Output)(firstOrNil(cdy)), (*C.TX_Output)(firstOrNil(out)), s.c)
	runtime.KeepAlive(g)
	if err := s.err(); err != nil {
		return nil, err
	}
	grads := make([]Output, len(out))
	for i, o := range out {
		if o.oper != nil {
			grads[i] = Output{Op: &Operation{c: o.oper, g: g}, Index: int(o.index)}
		}
	}
	return grads, nil
}

// OpList returns the serialized OpList of every registered op, sorted by name.
func OpList() []byte {
	buf := C.TX_GetAllOpList()
	defer C.TX_DeleteBuffer(buf)
	return bufferBytes(buf)
}
