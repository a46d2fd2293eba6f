package tf

import (
	"bytes"
	"math"
	"reflect"
	"testing"
)

func TestNewTensorRoundTrip(t *testing.T) {
	tests := []struct {
		value interface{}
		dtype DataType
		shape []int64
	}{
		{float32(2.5), Float, []int64{}},
		{float64(-1), Double, []int64{}},
		{int8(-3), Int8, []int64{}},
		{int16(300), Int16, []int64{}},
		{int32(7), Int32, []int64{}},
		{int64(1 << 40), Int64, []int64{}},
		{uint8(200), Uint8, []int64{}},
		{uint16(60000), Uint16, []int64{}},
		{uint32(1 << 31), Uint32, []int64{}},
		{uint64(1 << 63), Uint64, []int64{}},
		{true, Bool, []int64{}},
		{complex64(1 + 2i), Complex64, []int64{}},
		{complex128(3 - 4i), Complex128, []int64{}},
		{Float16FromFloat32(1.5), Half, []int64{}},
		{BrainFloat16FromFloat32(-2), BFloat16, []int64{}},
		{[]float32{1, 2, 3}, Float, []int64{3}},
		{[][]int32{{1, 2, 3}, {4, 5, 6}}, Int32, []int64{2, 3}},
		{[][][]bool{{{true}, {false}}}, Bool, []int64{1, 2, 1}},
		{[]int64{}, Int64, []int64{0}},
		{[][]float64{}, Double, []int64{0, 0}},
		{[][]float64{{}, {}}, Double, []int64{2, 0}},
		{[]complex128{1i, 2}, Complex128, []int64{2}},
		{[]uint64{math.MaxUint64}, Uint64, []int64{1}},
	}
	for _, tc := range tests {
		tensor, err := NewTensor(tc.value)
		if err != nil {
			t.Errorf("NewTensor(%#v): %v", tc.value, err)
			continue
		}
		if tensor.DataType() != tc.dtype {
			t.Errorf("NewTensor(%#v).DataType() = %v, want %v", tc.value, tensor.DataType(), tc.dtype)
		}
		if !reflect.DeepEqual(tensor.Shape(), tc.shape) {
			t.Errorf("NewTensor(%#v).Shape() = %v, want %v", tc.value, tensor.Shape(), tc.shape)
		}
		if got := tensor.Value(); !reflect.DeepEqual(got, tc.value) {
			t.Errorf("Value() = %#v, want %#v", got, tc.value)
		}
	}
}

func TestNewTensorConversions(t *testing.T) {
	tests := []struct {
		value, want interface{}
		dtype       DataType
	}{
		{[2][3]int{{1, 2, 3}, {4, 5, 6}}, [][]int64{{1, 2, 3}, {4, 5, 6}}, Int64}, // arrays, Go int
		{[]uint{1, 2}, []uint64{1, 2}, Uint64},
	}
	for _, tc := range tests {
		tensor, err := NewTensor(tc.value)
		if err != nil {
			t.Fatalf("NewTensor(%#v): %v", tc.value, err)
		}
		if tensor.DataType() != tc.dtype {
			t.Errorf("dtype %v, want %v", tensor.DataType(), tc.dtype)
		}
		if got := tensor.Value(); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Value() = %#v, want %#v", got, tc.want)
		}
	}
}

func TestNewTensorErrors(t *testing.T) {
	tests := []struct {
		name  string
		value interface{}
	}{
		{"nil", nil},
		{"map", map[int]int{}},
		{"struct", struct{}{}},
		{"pointer", new(float32)},
		{"ragged", [][]float32{{1, 2}, {3}}},
		{"ragged deep", [][][]int32{{{1}, {2}}, {{3}, {4, 5}}}},
		{"interface slice", []interface{}{1, 2}},
	}
	for _, tc := range tests {
		tensor, err := NewTensor(tc.value)
		if tensor != nil || err == nil {
			t.Errorf("%s: NewTensor(%#v) = %v, nil; want an error", tc.name, tc.value, tensor)
			continue
		}
		wantCode(t, err, InvalidArgument)
	}
}

func TestReadWriteTensor(t *testing.T) {
	src, err := NewTensor([][]float64{{1.5, -2}, {3, 4e10}})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if n, err := src.WriteContentsTo(&buf); err != nil || n != 32 {
		t.Fatalf("WriteContentsTo = %d, %v", n, err)
	}
	dst, err := ReadTensor(Double, []int64{2, 2}, &buf)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(dst.Value(), src.Value()) {
		t.Errorf("read %v, wrote %v", dst.Value(), src.Value())
	}
	// Too few bytes, a negative dim, and a type Go cannot build are errors.
	if _, err := ReadTensor(Float, []int64{3}, bytes.NewReader(make([]byte, 8))); err == nil {
		t.Error("short read: no error")
	}
	if _, err := ReadTensor(Float, []int64{-1}, bytes.NewReader(nil)); err == nil {
		t.Error("negative dim: no error")
	}
	if _, err := ReadTensor(Resource, []int64{}, bytes.NewReader(nil)); err == nil {
		t.Error("resource: no error")
	}
}

func TestTensorDelete(t *testing.T) {
	tensor, err := NewTensor([]int32{1, 2})
	if err != nil {
		t.Fatal(err)
	}
	tensor.Delete()
	tensor.Delete() // twice is fine
	if tensor.Value() != nil || tensor.DataType() != 0 {
		t.Error("a deleted tensor still has a value")
	}
	if _, err := tensor.WriteContentsTo(&bytes.Buffer{}); err == nil {
		t.Error("WriteContentsTo on a deleted tensor: no error")
	}
}

func TestHalfConversions(t *testing.T) {
	for _, f := range []float32{0, 1, -1, 0.5, 65504, 6.1035156e-05, 5.9604645e-08, float32(math.Inf(1))} {
		if got := Float16FromFloat32(f).Float32(); got != f {
			t.Errorf("half(%v) = %v", f, got)
		}
	}
	if got := Float16FromFloat32(1e6).Float32(); !math.IsInf(float64(got), 1) {
		t.Errorf("half(1e6) = %v, want +Inf", got)
	}
	if got := Float16FromFloat32(float32(math.NaN())).Float32(); !math.IsNaN(float64(got)) {
		t.Errorf("half(NaN) = %v", got)
	}
	for _, f := range []float32{0, 1, -2, 3.5, 1 << 20} {
		if got := BrainFloat16FromFloat32(f).Float32(); got != f {
			t.Errorf("bfloat16(%v) = %v", f, got)
		}
	}
	if got := BrainFloat16FromFloat32(1.00390625).Float32(); got != 1 { // tie rounds to even
		t.Errorf("bfloat16(1+2^-8) = %v, want 1", got)
	}
}
