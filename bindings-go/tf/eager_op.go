package tf

// #include <stdlib.h>
// #include "tensorflux/c/c_api_eager.h"
import "C"

import (
	"runtime"
	"sort"
	"strings"
	"unsafe"
)

// EagerInput is one input argument of an eager op: a *TensorHandle, or a TensorHandleList for a
// list argument (e.g. the "values" of ConcatV2 or the "inputs" of AddN).
type EagerInput interface {
	isEagerInput()
}

func (*TensorHandle) isEagerInput() {}

// TensorHandleList is a list argument of an eager op.
type TensorHandleList []*TensorHandle

func (TensorHandleList) isEagerInput() {}

// EagerOpSpec describes an op to execute on a Context.
type EagerOpSpec struct {
	// Type is the op type (or the name of a function in the context's library).
	Type string
	// Input has one entry per input argument of the OpDef, in order.
	Input []EagerInput
	// Attrs takes the Go types OpSpec.Attrs takes; *Function values are added to the context.
	Attrs map[string]interface{}
	// Device requests a device; empty means placed by the inputs.
	Device string
}

// Execute runs op opType with each handle of inputs as one single-tensor input argument (use
// ExecuteOp for list arguments) and returns the outputs, which the caller owns.
func (ctx *Context) Execute(opType string, inputs []*TensorHandle, attrs map[string]interface{}) ([]*TensorHandle, error) {
	in := make([]EagerInput, len(inputs))
	for i, h := range inputs {
		in[i] = h
	}
	return ctx.ExecuteOp(EagerOpSpec{Type: opType, Input: in, Attrs: attrs})
}

// ExecuteOp runs the op spec describes and returns its outputs, which the caller owns. Errors end
// with " [Op:<type>]" and leave the context usable.
func (ctx *Context) ExecuteOp(spec EagerOpSpec) ([]*TensorHandle, error) {
	if err := ctx.acquire(); err != nil {
		return nil, err
	}
	defer ctx.release()
	s := newStatus()
	defer s.done()
	ctype := C.CString(spec.Type)
	defer C.free(unsafe.Pointer(ctype))
	op := C.TXE_NewOp(ctx.c, ctype, s.c)
	if err := s.err(); err != nil {
		return nil, err
	}
	defer C.TXE_DeleteOp(op)
	if spec.Device != "" {
		cdev := C.CString(spec.Device)
		C.TXE_OpSetDevice(op, cdev, s.c)
		C.free(unsafe.Pointer(cdev))
		if err := s.err(); err != nil {
			return nil, err
		}
	}
	for i, in := range spec.Input {
		if err := addEagerInput(op, in, s); err != nil {
			return nil, errorf(InvalidArgument, "%s input %d: %s", spec.Type, i, errorMessage(err))
		}
	}
	names := make([]string, 0, len(spec.Attrs))
	for k := range spec.Attrs {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if err := setAttr(eagerSink{ctx, op}, k, spec.Attrs[k]); err != nil {
			return nil, errorf(InvalidArgument, "%s attr '%s': %s", spec.Type, k, errorMessage(err))
		}
	}
	runtime.KeepAlive(spec)
	for capacity := 16; ; capacity *= 64 {
		retvals := make([]*C.TXE_TensorHandle, capacity)
		n := C.int(capacity)
		C.TXE_Execute(op, &retvals[0], &n, s.c)
		err := s.err()
		if e, ok := err.(*Error); ok && e.Code == InvalidArgument && capacity < 1<<20 &&
			strings.Contains(e.Message, "but retvals has room for") {
			continue // reported before the kernel runs: retry with more room
		}
		if err != nil {
			return nil, err
		}
		return ctx.wrapHandles(retvals[:n]), nil
	}
}

// wrapHandles wraps caller-owned C handles, taking a context reference for each.
func (ctx *Context) wrapHandles(cs []*C.TXE_TensorHandle) []*TensorHandle {
	ctx.mu.Lock()
	ctx.refs += len(cs)
	ctx.mu.Unlock()
	out := make([]*TensorHandle, len(cs))
	for i, c := range cs {
		out[i] = newHandleFromC(ctx, c)
	}
	return out
}

// addEagerInput adds one input argument to op.
func addEagerInput(op *C.TXE_Op, in EagerInput, s status) error {
	switch in := in.(type) {
	case *TensorHandle:
		if err := in.check(); err != nil {
			return err
		}
		C.TXE_OpAddInput(op, in.c, s.c)
		runtime.KeepAlive(in)
	case TensorHandleList:
		hs := make([]*C.TXE_TensorHandle, len(in))
		for i, h := range in {
			if err := h.check(); err != nil {
				return errorf(InvalidArgument, "element %d: %s", i, errorMessage(err))
			}
			hs[i] = h.c
		}
		C.TXE_OpAddInputList(op, (**C.TXE_TensorHandle)(firstOrNil(hs)), C.int(len(hs)), s.c)
		runtime.KeepAlive(in)
	default:
		return errorf(InvalidArgument, "unsupported input type %T", in)
	}
	return s.err()
}
