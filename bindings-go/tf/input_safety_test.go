package tf

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"unsafe"
)

// Bool tensors read from raw bytes 0, 1, 2, 255 hold canonical 0/1 values (see "Bool tensors" in
// c_api.h), so a Go bool from them is never both true and !true.
func TestReadTensorBoolIsCanonical(t *testing.T) {
	x, err := ReadTensor(Bool, []int64{4}, bytes.NewReader([]byte{0, 1, 2, 255}))
	if err != nil {
		t.Fatal(err)
	}
	got := x.Value().([]bool)
	if want := []bool{false, true, true, true}; !reflect.DeepEqual(got, want) {
		t.Fatalf("Value = %v, want %v", got, want)
	}
	for i, b := range got {
		if raw := *(*byte)(unsafe.Pointer(&got[i])); raw > 1 || b == !b {
			t.Fatalf("element %d holds byte %d", i, raw)
		}
	}
	var buf bytes.Buffer
	if _, err := x.WriteContentsTo(&buf); err != nil || !bytes.Equal(buf.Bytes(), []byte{0, 1, 1, 1}) {
		t.Fatalf("contents %v, %v", buf.Bytes(), err)
	}
	g := NewGraph()
	p := placeholder(t, g, "p", Bool)
	not := runOne(t, g, map[Output]*Tensor{p: x}, unaryOp(t, g, "LogicalNot", p))
	if want := []bool{true, false, false, false}; !reflect.DeepEqual(not, want) {
		t.Fatalf("LogicalNot = %v, want %v", not, want)
	}
}

// A valid empty tensor whose nested Go value would need 2^40 slices is an error, not a crash.
func TestHugeEmptyTensorValue(t *testing.T) {
	x, err := ReadTensor(Float, []int64{1 << 40, 0}, bytes.NewReader(nil))
	if err != nil {
		t.Fatal(err)
	}
	v, err := x.TryValue()
	wantCode(t, err, ResourceExhausted)
	if v != nil || !strings.Contains(err.Error(), "shape [1099511627776 0] is too large for nested Go slices") {
		t.Fatalf("got %v, %v", v, err)
	}
	if x.Value() != nil {
		t.Fatal("Value of a too-large shape must be nil")
	}
	// Small empty shapes still give their nested value.
	y, _ := ReadTensor(Float, []int64{3, 0}, bytes.NewReader(nil))
	if got := y.Value().([][]float32); len(got) != 3 || len(got[0]) != 0 {
		t.Fatalf("Value = %v", got)
	}
}
