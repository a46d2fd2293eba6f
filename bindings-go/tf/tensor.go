package tf

// #include <stdlib.h>
// #include "tensorflux/c/c_api.h"
import "C"

import (
	"io"
	"reflect"
	"runtime"
	"unsafe"
)

// Tensor is a dense, row-major, immutable n-dimensional array held by the engine (a TX_Tensor).
type Tensor struct {
	c     *C.TX_Tensor
	shape []int64
}

// newTensorFromC wraps a caller-owned TX_Tensor, releasing it when the Tensor is collected.
func newTensorFromC(c *C.TX_Tensor) *Tensor {
	n := int(C.TX_NumDims(c))
	shape := make([]int64, n)
	for i := range shape {
		shape[i] = int64(C.TX_Dim(c, C.int(i)))
	}
	t := &Tensor{c: c, shape: shape}
	runtime.SetFinalizer(t, (*Tensor).Delete)
	return t
}

// allocateTensor allocates an uninitialized tensor of type dt and the given shape.
func allocateTensor(dt DataType, shape []int64) (*Tensor, error) {
	size := dt.byteSize()
	if _, ok := goTypes[dt]; !ok || size == 0 {
		return nil, errorf(Unimplemented, "tensors of type %v cannot be built from Go", dt)
	}
	n := int64(1)
	for _, d := range shape {
		if d < 0 {
			return nil, errorf(InvalidArgument, "negative dimension in shape %v", shape)
		}
		n *= d
	}
	var dims *C.int64_t
	if len(shape) > 0 {
		dims = (*C.int64_t)(unsafe.Pointer(&shape[0]))
	}
	c := C.TX_AllocateTensor(C.TX_DataType(dt), dims, C.int(len(shape)), C.size_t(n*int64(size)))
	if c == nil {
		return nil, errorf(ResourceExhausted, "could not allocate a %v tensor of shape %v", dt, shape)
	}
	return newTensorFromC(c), nil
}

// NewTensor converts a Go value to a tensor: a scalar of a supported element type (float32,
// float64, int8..int64, int, uint8..uint64, uint, bool, complex64, complex128, Float16,
// BrainFloat16, string), or a slice or array of them, nested to any depth with equal lengths at
// each level (a ragged value is an error). A string becomes a String element holding its bytes.
func NewTensor(value interface{}) (*Tensor, error) {
	v := reflect.ValueOf(value)
	if !v.IsValid() {
		return nil, errorf(InvalidArgument, "cannot make a tensor of nil")
	}
	shape, elem, err := shapeOf(v)
	if err != nil {
		return nil, err
	}
	dt, err := dataTypeOf(elem)
	if err != nil {
		return nil, err
	}
	t, err := allocateTensor(dt, shape)
	if err != nil {
		return nil, err
	}
	if dt == String {
		if err := t.fillStrings(v, shape, elem); err != nil {
			t.Delete()
			return nil, err
		}
		return t, nil
	}
	flat := t.flatView(elem)
	if n := fill(flat, v, shape); n != flat.Len() {
		t.Delete()
		return nil, errorf(Internal, "filled %d of %d elements", n, flat.Len())
	}
	runtime.KeepAlive(t)
	return t, nil
}

// shapeOf returns the dimensions of a nested slice/array value and its element type, checking
// that every sub-slice at one level has the same length.
func shapeOf(v reflect.Value) ([]int64, reflect.Type, error) {
	var shape []int64
	t := v.Type()
	for t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
		t = t.Elem()
		shape = append(shape, -1)
	}
	if err := measure(v, shape, 0); err != nil {
		return nil, nil, err
	}
	for i := range shape {
		if shape[i] < 0 { // below an empty slice
			shape[i] = 0
		}
	}
	return shape, t, nil
}

// measure records v's length at `level` and recurses, failing on a length that differs from
// one recorded before at the same level.
func measure(v reflect.Value, shape []int64, level int) error {
	if level == len(shape) {
		return nil
	}
	n := int64(v.Len())
	if shape[level] >= 0 && shape[level] != n {
		return errorf(InvalidArgument, "ragged value: lengths %d and %d at nesting level %d", shape[level], n, level)
	}
	shape[level] = n
	for i := 0; i < v.Len(); i++ {
		if err := measure(v.Index(i), shape, level+1); err != nil {
			return err
		}
	}
	return nil
}

