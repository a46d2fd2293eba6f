package tf

// #include <stdlib.h>
// #include "tensorflux/c/c_api.h"
import "C"

import (
	"runtime"
	"sort"
	"unsafe"
)

// OpSpec describes an operation to add to a graph.
type OpSpec struct {
	// Type is the op type, e.g. "MatMul".
	Type string
	// Name is the operation's name; empty means a fresh name derived from Type.
	Name string
	// Input holds one entry per input argument of the OpDef, in order: an Output for a single
	// tensor, an OutputList for a list argument.
	Input []Input
	// Attrs maps attr names to Go values: string, []string, int64 (or int), []int64 (or []int),
	// float32 (or float64), []float32, bool, []bool, DataType, []DataType, Shape, []Shape,
	// *Tensor, []*Tensor, *Function (copied into the graph's library), []*Function.
	Attrs map[string]interface{}
	// ControlDependencies are operations that must run before this one.
	ControlDependencies []*Operation
	// Device requests a device, e.g. "/device:CPU:0".
	Device string
}

// AddOperation validates spec against the op's OpDef (inferring type attrs and filling defaults),
// runs shape inference and adds the operation; the error names the operation.
func (g *Graph) AddOperation(args OpSpec) (*Operation, error) {
	if err := g.check(); err != nil {
		return nil, err
	}
	if args.Type == "" {
		return nil, errorf(InvalidArgument, "OpSpec.Type is empty")
	}
	name := args.Name
	if name == "" {
		cs := C.CString(args.Type)
		name = C.GoString(C.TX_GraphUniqueName(g.c, cs))
		C.free(unsafe.Pointer(cs))
	}
	// Check everything that could make the C calls misbehave before creating the description.
	for i, in := range args.Input {
		if err := g.checkInput(in); err != nil {
			return nil, errorf(InvalidArgument, "[%s] input %d: %s", name, i, errorMessage(err))
		}
	}
	for _, dep := range args.ControlDependencies {
		if err := g.owns(dep); err != nil {
			return nil, errorf(InvalidArgument, "[%s] control dependency: %s", name, errorMessage(err))
		}
	}
	ctype, cname := C.CString(args.Type), C.CString(name)
	defer C.free(unsafe.Pointer(ctype))
	defer C.free(unsafe.Pointer(cname))
	desc := C.TX_NewOperation(g.c, ctype, cname)
	if desc == nil {
		return nil, errorf(InvalidArgument, "[%s] could not create an operation of type %q", name, args.Type)
	}
	for _, in := range args.Input {
		switch in := in.(type) {
		case Output:
			C.TX_AddInput(desc, in.c())
		case OutputList:
			list := make([]C.TX_Output, len(in))
			for i, o := range in {
				list[i] = o.c()
			}
			var p *C.TX_Output
			if len(list) > 0 {
				p = &list[0]
			}
			C.TX_AddInputList(desc, p, C.int(len(list)))
		}
	}
	for _, dep := range args.ControlDependencies {
		C.TX_AddControlInput(desc, dep.c)
	}
	if args.Device != "" {
		cs := C.CString(args.Device)
		C.TX_SetDevice(desc, cs)
		C.free(unsafe.Pointer(cs))
	}
	names := make([]string, 0, len(args.Attrs))
	for k := range args.Attrs {
		names = append(names, k)
	}
	sort.Strings(names) // deterministic errors
	for _, k := range names {
		if err := setAttr(descSink{g, desc}, k, args.Attrs[k]); err != nil {
			C.TX_DeleteOperationDescription(desc)
			return nil, errorf(InvalidArgument, "[%s] attr '%s': %s", name, k, errorMessage(err))
		}
	}
	s := newStatus()
	defer s.done()
	c := C.TX_FinishOperation(desc, s.c)
	runtime.KeepAlive(g)
	if err := s.err(); err != nil {
		return nil, err
	}
	return &Operation{c: c, g: g}, nil
}

