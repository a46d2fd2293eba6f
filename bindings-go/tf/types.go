package tf

// #include "tensorflux/c/c_api.h"
import "C"

import (
	"fmt"
	"math"
	"reflect"
)

// DataType is a tensor element type; the values equal TX_DataType (TensorFlow's DataType enum).
type DataType C.TX_DataType

// The data types.
const (
	Float      DataType = C.TX_FLOAT
	Double     DataType = C.TX_DOUBLE
	Int32      DataType = C.TX_INT32
	Uint8      DataType = C.TX_UINT8
	Int16      DataType = C.TX_INT16
	Int8       DataType = C.TX_INT8
	String     DataType = C.TX_STRING
	Complex64  DataType = C.TX_COMPLEX64
	Int64      DataType = C.TX_INT64
	Bool       DataType = C.TX_BOOL
	BFloat16   DataType = C.TX_BFLOAT16
	Uint16     DataType = C.TX_UINT16
	Complex128 DataType = C.TX_COMPLEX128
	Half       DataType = C.TX_HALF
	Resource   DataType = C.TX_RESOURCE
	Variant    DataType = C.TX_VARIANT
	Uint32     DataType = C.TX_UINT32
	Uint64     DataType = C.TX_UINT64
)

// Float16 holds the bits of an IEEE 754 half-precision number: the Go element type of Half tensors.
type Float16 uint16

// BrainFloat16 holds the bits of a bfloat16 number (the top half of a float32): the Go element
// type of BFloat16 tensors.
type BrainFloat16 uint16

var dtypeNames = map[DataType]string{
	Float: "float32", Double: "float64", Int32: "int32", Uint8: "uint8", Int16: "int16", Int8: "int8",
	String: "string", Complex64: "complex64", Int64: "int64", Bool: "bool", BFloat16: "bfloat16", Uint16: "uint16",
	Complex128: "complex128", Half: "float16", Resource: "resource", Variant: "variant", Uint32: "uint32",
	Uint64: "uint64",
}

// String is the type's name as TensorFlow's Python spells it, e.g. "float32".
func (dt DataType) String() string {
	if s, ok := dtypeNames[dt]; ok {
		return s
	}
	return fmt.Sprintf("DataType(%d)", int(dt))
}

// byteSize is the size of one element (0 for types without a fixed size).
func (dt DataType) byteSize() int { return int(C.TX_DataTypeSize(C.TX_DataType(dt))) }

// goTypes maps each data type that Go values can hold to its Go element type.
var goTypes = map[DataType]reflect.Type{
	Float: reflect.TypeOf(float32(0)), Double: reflect.TypeOf(float64(0)),
	Int8: reflect.TypeOf(int8(0)), Int16: reflect.TypeOf(int16(0)), Int32: reflect.TypeOf(int32(0)),
	Int64: reflect.TypeOf(int64(0)), Uint8: reflect.TypeOf(uint8(0)), Uint16: reflect.TypeOf(uint16(0)),
	Uint32: reflect.TypeOf(uint32(0)), Uint64: reflect.TypeOf(uint64(0)), Bool: reflect.TypeOf(false),
	Complex64: reflect.TypeOf(complex64(0)), Complex128: reflect.TypeOf(complex128(0)),
	Half: reflect.TypeOf(Float16(0)), BFloat16: reflect.TypeOf(BrainFloat16(0)), String: reflect.TypeOf(""),
}

// dataTypeOf returns the data type of Go element type t (by kind, so named types work too).
func dataTypeOf(t reflect.Type) (DataType, error) {
	switch t {
	case goTypes[Half]:
		return Half, nil
	case goTypes[BFloat16]:
		return BFloat16, nil
	}
	switch t.Kind() {
	case reflect.Float32:
		return Float, nil
	case reflect.Float64:
		return Double, nil
	case reflect.Int8:
		return Int8, nil
	case reflect.Int16:
		return Int16, nil
	case reflect.Int32:
		return Int32, nil
	case reflect.Int64:
		return Int64, nil
	case reflect.Int:
		if t.Size() == 8 {
			return Int64, nil
		}
		return Int32, nil
	case reflect.Uint8:
		return Uint8, nil
	case reflect.Uint16:
		return Uint16, nil
	case reflect.Uint32:
		return Uint32, nil
	case reflect.Uint64:
		return Uint64, nil
	case reflect.Uint:
		if t.Size() == 8 {
			return Uint64, nil
		}
		return Uint32, nil
	case reflect.Bool:
		return Bool, nil
	case reflect.Complex64:
		return Complex64, nil
	case reflect.Complex128:
		return Complex128, nil
	case reflect.String:
		return String, nil
	}
	return 0, errorf(InvalidArgument, "unsupported Go type %v for a tensor element", t)
}

// Float16FromFloat32 rounds f to the nearest half-precision value (ties to even).
func Float16FromFloat32(f float32) Float16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int32(b>>23&0xff) - 127 + 15
	mant := b & 0x7fffff
	switch {
	case b&0x7fffffff > 0x7f800000: // NaN
		return Float16(sign | 0x7e00)
	case exp >= 31: // overflow or infinity
		return Float16(sign | 0x7c00)
	case exp <= 0: // subnormal or zero
		if exp < -10 {
			return Float16(sign)
		}
		mant |= 0x800000
		shift := uint32(14 - exp)
		half := mant >> shift
		rem := mant & (1<<shift - 1)
		mid := uint32(1) << (shift - 1)
		if rem > mid || (rem == mid && half&1 == 1) {
			half++
		}
		return Float16(sign | uint16(half))
	}
	h := uint32(exp)<<10 | mant>>13
	rem := mant & 0x1fff
	if rem > 0x1000 || (rem == 0x1000 && h&1 == 1) {
		h++ // may carry into the exponent, which rounds up to infinity correctly
	}
	return Float16(sign | uint16(h))
}

// Float32 converts the half-precision value exactly.
func (h Float16) Float32() float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	case exp == 0:
		return math.Float32frombits(sign) + float32(mant)*float32(math.Ldexp(1, -24))*sign32(sign)
	}
	return math.Float32frombits(sign | (exp+112)<<23 | mant<<13)
}

// sign32 is -1 for a set float32 sign bit, else 1.
func sign32(sign uint32) float32 {
	if sign != 0 {
		return -1
	}
	return 1
}

// BrainFloat16FromFloat32 rounds f to the nearest bfloat16 value (ties to even).
func BrainFloat16FromFloat32(f float32) BrainFloat16 {
	b := math.Float32bits(f)
	if b&0x7fffffff > 0x7f800000 {
		return BrainFloat16(b>>16 | 0x40)
	}
	return BrainFloat16((b + 0x7fff + (b>>16)&1) >> 16)
}

// Float32 converts the bfloat16 value exactly.
func (h BrainFloat16) Float32() float32 { return math.Float32frombits(uint32(h) << 16) }
