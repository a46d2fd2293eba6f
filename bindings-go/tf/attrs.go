package tf

// #include <stdlib.h>
// #include "tensorflux/c/c_api.h"
import "C"

import (
	"runtime"
	"unsafe"
)

// attrSink receives attr values: a graph operation description or an eager op.
type attrSink interface {
	setString(name *C.char, value unsafe.Pointer, length C.size_t)
	setStringList(name *C.char, values *unsafe.Pointer, lengths *C.size_t, n C.int)
	setInt(name *C.char, value C.int64_t)
	setIntList(name *C.char, values *C.int64_t, n C.int)
	setFloat(name *C.char, value C.float)
	setFloatList(name *C.char, values *C.float, n C.int)
	setBool(name *C.char, value C.uchar)
	setBoolList(name *C.char, values *C.uchar, n C.int)
	setType(name *C.char, value C.TX_DataType)
	setTypeList(name *C.char, values *C.TX_DataType, n C.int)
	setShape(name *C.char, dims *C.int64_t, rank C.int) error
	setShapeList(name *C.char, dims **C.int64_t, ranks *C.int, n C.int) error
	setTensor(name *C.char, t *C.TX_Tensor) error
	setTensorList(name *C.char, ts **C.TX_Tensor, n C.int) error
	setFuncName(name *C.char, fn *C.char, length C.size_t)
	setFuncNameList(name *C.char, values *unsafe.Pointer, lengths *C.size_t, n C.int)
	// addFunction makes f callable where the attr is used (a graph's or a context's library).
	addFunction(f *Function) error
}

// setAttr converts a Go attr value (see OpSpec.Attrs) and passes it to sink.
func setAttr(sink attrSink, name string, value interface{}) error {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	switch v := normalizeAttr(value).(type) {
	case string:
		b := C.CBytes([]byte(v))
		defer C.free(b)
		sink.setString(cname, b, C.size_t(len(v)))
	case []string:
		ptrs, lens, free := cStrings(v)
		defer free()
		sink.setStringList(cname, ptrs, lens, C.int(len(v)))
	case int64:
		sink.setInt(cname, C.int64_t(v))
	case []int64:
		sink.setIntList(cname, (*C.int64_t)(firstOrNil(v)), C.int(len(v)))
	case float32:
		sink.setFloat(cname, C.float(v))
	case []float32:
		sink.setFloatList(cname, (*C.float)(firstOrNil(v)), C.int(len(v)))
	case bool:
		sink.setBool(cname, cBool(v))
	case []bool:
		b := make([]C.uchar, len(v))
		for i, x := range v {
			b[i] = cBool(x)
		}
		sink.setBoolList(cname, (*C.uchar)(firstOrNil(b)), C.int(len(v)))
	case DataType:
		sink.setType(cname, C.TX_DataType(v))
	case []DataType:
		sink.setTypeList(cname, (*C.TX_DataType)(firstOrNil(v)), C.int(len(v)))
	case Shape:
		return sink.setShape(cname, (*C.int64_t)(firstOrNil(v.dims)), C.int(v.NumDimensions()))
	case []Shape:
		dims, ranks, free := cShapes(v)
		defer free()
		return sink.setShapeList(cname, dims, ranks, C.int(len(v)))
	case *Tensor:
		if v == nil || v.c == nil {
			return errorf(InvalidArgument, "nil or deleted tensor")
		}
		defer runtime.KeepAlive(v)
		return sink.setTensor(cname, v.c)
	case []*Tensor:
		ts := make([]*C.TX_Tensor, len(v))
		for i, t := range v {
			if t == nil || t.c == nil {
				return errorf(InvalidArgument, "element %d is a nil or deleted tensor", i)
			}
			ts[i] = t.c
		}
		err := sink.setTensorList(cname, (**C.TX_Tensor)(firstOrNil(ts)), C.int(len(ts)))
		for _, t := range v {
			runtime.KeepAlive(t)
		}
		return err
	case *Function:
		if err := sink.addFunction(v); err != nil {
			return err
		}
		fn := v.Name()
		b := C.CString(fn)
		defer C.free(unsafe.Pointer(b))
		sink.setFuncName(cname, b, C.size_t(len(fn)))
	case []*Function:
		names := make([]string, len(v))
		for i, f := range v {
			if err := sink.addFunction(f); err != nil {
				return err
			}
			names[i] = f.Name()
		}
		ptrs, lens, free := cStrings(names)
		defer free()
		sink.setFuncNameList(cname, ptrs, lens, C.int(len(names)))
	default:
		return attrValueError(value)
	}
	return nil
}

// firstOrNil is a pointer to s[0], or nil for an empty slice.
func firstOrNil[T any](s []T) unsafe.Pointer {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Pointer(&s[0])
}