// checkInput returns an error unless every output in `in` is a valid output of g.
func (g *Graph) checkInput(in Input) error {
	var outs []Output
	switch in := in.(type) {
	case Output:
		outs = []Output{in}
	case OutputList:
		outs = in
	default:
		return errorf(InvalidArgument, "unsupported Input type %T", in)
	}
	for _, o := range outs {
		if err := g.owns(o.Op); err != nil {
			return err
		}
		if !o.valid() {
			return errorf(InvalidArgument, "'%s' has no output %d", o.Op.Name(), o.Index)
		}
	}
	return nil
}

// errorMessage is the message of an *Error, or err's text.
func errorMessage(err error) string {
	if e, ok := err.(*Error); ok {
		return e.Message
	}
	return err.Error()
}

// cStrings copies strs into C memory: an array of pointers and one of lengths; free releases both.
func cStrings(strs []string) (ptrs *unsafe.Pointer, lens *C.size_t, free func()) {
	n := len(strs)
	if n == 0 {
		return nil, nil, func() {}
	}
	parr := unsafe.Slice((*unsafe.Pointer)(C.malloc(C.size_t(n)*C.size_t(unsafe.Sizeof(unsafe.Pointer(nil))))), n)
	larr := unsafe.Slice((*C.size_t)(C.malloc(C.size_t(n)*C.size_t(unsafe.Sizeof(C.size_t(0))))), n)
	for i, s := range strs {
		parr[i] = C.CBytes([]byte(s))
		larr[i] = C.size_t(len(s))
	}
	return &parr[0], &larr[0], func() {
		for _, p := range parr {
			C.free(p)
		}
		C.free(unsafe.Pointer(&parr[0]))
		C.free(unsafe.Pointer(&larr[0]))
	}
}

// cShapes copies shapes into C memory for TX_SetAttrShapeList-style calls; free releases it.
func cShapes(shapes []Shape) (dims **C.int64_t, ranks *C.int, free func()) {
	n := len(shapes)
	if n == 0 {
		return nil, nil, func() {}
	}
	darr := unsafe.Slice((**C.int64_t)(C.malloc(C.size_t(n)*C.size_t(unsafe.Sizeof((*C.int64_t)(nil))))), n)
	rarr := unsafe.Slice((*C.int)(C.malloc(C.size_t(n)*C.size_t(unsafe.Sizeof(C.int(0))))), n)
	for i, s := range shapes {
		rarr[i] = C.int(s.NumDimensions())
		darr[i] = nil
		if len(s.dims) > 0 {
			darr[i] = (*C.int64_t)(C.CBytes(unsafe.Slice((*byte)(unsafe.Pointer(&s.dims[0])), 8*len(s.dims))))
		}
	}
	return &darr[0], &rarr[0], func() {
		for _, p := range darr {
			C.free(unsafe.Pointer(p))
		}
		C.free(unsafe.Pointer(&darr[0]))
		C.free(unsafe.Pointer(&rarr[0]))
	}
}

// attrValueError is the error for an attr value of an unsupported Go type.
func attrValueError(value interface{}) error {
	return errorf(InvalidArgument, "unsupported attr value type %T", value)
}

// normalizeAttr converts the convenience Go types (int, []int, float64, []float64) to the
// canonical ones.
func normalizeAttr(value interface{}) interface{} {
	switch v := value.(type) {
	case int:
		return int64(v)
	case int32:
		return int64(v)
	case []int:
		out := make([]int64, len(v))
		for i, x := range v {
			out[i] = int64(x)
		}
		return out
	case []int32:
		out := make([]int64, len(v))
		for i, x := range v {
			out[i] = int64(x)
		}
		return out
	case float64:
		return float32(v)
	case []float64:
		out := make([]float32, len(v))
		for i, x := range v {
			out[i] = float32(x)
		}
		return out
	}
	return value
}
