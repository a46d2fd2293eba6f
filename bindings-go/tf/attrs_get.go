package tf

// #include <stdlib.h>
// #include "tensorflux/c/c_api.h"
import "C"

import (
	"runtime"
	"unsafe"
)

// Attr returns the value of attr `name` as the Go type OpSpec.Attrs takes for it: string,
// []string, int64, []int64, float32, []float32, bool, []bool, DataType, []DataType, Shape,
// *Tensor, and the function name (string, []string) for func attrs. List(shape) and
// list(tensor) attrs are Unimplemented (the C API has no typed getter for them).
func (op *Operation) Attr(name string) (interface{}, error) {
	if !op.live() {
		return nil, errorf(FailedPrecondition, "the operation or its graph was deleted")
	}
	defer runtime.KeepAlive(op.g)
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	s := newStatus()
	defer s.done()
	meta := C.TX_OperationGetAttrMetadata(op.c, cname, s.c)
	if err := s.err(); err != nil {
		return nil, err
	}
	a := attrGetter{op: op.c, name: cname, s: s, n: int(meta.list_size), total: int(meta.total_size)}
	var v interface{}
	if meta.is_list == 1 {
		v = a.list(meta._type)
	} else {
		v = a.single(meta._type)
	}
	if err := s.err(); err != nil {
		return nil, err
	}
	if v == nil {
		return nil, errorf(Unimplemented, "[%s] attr '%s': reading this kind of attr is not supported", op.Name(), name)
	}
	return v, nil
}

// attrGetter reads one attr of an operation.
type attrGetter struct {
	op       *C.TX_Operation
	name     *C.char
	s        status
	n, total int
}

// single reads a non-list attr of kind t (nil when unsupported).
func (a attrGetter) single(t C.TX_AttrType) interface{} {
	switch t {
	case C.TX_ATTR_STRING, C.TX_ATTR_FUNC:
		buf := make([]byte, a.total+1)
		if t == C.TX_ATTR_STRING {
			C.TX_OperationGetAttrString(a.op, a.name, unsafe.Pointer(&buf[0]), C.size_t(a.total), a.s.c)
		} else {
			C.TX_OperationGetAttrFuncName(a.op, a.name, unsafe.Pointer(&buf[0]), C.size_t(a.total), a.s.c)
		}
		return string(buf[:a.total])
	case C.TX_ATTR_INT:
		var v C.int64_t
		C.TX_OperationGetAttrInt(a.op, a.name, &v, a.s.c)
		return int64(v)
	case C.TX_ATTR_FLOAT:
		var v C.float
		C.TX_OperationGetAttrFloat(a.op, a.name, &v, a.s.c)
		return float32(v)
	case C.TX_ATTR_BOOL:
		var v C.uchar
		C.TX_OperationGetAttrBool(a.op, a.name, &v, a.s.c)
		return v != 0
	case C.TX_ATTR_TYPE:
		var v C.TX_DataType
		C.TX_OperationGetAttrType(a.op, a.name, &v, a.s.c)
		return DataType(v)
	case C.TX_ATTR_SHAPE:
		if a.total < 0 {
			return UnknownShape()
		}
		dims := make([]int64, a.total+1)
		C.TX_OperationGetAttrShape(a.op, a.name, (*C.int64_t)(unsafe.Pointer(&dims[0])), C.int(a.total), a.s.c)
		return Shape{dims: dims[:a.total]}
	case C.TX_ATTR_TENSOR:
		var t *C.TX_Tensor
		C.TX_OperationGetAttrTensor(a.op, a.name, &t, a.s.c)
		if t == nil {
			return nil
		}
		return newTensorFromC(t)
	}
	return nil
}

// list reads a list attr of element kind t (nil when unsupported).
func (a attrGetter) list(t C.TX_AttrType) interface{} {
	n := a.n
	m := C.int(n)
	switch t {
	case C.TX_ATTR_STRING, C.TX_ATTR_FUNC:
		lens := make([]C.size_t, n+1)
		storage := C.malloc(C.size_t(a.total + 1))
		defer C.free(storage)
		pv := (*unsafe.Pointer)(C.malloc(C.size_t(n+1) * C.size_t(unsafe.Sizeof(unsafe.Pointer(nil)))))
		defer C.free(unsafe.Pointer(pv))
		if t == C.TX_ATTR_STRING {
			C.TX_OperationGetAttrStringList(a.op, a.name, pv, &lens[0], m, storage, C.size_t(a.total), a.s.c)
		} else {
			C.TX_OperationGetAttrFuncNameList(a.op, a.name, pv, &lens[0], m, storage, C.size_t(a.total), a.s.c)
		}
		vals := unsafe.Slice(pv, n+1)
		out := make([]string, n)
		for i := range out {
			if lens[i] > 0 {
				out[i] = C.GoStringN((*C.char)(vals[i]), C.int(lens[i]))
			}
		}
		return out
	case C.TX_ATTR_INT:
		v := make([]int64, n+1)
		C.TX_OperationGetAttrIntList(a.op, a.name, (*C.int64_t)(unsafe.Pointer(&v[0])), m, a.s.c)
		return v[:n]
	case C.TX_ATTR_FLOAT:
		v := make([]float32, n+1)
		C.TX_OperationGetAttrFloatList(a.op, a.name, (*C.float)(unsafe.Pointer(&v[0])), m, a.s.c)
		return v[:n]
	case C.TX_ATTR_BOOL:
		v := make([]C.uchar, n+1)
		C.TX_OperationGetAttrBoolList(a.op, a.name, &v[0], m, a.s.c)
		out := make([]bool, n)
		for i := range out {
			out[i] = v[i] != 0
		}
		return out
	case C.TX_ATTR_TYPE:
		v := make([]DataType, n+1)
		C.TX_OperationGetAttrTypeList(a.op, a.name, (*C.TX_DataType)(unsafe.Pointer(&v[0])), m, a.s.c)
		return v[:n]
	}
	return nil
}
