package tf

// #include <stdlib.h>
// #include "tensorflux/c/c_api.h"
import "C"

import (
	"runtime"
	"sync"
	"unsafe"
)

// Function is a named graph body (a TX_Function, TensorFlow's FunctionDef) that call ops
// (PartitionedCall, While, If, ...) run; OpSpec attrs of type *Function copy it into the graph.
type Function struct {
	c *C.TX_Function
	// The eager contexts an op's attr added it to (Note [Context function lifetime]).
	mu       sync.Mutex
	contexts map[*Context]struct{}
}

// newFunctionFromC wraps a caller-owned TX_Function, releasing it when collected.
func newFunctionFromC(c *C.TX_Function) *Function {
	f := &Function{c: c}
	runtime.SetFinalizer(f, (*Function).Delete)
	return f
}

// NewFunction makes a function named `name` of the operations of body between inputs and
// outputs (TX_GraphToFunctionWithControlOutputs): inputs (outputs of Placeholders of body)
// become the arguments, outputs the results, named outputNames (nil: after their operations);
// controlOutputs run whenever the function runs. description may be empty.
func NewFunction(body *Graph, name string, inputs, outputs []Output, outputNames []string,
	controlOutputs []*Operation, description string) (*Function, error) {
	if err := body.check(); err != nil {
		return nil, err
	}
	if outputNames != nil && len(outputNames) != len(outputs) {
		return nil, errorf(InvalidArgument, "function '%s': %d output names for %d outputs", name, len(outputNames),
			len(outputs))
	}
	cin, err := body.cOutputs(inputs)
	if err != nil {
		return nil, errorf(InvalidArgument, "function '%s' input: %s", name, errorMessage(err))
	}
	cout, err := body.cOutputs(outputs)
	if err != nil {
		return nil, errorf(InvalidArgument, "function '%s' output: %s", name, errorMessage(err))
	}
	cctl := make([]*C.TX_Operation, len(controlOutputs))
	for i, op := range controlOutputs {
		if err := body.owns(op); err != nil {
			return nil, errorf(InvalidArgument, "function '%s' control output: %s", name, errorMessage(err))
		}
		cctl[i] = op.c
	}
	var cnames **C.char
	if len(outputNames) > 0 {
		var free func()
		cnames, free = cStringArray(outputNames)
		defer free()
	}
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	var cdesc *C.char
	if description != "" {
		cdesc = C.CString(description)
		defer C.free(unsafe.Pointer(cdesc))
	}
	s := newStatus()
	defer s.done()
	c := C.TX_GraphToFunctionWithControlOutputs(body.c, cname, 0, -1, nil,
		C.int(len(cin)), (*C.TX_Output)(firstOrNil(cin)), C.int(len(cout)), (*C.TX_Output)(firstOrNil(cout)), cnames,
		C.int(len(cctl)), (**C.TX_Operation)(firstOrNil(cctl)), nil, nil, cdesc, s.c)
	runtime.KeepAlive(body)
	if err := s.err(); err != nil {
		return nil, err
	}
	return newFunctionFromC(c), nil
}

// ImportFunction parses and validates a serialized FunctionDef.
func ImportFunction(def []byte) (*Function, error) {
	s := newStatus()
	defer s.done()
	c := C.TX_FunctionImportFunctionDef(firstOrNil(def), C.size_t(len(def)), s.c)
	if err := s.err(); err != nil {
		return nil, err
	}
	return newFunctionFromC(c), nil
}

// Name is the function's name ("" for a deleted function).
func (f *Function) Name() string {
	if f == nil || f.c == nil {
		return ""
	}
	defer runtime.KeepAlive(f)
	return C.GoString(C.TX_FunctionName(f.c))
}

// FunctionDef returns the function serialized as a FunctionDef.
func (f *Function) FunctionDef() ([]byte, error) {
	if f == nil || f.c == nil {
		return nil, errorf(FailedPrecondition, "the function was deleted")
	}
	buf := C.TX_NewBuffer()
	defer C.TX_DeleteBuffer(buf)
	s := newStatus()
	defer s.done()
	C.TX_FunctionToFunctionDef(f.c, buf, s.c)
	runtime.KeepAlive(f)
	if err := s.err(); err != nil {
		return nil, err
	}
	return bufferBytes(buf), nil
}

// Delete releases the function now (a finalizer does it otherwise). Graphs it was copied into,
// and contexts it was added to with AddFunction, keep their copies; contexts where only ops'
// attrs used it remove it once no other Function of that name uses it (Note [Context function
// lifetime]).
func (f *Function) Delete() {
	if f == nil || f.c == nil {
		return
	}
	f.mu.Lock()
	name := C.GoString(C.TX_FunctionName(f.c))
	contexts := f.contexts
	f.contexts = nil
	f.mu.Unlock()
	for ctx := range contexts {
		ctx.dropFunction(name)
	}
	C.TX_DeleteFunction(f.c)
	f.c = nil
	runtime.SetFinalizer(f, nil)
}

// cOutputs converts outputs of g to C structs, checking each belongs to g.
func (g *Graph) cOutputs(outs []Output) ([]C.TX_Output, error) {
	c := make([]C.TX_Output, len(outs))
	for i, o := range outs {
		if err := g.owns(o.Op); err != nil {
			return nil, err
		}
		if !o.valid() {
			return nil, errorf(InvalidArgument, "'%s' has no output %d", o.Op.Name(), o.Index)
		}
		c[i] = o.c()
	}
	return c, nil
}
