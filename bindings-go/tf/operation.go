package tf

// #include <stdlib.h>
// #include "tensorflux/c/c_api.h"
import "C"

import (
	"runtime"
	"strconv"
	"strings"
	"unsafe"
)

// Operation is a node of a Graph (a TX_Operation); it is valid while its graph is.
type Operation struct {
	c *C.TX_Operation
	g *Graph
}

// live reports whether the operation and its graph are usable.
func (op *Operation) live() bool { return op != nil && op.c != nil && op.g != nil && op.g.c != nil }

// Name is the operation's unique name in its graph.
func (op *Operation) Name() string {
	if !op.live() {
		return ""
	}
	defer runtime.KeepAlive(op.g)
	return C.GoString(C.TX_OperationName(op.c))
}

// Type is the op type, e.g. "MatMul".
func (op *Operation) Type() string {
	if !op.live() {
		return ""
	}
	defer runtime.KeepAlive(op.g)
	return C.GoString(C.TX_OperationOpType(op.c))
}

// Device is the requested device ("" when none).
func (op *Operation) Device() string {
	if !op.live() {
		return ""
	}
	defer runtime.KeepAlive(op.g)
	return C.GoString(C.TX_OperationDevice(op.c))
}

// NumInputs is the number of input tensors (list arguments counted element by element).
func (op *Operation) NumInputs() int {
	if !op.live() {
		return 0
	}
	defer runtime.KeepAlive(op.g)
	return int(C.TX_OperationNumInputs(op.c))
}

// NumOutputs is the number of output tensors.
func (op *Operation) NumOutputs() int {
	if !op.live() {
		return 0
	}
	defer runtime.KeepAlive(op.g)
	return int(C.TX_OperationNumOutputs(op.c))
}

// Output returns output i of the operation.
func (op *Operation) Output(i int) Output { return Output{Op: op, Index: i} }

// OutputListSize is the number of tensors in output argument `name` of the op's OpDef.
func (op *Operation) OutputListSize(name string) (int, error) {
	if !op.live() {
		return 0, errorf(FailedPrecondition, "the operation or its graph was deleted")
	}
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	s := newStatus()
	defer s.done()
	n := C.TX_OperationOutputListLength(op.c, cs, s.c)
	runtime.KeepAlive(op.g)
	return int(n), s.err()
}

// InputListSize is the number of tensors in input argument `name` of the op's OpDef.
func (op *Operation) InputListSize(name string) (int, error) {
	if !op.live() {
		return 0, errorf(FailedPrecondition, "the operation or its graph was deleted")
	}
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	s := newStatus()
	defer s.done()
	n := C.TX_OperationInputListLength(op.c, cs, s.c)
	runtime.KeepAlive(op.g)
	return int(n), s.err()
}

// Input returns the producer of input i.
func (op *Operation) Input(i int) Output {
	if !op.live() || i < 0 || i >= op.NumInputs() {
		return Output{}
	}
	defer runtime.KeepAlive(op.g)
	out := C.TX_OperationInput(C.TX_Input{oper: op.c, index: C.int(i)})
	return Output{Op: &Operation{c: out.oper, g: op.g}, Index: int(out.index)}
}

// ControlInputs returns the operations this one runs after.
func (op *Operation) ControlInputs() []*Operation {
	if !op.live() {
		return nil
	}
	defer runtime.KeepAlive(op.g)
	n := C.TX_OperationNumControlInputs(op.c)
	if n == 0 {
		return nil
	}
	cops := make([]*C.TX_Operation, int(n))
	n = C.TX_OperationGetControlInputs(op.c, &cops[0], n)
	ops := make([]*Operation, int(n))
	for i := range ops {
		ops[i] = &Operation{c: cops[i], g: op.g}
	}
	return ops
}