// fill copies the elements of nested value v into dst (row-major) and returns how many it copied.
func fill(dst, v reflect.Value, shape []int64) int {
	if len(shape) == 0 {
		dst.Index(0).Set(v)
		return 1
	}
	if len(shape) == 1 {
		return reflect.Copy(dst, v)
	}
	stride := 1
	for _, d := range shape[1:] {
		stride *= int(d)
	}
	n := 0
	for i := 0; i < v.Len(); i++ {
		n += fill(dst.Slice(i*stride, (i+1)*stride), v.Index(i), shape[1:])
	}
	return n
}

// fillStrings copies the strings (of Go type elem, a string kind) of nested value v, row-major,
// into the TX_TString elements of a new String tensor.
func (t *Tensor) fillStrings(v reflect.Value, shape []int64, elem reflect.Type) error {
	defer runtime.KeepAlive(t)
	n := int(C.TX_TensorElementCount(t.c))
	flat := reflect.MakeSlice(reflect.SliceOf(elem), n, n)
	if got := fill(flat, v, shape); got != n {
		return errorf(Internal, "filled %d of %d strings", got, n)
	}
	elems := t.tstrings()
	for i := range elems {
		s := flat.Index(i).String()
		if C.TX_StringCopy(&elems[i], (*C.char)(unsafe.Pointer(unsafe.StringData(s))), C.size_t(len(s))) == 0 {
			return errorf(ResourceExhausted, "out of memory copying a string of %d bytes", len(s))
		}
	}
	return nil
}

// tstrings views the elements of a String tensor (valid while t lives).
func (t *Tensor) tstrings() []C.TX_TString {
	n := int(C.TX_TensorElementCount(t.c))
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*C.TX_TString)(C.TX_TensorData(t.c)), n)
}

// flatView is a Go slice of element type elem over the tensor's memory (valid while t lives).
func (t *Tensor) flatView(elem reflect.Type) reflect.Value {
	n := int(C.TX_TensorElementCount(t.c))
	if n == 0 {
		return reflect.MakeSlice(reflect.SliceOf(elem), 0, 0)
	}
	return reflect.SliceAt(elem, C.TX_TensorData(t.c), n)
}

// ReadTensor makes a tensor of type dt and shape from the raw row-major little-endian element
// bytes in r (as WriteContentsTo writes them). String tensors have no raw byte form: build them
// with NewTensor.
func ReadTensor(dt DataType, shape []int64, r io.Reader) (*Tensor, error) {
	if dt == String {
		return nil, errorf(Unimplemented, "string tensors have no raw byte form; use NewTensor")
	}
	t, err := allocateTensor(dt, shape)
	if err != nil {
		return nil, err
	}
	if n := int(C.TX_TensorByteSize(t.c)); n > 0 {
		buf := unsafe.Slice((*byte)(C.TX_TensorData(t.c)), n)
		if _, err := io.ReadFull(r, buf); err != nil {
			t.Delete()
			return nil, errorf(InvalidArgument, "reading %d bytes of a %v tensor of shape %v: %v", n, dt, shape, err)
		}
		if dt == Bool {
			canonicalBools(buf)
		}
	}
	return t, nil
}

// Delete releases the tensor's C handle now (it is otherwise released by a finalizer); the
// tensor is unusable afterwards.
func (t *Tensor) Delete() {
	if t == nil || t.c == nil {
		return
	}
	C.TX_DeleteTensor(t.c)
	t.c = nil
	runtime.SetFinalizer(t, nil)
}

// DataType is the element type (0 for a deleted tensor).
func (t *Tensor) DataType() DataType {
	if t == nil || t.c == nil {
		return 0
	}
	defer runtime.KeepAlive(t)
	return DataType(C.TX_TensorType(t.c))
}

// Shape is a copy of the dimensions.
func (t *Tensor) Shape() []int64 { return append([]int64{}, t.shape...) }

// canonicalBools rewrites nonzero bytes to 1: a Go bool must hold 0 or 1 (a byte 2 would read as
// both b and !b). See "Bool tensors" in c_api.h.
func canonicalBools(buf []byte) {
	for i, b := range buf {
		if b != 0 {
			buf[i] = 1
		}
	}
}

// maxExtraSlices bounds the nested slices Value makes beyond one per element: a valid empty tensor
// of shape [2^40, 0] would otherwise need 2^40 empty slices and kill the process.
const maxExtraSlices = 1 << 20

