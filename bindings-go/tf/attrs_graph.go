package tf

// #include <stdlib.h>
// #include "tensorflux/c/c_api.h"
import "C"

import "unsafe"

// descSink sets attrs on an operation description of graph g.
type descSink struct {
	g *Graph
	d *C.TX_OperationDescription
}

func (s descSink) setString(name *C.char, value unsafe.Pointer, length C.size_t) {
	C.TX_SetAttrString(s.d, name, value, length)
}
func (s descSink) setStringList(name *C.char, values *unsafe.Pointer, lengths *C.size_t, n C.int) {
	C.TX_SetAttrStringList(s.d, name, values, lengths, n)
}
func (s descSink) setInt(name *C.char, value C.int64_t) { C.TX_SetAttrInt(s.d, name, value) }
func (s descSink) setIntList(name *C.char, values *C.int64_t, n C.int) {
	C.TX_SetAttrIntList(s.d, name, values, n)
}
func (s descSink) setFloat(name *C.char, value C.float) { C.TX_SetAttrFloat(s.d, name, value) }
func (s descSink) setFloatList(name *C.char, values *C.float, n C.int) {
	C.TX_SetAttrFloatList(s.d, name, values, n)
}
func (s descSink) setBool(name *C.char, value C.uchar) { C.TX_SetAttrBool(s.d, name, value) }
func (s descSink) setBoolList(name *C.char, values *C.uchar, n C.int) {
	C.TX_SetAttrBoolList(s.d, name, values, n)
}
func (s descSink) setType(name *C.char, value C.TX_DataType) { C.TX_SetAttrType(s.d, name, value) }
func (s descSink) setTypeList(name *C.char, values *C.TX_DataType, n C.int) {
	C.TX_SetAttrTypeList(s.d, name, values, n)
}
func (s descSink) setShape(name *C.char, dims *C.int64_t, rank C.int) error {
	C.TX_SetAttrShape(s.d, name, dims, rank)
	return nil
}
func (s descSink) setShapeList(name *C.char, dims **C.int64_t, ranks *C.int, n C.int) error {
	C.TX_SetAttrShapeList(s.d, name, dims, ranks, n)
	return nil
}
func (s descSink) setTensor(name *C.char, t *C.TX_Tensor) error {
	st := newStatus()
	defer st.done()
	C.TX_SetAttrTensor(s.d, name, t, st.c)
	return st.err()
}
func (s descSink) setTensorList(name *C.char, ts **C.TX_Tensor, n C.int) error {
	st := newStatus()
	defer st.done()
	C.TX_SetAttrTensorList(s.d, name, ts, n, st.c)
	return st.err()
}
func (s descSink) setFuncName(name *C.char, fn *C.char, length C.size_t) {
	C.TX_SetAttrFuncName(s.d, name, fn, length)
}
func (s descSink) setFuncNameList(name *C.char, values *unsafe.Pointer, lengths *C.size_t, n C.int) {
	C.TX_SetAttrFuncNameList(s.d, name, values, lengths, n)
}
func (s descSink) addFunction(f *Function) error { return s.g.AddFunction(f) }
