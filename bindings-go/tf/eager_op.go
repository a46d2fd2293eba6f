package tf

// #include <stdlib.h>
// #include "tensorflux/c/c_api_eager.h"
//
// /* Adds n single-handle input arguments in one cgo call; returns the failing index, or -1. */
// static int txgo_add_inputs(TXE_Op* op, TXE_TensorHandle** hs, int n, TX_Status* s) {
//   for (int i = 0; i < n; ++i) {
//     TXE_OpAddInput(op, hs[i], s);
//     if (TX_GetCode(s) != TX_OK) return i;
//   }
//   return -1;
// }
//
// /* TXE_Execute and its status code in one cgo call. */
// static TX_Code txgo_execute(TXE_Op* op, TXE_TensorHandle** out, int* n, TX_Status* s) {
//   TXE_Execute(op, out, n, s);
//   return TX_GetCode(s);
// }
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
	// Type is the op type; functions run through call ops (StatefulPartitionedCall with the
	// *Function as its "f" attr), not by name.
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
	po, err := ctx.takeOp(spec.Type)
	if err != nil {
		return nil, err
	}
	var outputs []*TensorHandle
	defer func() { ctx.putOp(spec.Type, po, len(outputs)) }()
	op, s := po.op, po.s
	if spec.Device != "" {
		cdev := C.CString(spec.Device)
		C.TXE_OpSetDevice(op, cdev, s.c)
		C.free(unsafe.Pointer(cdev))
		if err := s.err(); err != nil {
			return nil, err
		}
	}
	if err := addEagerInputs(op, spec.Input, s); err != nil {
		return nil, errorf(InvalidArgument, "%s %s", spec.Type, errorMessage(err))
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
		var err error
		if C.txgo_execute(op, &retvals[0], &n, s.c) != C.TX_OK {
			err = s.err()
		}
		if e, ok := err.(*Error); ok && e.Code == InvalidArgument && capacity < 1<<20 &&
			strings.Contains(e.Message, "but retvals has room for") {
			continue // reported before the kernel runs: retry with more room
		}
		if err != nil {
			return nil, err
		}
		outputs = ctx.newHandles(retvals[:n]) // putOp takes their context references
		return outputs, nil
	}
}

// takeOp takes a context reference (an error when the context is closed) and returns an op of
// type opType with no inputs or attrs and a status to use with it: an idle pair reset, or a new
// one. One lock covers both, as putOp's does: this is the per-op path (BenchmarkEagerTinyAdd).
func (ctx *Context) takeOp(opType string) (pooledOp, error) {
	ctx.mu.Lock()
	if ctx.closed || ctx.c == nil {
		ctx.mu.Unlock()
		return pooledOp{}, errorf(FailedPrecondition, "the eager context is closed")
	}
	ctx.refs++
	if ctx.ops == nil {
		ctx.ops = map[string]*opPool{}
	}
	p := ctx.ops[opType]
	if p == nil {
		p = &opPool{name: C.CString(opType)}
		ctx.ops[opType] = p
	}
	var po pooledOp
	if n := len(p.idle); n > 0 {
		po, p.idle = p.idle[n-1], p.idle[:n-1]
	}
	name := p.name
	ctx.mu.Unlock()
	if po.op != nil {
		C.TXE_OpReset(po.op, name, nil, po.s.c)
	} else {
		po.s = newStatus()
		po.op = C.TXE_NewOp(ctx.c, name, po.s.c)
	}
	if err := po.s.err(); err != nil {
		if po.op != nil {
			C.TXE_DeleteOp(po.op)
		}
		po.s.done()
		ctx.release()
		return pooledOp{}, err
	}
	return po, nil
}

// putOp keeps po for reuse by later ExecuteOp calls of the same type (a few per type) and drops
// takeOp's reference, taking `handles` references for the output handles made meanwhile.
func (ctx *Context) putOp(opType string, po pooledOp, handles int) {
	ctx.mu.Lock()
	defer ctx.mu.Unlock()
	if p := ctx.ops[opType]; p != nil && len(p.idle) < 4 {
		p.idle = append(p.idle, po)
	} else {
		C.TXE_DeleteOp(po.op)
		po.s.done()
	}
	ctx.refs += handles - 1
	ctx.freeIfUnused()
}

// wrapHandles wraps caller-owned C handles, taking a context reference for each.
func (ctx *Context) wrapHandles(cs []*C.TXE_TensorHandle) []*TensorHandle {
	ctx.mu.Lock()
	ctx.refs += len(cs)
	ctx.mu.Unlock()
	return ctx.newHandles(cs)
}

// newHandles wraps caller-owned C handles; the caller accounts for their context references.
func (ctx *Context) newHandles(cs []*C.TXE_TensorHandle) []*TensorHandle {
	out := make([]*TensorHandle, len(cs))
	for i, c := range cs {
		out[i] = newHandleFromC(ctx, c)
	}
	return out
}

// addEagerInputs adds the input arguments to op: single handles in one cgo call when there are
// only those (the common case), else one call per argument.
func addEagerInputs(op *C.TXE_Op, inputs []EagerInput, s status) error {
	singles := make([]*TensorHandle, 0, len(inputs))
	for _, in := range inputs {
		if h, ok := in.(*TensorHandle); ok {
			singles = append(singles, h)
		}
	}
	if len(singles) > 0 && len(singles) == len(inputs) {
		cs, err := handlePointers(singles, false)
		if err != nil {
			return errorf(InvalidArgument, "input %s", errorMessage(err))
		}
		i := C.txgo_add_inputs(op, &cs[0], C.int(len(cs)), s.c)
		runtime.KeepAlive(singles)
		if i >= 0 {
			return errorf(InvalidArgument, "input %d: %s", int(i), errorMessage(s.err()))
		}
		return nil
	}
	for i, in := range inputs {
		if err := addEagerInput(op, in, s); err != nil {
			return errorf(InvalidArgument, "input %d: %s", i, errorMessage(err))
		}
	}
	return nil
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
		hs, err := handlePointers(in, false)
		if err != nil {
			return errorf(InvalidArgument, "element %s", errorMessage(err))
		}
		C.TXE_OpAddInputList(op, (**C.TXE_TensorHandle)(firstOrNil(hs)), C.int(len(hs)), s.c)
		runtime.KeepAlive(in)
	default:
		return errorf(InvalidArgument, "unsupported input type %T", in)
	}
	return s.err()
}
