package tf

import (
	"strings"
	"testing"
)

// opIn adds op typ with inputs and attrs to g inside a BuildFunction closure, recording the first
// error in *err; returns output k.
func opIn(g *Graph, err *error, typ string, attrs map[string]interface{}, k int, inputs ...Output) Output {
	if *err != nil {
		return Output{}
	}
	in := make([]Input, len(inputs))
	for i, o := range inputs {
		in[i] = o
	}
	op, e := g.AddOperation(OpSpec{Type: typ, Input: in, Attrs: attrs})
	if e != nil {
		*err = e
		return Output{}
	}
	return op.Output(k)
}

var floatList = map[string]interface{}{"element_dtype": Float}

// A While loop writes 2 * x[i] into element i of a TensorList (the list is a variant loop
// variable), then the list is stacked; the gradient of its sum flows back through the list.
func TestTensorListLoop(t *testing.T) {
	g := NewGraph()
	x := placeholder(t, g, "x", Float)
	var err error
	rows := opIn(g, &err, "StridedSlice", map[string]interface{}{"shrink_axis_mask": int64(1)}, 0,
		opIn(g, &err, "Shape", nil, 0, x), constOp(t, g, "b", []int32{0}), constOp(t, g, "e", []int32{1}),
		constOp(t, g, "s", []int32{1}))
	list := opIn(g, &err, "TensorListReserve", map[string]interface{}{"element_dtype": Float}, 0,
		constOp(t, g, "shape", []int32{2}), rows)
	if err != nil {
		t.Fatal(err)
	}
	w := whileLoop(t, g, []Output{constOp(t, g, "i0", int32(0)), rows, x, list},
		func(g *Graph, a []Output) ([]Output, error) {
			var err error
			return []Output{add(g, &err, "Less", a[0], a[1])}, err
		},
		func(g *Graph, a []Output) ([]Output, error) {
			var err error
			row := opIn(g, &err, "GatherV2", nil, 0, a[2], a[0], constIn(g, &err, int32(0)))
			twice := add(g, &err, "AddV2", row, row)
			written := opIn(g, &err, "TensorListSetItem", floatList, 0, a[3], a[0], twice)
			return []Output{add(g, &err, "AddV2", a[0], constIn(g, &err, int32(1))), a[1], a[2], written}, err
		})
	stacked := opIn(g, &err, "TensorListStack", floatList, 0, w.Output(3), constOp(t, g, "eshape", []int32{2}))
	total := opIn(g, &err, "Sum", nil, 0, stacked, constOp(t, g, "axes", []int32{0, 1}))
	index := placeholder(t, g, "index", Int32)
	item := opIn(g, &err, "TensorListGetItem", floatList, 0, w.Output(3), index, constOp(t, g, "ishape", []int32{2}))
	if err != nil {
		t.Fatal(err)
	}
	if w.Output(3).DataType() != Variant {
		t.Errorf("the list is a %v loop variable", w.Output(3).DataType())
	}
	grads, err := g.AddGradients("", []Output{total}, []Output{x}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewSession(g, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	xv, _ := NewTensor([][]float32{{1, 2}, {3, 4}, {5, 6}})
	iv, _ := NewTensor(int32(1))
	out, err := s.Run(map[Output]*Tensor{x: xv, index: iv}, []Output{stacked, grads[0], item}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := out[0].Value().([][]float32)
	want := [][]float32{{2, 4}, {6, 8}, {10, 12}}
	for i := range want {
		for j := range want[i] {
			if got[i][j] != want[i][j] {
				t.Errorf("stacked[%d][%d] = %v, want %v", i, j, got[i][j], want[i][j])
			}
			if d := out[1].Value().([][]float32)[i][j]; d != 2 {
				t.Errorf("gradient[%d][%d] = %v, want 2", i, j, d)
			}
		}
	}
	if it := out[2].Value().([]float32); it[0] != 6 || it[1] != 8 {
		t.Errorf("item 1 = %v", it)
	}
	// Reading past the end fails naming the node; the session keeps working.
	bad, _ := NewTensor(int32(7))
	_, err = s.Run(map[Output]*Tensor{x: xv, index: bad}, []Output{item}, nil)
	if err == nil || !strings.Contains(err.Error(), "TensorListGetItem") ||
		!strings.Contains(err.Error(), "Trying to access element 7 in a list with 3 elements") {
		t.Errorf("reading past the end: %v", err)
	}
	if _, err := s.Run(map[Output]*Tensor{x: xv, index: iv}, []Output{item}, nil); err != nil {
		t.Errorf("after the error: %v", err)
	}
}