// checkSliceCount fails when the nested slices for shape would not fit in memory.
func checkSliceCount(dt DataType, shape []int64) error {
	elements, slices, level := int64(1), int64(0), int64(1)
	for _, d := range shape {
		elements *= d
	}
	for _, d := range shape[:len(shape)-1] {
		if d != 0 && level > (elements+maxExtraSlices)/d {
			return errorf(ResourceExhausted, "a %v tensor of shape %v is too large for nested Go slices (more than %d slices beyond its %d elements); read its bytes with WriteContentsTo", dt, shape, maxExtraSlices, elements)
		}
		level *= d
		slices += level
	}
	if slices > elements+maxExtraSlices {
		return errorf(ResourceExhausted, "a %v tensor of shape %v is too large for nested Go slices (%d slices for %d elements); read its bytes with WriteContentsTo", dt, shape, slices, elements)
	}
	return nil
}

// Value converts the tensor to a Go value: a scalar for rank 0, else nested slices of the
// element type ([][]float32 for a float matrix). Nil for a deleted tensor, a type Go cannot hold
// (resource, variant), or where TryValue gives an error.
func (t *Tensor) Value() interface{} {
	v, _ := t.TryValue()
	return v
}

// TryValue is Value with the reason when there is no value: FailedPrecondition for a deleted
// tensor, Unimplemented for a type Go cannot hold, ResourceExhausted for a shape whose nested
// slices would not fit in memory (such as an empty tensor of shape [2^40, 0]).
func (t *Tensor) TryValue() (interface{}, error) {
	if t == nil || t.c == nil {
		return nil, errorf(FailedPrecondition, "the tensor was deleted")
	}
	defer runtime.KeepAlive(t)
	dt := t.DataType()
	elem, ok := goTypes[dt]
	if !ok {
		return nil, errorf(Unimplemented, "tensors of type %v have no Go value", dt)
	}
	if len(t.shape) > 1 {
		if err := checkSliceCount(dt, t.shape); err != nil {
			return nil, err
		}
	}
	var flat reflect.Value
	if dt == String {
		elems := t.tstrings()
		strs := make([]string, len(elems))
		for i := range elems {
			if n := int(C.TX_StringGetSize(&elems[i])); n > 0 {
				strs[i] = string(unsafe.Slice((*byte)(unsafe.Pointer(C.TX_StringGetDataPointer(&elems[i]))), n))
			}
		}
		flat = reflect.ValueOf(strs)
	} else {
		flat = t.flatView(elem)
	}
	if dt == Bool && flat.Len() > 0 {
		// Read through a canonical copy: the engine's own tensors hold 0/1 already, but one made
		// by TX_NewTensor over foreign memory may not.
		b := make([]byte, flat.Len())
		copy(b, unsafe.Slice((*byte)(C.TX_TensorData(t.c)), len(b)))
		canonicalBools(b)
		flat = reflect.ValueOf(unsafe.Slice((*bool)(unsafe.Pointer(&b[0])), len(b)))
	}
	if len(t.shape) == 0 {
		return flat.Index(0).Interface(), nil
	}
	return build(flat, elem, t.shape).Interface(), nil
}

// build makes a fresh nested slice of shape from the flat elements src.
func build(src reflect.Value, elem reflect.Type, shape []int64) reflect.Value {
	typ := elem
	for range shape {
		typ = reflect.SliceOf(typ)
	}
	out := reflect.MakeSlice(typ, int(shape[0]), int(shape[0]))
	if len(shape) == 1 {
		reflect.Copy(out, src)
		return out
	}
	stride := 1
	for _, d := range shape[1:] {
		stride *= int(d)
	}
	for i := 0; i < int(shape[0]); i++ {
		out.Index(i).Set(build(src.Slice(i*stride, (i+1)*stride), elem, shape[1:]))
	}
	return out
}

// WriteContentsTo writes the raw row-major element bytes (native little-endian) to w; string
// tensors have no raw byte form (read them with Value).
func (t *Tensor) WriteContentsTo(w io.Writer) (int64, error) {
	if t == nil || t.c == nil {
		return 0, errorf(FailedPrecondition, "the tensor was deleted")
	}
	if t.DataType() == String {
		return 0, errorf(Unimplemented, "string tensors have no raw byte form; use Value")
	}
	defer runtime.KeepAlive(t)
	n := int(C.TX_TensorByteSize(t.c))
	if n == 0 {
		return 0, nil
	}
	buf := make([]byte, n)
	copy(buf, unsafe.Slice((*byte)(C.TX_TensorData(t.c)), n))
	written, err := w.Write(buf)
	return int64(written), err
}