// NodeDef returns the operation serialized as a NodeDef.
func (op *Operation) NodeDef() ([]byte, error) {
	if !op.live() {
		return nil, errorf(FailedPrecondition, "the operation or its graph was deleted")
	}
	buf := C.TX_NewBuffer()
	defer C.TX_DeleteBuffer(buf)
	s := newStatus()
	defer s.done()
	C.TX_OperationToNodeDef(op.c, buf, s.c)
	runtime.KeepAlive(op.g)
	if err := s.err(); err != nil {
		return nil, err
	}
	return bufferBytes(buf), nil
}

// Input is an operation input: an Output (one tensor argument) or an OutputList (a list argument).
type Input interface {
	canBeAnInput()
}

// Output is output Index of operation Op: a symbolic tensor.
type Output struct {
	Op    *Operation
	Index int
}

func (Output) canBeAnInput() {}

// c converts to the C struct.
func (o Output) c() C.TX_Output {
	if o.Op == nil {
		return C.TX_Output{}
	}
	return C.TX_Output{oper: o.Op.c, index: C.int(o.Index)}
}

// valid reports whether o names an existing output of a live operation.
func (o Output) valid() bool {
	return o.Op.live() && o.Index >= 0 && o.Index < o.Op.NumOutputs()
}

// DataType is the output's element type (0 for an invalid output).
func (o Output) DataType() DataType {
	if !o.valid() {
		return 0
	}
	defer runtime.KeepAlive(o.Op.g)
	return DataType(C.TX_OperationOutputType(o.c()))
}

// Shape is the output's static shape as shape inference knows it.
func (o Output) Shape() Shape {
	if !o.valid() {
		return UnknownShape()
	}
	defer runtime.KeepAlive(o.Op.g)
	s := newStatus()
	defer s.done()
	n := C.TX_GraphGetTensorNumDims(o.Op.g.c, o.c(), s.c)
	if s.err() != nil || n < 0 {
		return UnknownShape()
	}
	dims := make([]int64, int(n))
	if n > 0 {
		C.TX_GraphGetTensorShape(o.Op.g.c, o.c(), (*C.int64_t)(unsafe.Pointer(&dims[0])), n, s.c)
		if s.err() != nil {
			return UnknownShape()
		}
	}
	return Shape{dims: dims}
}

// SetShape merges shape into the output's static shape; an error if they are incompatible.
func (o Output) SetShape(shape Shape) error {
	if !o.valid() {
		return errorf(InvalidArgument, "invalid output")
	}
	defer runtime.KeepAlive(o.Op.g)
	s := newStatus()
	defer s.done()
	var dims *C.int64_t
	if len(shape.dims) > 0 {
		dims = (*C.int64_t)(unsafe.Pointer(&shape.dims[0]))
	}
	C.TX_GraphSetTensorShape(o.Op.g.c, o.c(), dims, C.int(shape.NumDimensions()), s.c)
	return s.err()
}

// Consumer is input Index of operation Op.
type Consumer struct {
	Op    *Operation
	Index int
}

// Consumers returns the operation inputs that read this output.
func (o Output) Consumers() []Consumer {
	if !o.valid() {
		return nil
	}
	defer runtime.KeepAlive(o.Op.g)
	n := C.TX_OperationOutputNumConsumers(o.c())
	if n == 0 {
		return nil
	}
	cins := make([]C.TX_Input, int(n))
	n = C.TX_OperationOutputConsumers(o.c(), &cins[0], n)
	out := make([]Consumer, int(n))
	for i := range out {
		out[i] = Consumer{Op: &Operation{c: cins[i].oper, g: o.Op.g}, Index: int(cins[i].index)}
	}
	return out
}

// OutputList is a list of outputs fed to one list argument of an operation.
type OutputList []Output

func (OutputList) canBeAnInput() {}

// splitTensorName splits "name:index" (index 0 when absent).
func splitTensorName(s string) (string, int, error) {
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return s, 0, nil
	}
	index, err := strconv.Atoi(s[i+1:])
	if err != nil || index < 0 {
		return "", 0, errorf(InvalidArgument, "bad tensor name %q (want name or name:index)", s)
	}
	return s[:i], index, nil
}
