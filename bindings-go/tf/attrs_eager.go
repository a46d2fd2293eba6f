package tf

// #include <stdlib.h>
// #include "tensorflux/c/c_api_eager.h"
import "C"

import "unsafe"

// eagerSink sets attrs on an eager op of context ctx.
type eagerSink struct {
	ctx *Context
	op  *C.TXE_Op
}

func (s eagerSink) setString(name *C.char, value unsafe.Pointer, length C.size_t) {
	C.TXE_OpSetAttrString(s.op, name, value, length)
}
func (s eagerSink) setStringList(name *C.char, values *unsafe.Pointer, lengths *C.size_t, n C.int) {
	C.TXE_OpSetAttrStringList(s.op, name, values, lengths, n)
}
func (s eagerSink) setInt(name *C.char, value C.int64_t) { C.TXE_OpSetAttrInt(s.op, name, value) }
func (s eagerSink) setIntList(name *C.char, values *C.int64_t, n C.int) {
	C.TXE_OpSetAttrIntList(s.op, name, values, n)
}
func (s eagerSink) setFloat(name *C.char, value C.float) { C.TXE_OpSetAttrFloat(s.op, name, value) }
func (s eagerSink) setFloatList(name *C.char, values *C.float, n C.int) {
	C.TXE_OpSetAttrFloatList(s.op, name, values, n)
}
func (s eagerSink) setBool(name *C.char, value C.uchar) { C.TXE_OpSetAttrBool(s.op, name, value) }
func (s eagerSink) setBoolList(name *C.char, values *C.uchar, n C.int) {
	C.TXE_OpSetAttrBoolList(s.op, name, values, n)
}
func (s eagerSink) setType(name *C.char, value C.TX_DataType) { C.TXE_OpSetAttrType(s.op, name, value) }
func (s eagerSink) setTypeList(name *C.char, values *C.TX_DataType, n C.int) {
	C.TXE_OpSetAttrTypeList(s.op, name, values, n)
}
func (s eagerSink) setShape(name *C.char, dims *C.int64_t, rank C.int) error {
	st := newStatus()
	defer st.done()
	C.TXE_OpSetAttrShape(s.op, name, dims, rank, st.c)
	return st.err()
}
func (s eagerSink) setShapeList(name *C.char, dims **C.int64_t, ranks *C.int, n C.int) error {
	st := newStatus()
	defer st.done()
	C.TXE_OpSetAttrShapeList(s.op, name, dims, ranks, n, st.c)
	return st.err()
}
func (s eagerSink) setTensor(name *C.char, t *C.TX_Tensor) error {
	st := newStatus()
	defer st.done()
	C.TXE_OpSetAttrTensor(s.op, name, t, st.c)
	return st.err()
}
func (s eagerSink) setTensorList(name *C.char, ts **C.TX_Tensor, n C.int) error {
	return errorf(Unimplemented, "the eager C API has no list(tensor) attr setter")
}
func (s eagerSink) setFuncName(name *C.char, fn *C.char, length C.size_t) {
	C.TXE_OpSetAttrFunctionName(s.op, name, fn, length)
}
func (s eagerSink) setFuncNameList(name *C.char, values *unsafe.Pointer, lengths *C.size_t, n C.int) {
	C.TXE_OpSetAttrFunctionNameList(s.op, name, values, lengths, n)
}
func (s eagerSink) addFunction(f *Function) error { return s.ctx.useFunction(f) }
