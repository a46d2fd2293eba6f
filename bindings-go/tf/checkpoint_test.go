package tf

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestSafetensorsRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "model.safetensors")
	values := map[string]interface{}{
		"w":     [][]float32{{1, 2, 3}, {4, 5, 6}},
		"b":     []float64{-1, 0.5},
		"step":  int64(42),
		"mask":  []bool{true, false},
		"bytes": []uint8{},
		"half":  []Float16{Float16FromFloat32(0.25)},
	}
	tensors := map[string]*Tensor{}
	for k, v := range values {
		tensor, err := NewTensor(v)
		if err != nil {
			t.Fatal(err)
		}
		tensors[k] = tensor
	}
	meta := map[string]string{"format": "pt", "note": "made in Go"}
	if err := SaveSafetensors(path, tensors, meta); err != nil {
		t.Fatal(err)
	}
	got, gotMeta, err := LoadSafetensors(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(gotMeta, meta) {
		t.Errorf("metadata %v, want %v", gotMeta, meta)
	}
	if len(got) != len(values) {
		t.Errorf("%d tensors, want %d", len(got), len(values))
	}
	for k, v := range values {
		if got[k] == nil || !reflect.DeepEqual(got[k].Value(), v) {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	// A restored tensor feeds a graph like any other.
	g := NewGraph()
	x := placeholder(t, g, "x", Float)
	sum, err := g.AddOperation(OpSpec{Type: "Sum", Input: []Input{x, constOp(t, g, "axes", []int32{0, 1})}})
	if err != nil {
		t.Fatal(err)
	}
	if v := runOne(t, g, map[Output]*Tensor{x: got["w"]}, sum.Output(0)); v != float32(21) {
		t.Errorf("sum = %v", v)
	}
}

func TestSafetensorsErrors(t *testing.T) {
	dir := t.TempDir()
	_, _, err := LoadSafetensors(filepath.Join(dir, "missing.safetensors"))
	wantCode(t, err, NotFound)
	corrupt := filepath.Join(dir, "corrupt.safetensors")
	if err := os.WriteFile(corrupt, []byte{200, 0, 0, 0, 0, 0, 0, 0, '{'}, 0o600); err != nil {
		t.Fatal(err)
	}
	_, _, err = LoadSafetensors(corrupt)
	wantCode(t, err, DataLoss)
	good, _ := NewTensor([]float32{1})
	path := filepath.Join(dir, "x.safetensors")
	if err := SaveSafetensors(path, map[string]*Tensor{"": good}, nil); err == nil {
		t.Error("empty name: no error")
	}
	if err := SaveSafetensors(path, map[string]*Tensor{"t": nil}, nil); err == nil {
		t.Error("nil tensor: no error")
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Error("a failed save wrote the file")
	}
	if err := SaveSafetensors(filepath.Join(dir, "no", "such", "dir.safetensors"), map[string]*Tensor{"t": good}, nil); err == nil {
		t.Error("unwritable path: no error")
	}
}
