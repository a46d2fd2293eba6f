package op

import (
	"reflect"
	"strings"
	"testing"

	tf "github.com/tensorflux/tensorflux/bindings-go/tf"
)

// newSession finalizes s and opens a session on its graph; the test closes it at the end.
func newSession(t *testing.T, s *Scope) *tf.Session {
	t.Helper()
	g, err := s.Finalize()
	if err != nil {
		t.Fatal(err)
	}
	sess, err := tf.NewSession(g, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	return sess
}

// runGraph finalizes s, runs fetches with feeds and returns their values.
func runGraph(t *testing.T, s *Scope, feeds map[tf.Output]*tf.Tensor, fetches ...tf.Output) []interface{} {
	t.Helper()
	sess := newSession(t, s)
	out, err := sess.Run(feeds, fetches, nil)
	if err != nil {
		t.Fatal(err)
	}
	values := make([]interface{}, len(out))
	for i, v := range out {
		values[i] = v.Value()
	}
	return values
}

func expectEqual(t *testing.T, what string, got, want interface{}) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: got %v (%T), want %v (%T)", what, got, got, want, want)
	}
}

func TestMatMulWithOptionsAndPlaceholder(t *testing.T) {
	s := NewScope()
	x := Placeholder(s, tf.Float, PlaceholderShape(tf.MakeShape(-1, 2)))
	w := Const(s, [][]float32{{1, 2, 3}, {4, 5, 6}})
	y := MatMul(s, x, w)                                                  // [n,2] x [2,3]
	yt := MatMul(s, w, x, MatMulTransposeA(true), MatMulTransposeB(true)) // [3,2] x [2,n]
	sum := Add(s, y, Const(s, []float32{10, 20, 30}))
	feed, err := tf.NewTensor([][]float32{{1, 0}, {0, 2}})
	if err != nil {
		t.Fatal(err)
	}
	if x.DataType() != tf.Float || y.DataType() != tf.Float {
		t.Errorf("dtypes %v, %v, want Float", x.DataType(), y.DataType())
	}
	got := runGraph(t, s, map[tf.Output]*tf.Tensor{x: feed}, y, yt, sum)
	expectEqual(t, "MatMul", got[0], [][]float32{{1, 2, 3}, {8, 10, 12}})
	expectEqual(t, "MatMul transposed", got[1], [][]float32{{1, 8}, {2, 10}, {3, 12}})
	expectEqual(t, "Add", got[2], [][]float32{{11, 22, 33}, {18, 30, 42}})
}

func TestListInputs(t *testing.T) {
	s := NewScope()
	a := Const(s, [][]int32{{1, 2}})
	b := Const(s, [][]int32{{3, 4}, {5, 6}})
	concat := ConcatV2(s, []tf.Output{a, b, a}, Const(s, int32(0)))
	sum := AddN(s, []tf.Output{a, a, Const(s, [][]int32{{10, 10}})})
	packed := Pack(s, []tf.Output{Const(s, int64(1)), Const(s, int64(2))}, PackAxis(0))
	got := runGraph(t, s, nil, concat, sum, packed)
	expectEqual(t, "ConcatV2", got[0], [][]int32{{1, 2}, {3, 4}, {5, 6}, {1, 2}})
	expectEqual(t, "AddN", got[1], [][]int32{{12, 14}})
	expectEqual(t, "Pack", got[2], []int64{1, 2})
}

func TestListAndMultipleOutputs(t *testing.T) {
	s := NewScope()
	parts := Split(s, Const(s, int32(1)), Const(s, [][]float64{{1, 2, 3, 4}, {5, 6, 7, 8}}), 2)
	if len(parts) != 2 {
		t.Fatalf("Split gave %d outputs, want 2", len(parts))
	}
	y, idx := TopKV2(s, Const(s, []int32{4, 1, 5, 2}), Const(s, int32(2)), TopKV2IndexType(tf.Int64))
	if idx.DataType() != tf.Int64 {
		t.Errorf("TopKV2 indices dtype %v, want Int64", idx.DataType())
	}
	got := runGraph(t, s, nil, parts[0], parts[1], y, idx)
	expectEqual(t, "Split[0]", got[0], [][]float64{{1, 2}, {5, 6}})
	expectEqual(t, "Split[1]", got[1], [][]float64{{3, 4}, {7, 8}})
	expectEqual(t, "TopKV2 values", got[2], []int32{5, 4})
	expectEqual(t, "TopKV2 indices", got[3], []int64{2, 0})
}

func TestRequiredTypeAttrAndShapeError(t *testing.T) {
	s := NewScope()
	c := Cast(s, Const(s, []float32{1.5, -2.5}), tf.Int32)
	got := runGraph(t, s, nil, c)
	expectEqual(t, "Cast", got[0], []int32{1, -2})

	s = NewScope()
	Reshape(s, Const(s, []float32{1, 2, 3}), Const(s, []int32{2, 2}))
	if s.Err() == nil || !strings.Contains(s.Err().Error(), "Reshape") {
		t.Errorf("got %v, want a Reshape error", s.Err())
	}
}

func TestOpWithoutOutputsAndVariables(t *testing.T) {
	s := NewScope()
	v := VarHandleOp(s, tf.Float, tf.MakeShape(2), VarHandleOpSharedName("v"))
	assign := AssignVariableOp(s, v, Const(s, []float32{1, 2}))
	update := AssignAddVariableOp(s.WithControlDependencies(assign), v, Const(s, []float32{10, 10}))
	read := ReadVariableOp(s.WithControlDependencies(update), v, tf.Float)
	if assign == nil || update == nil {
		t.Fatal("ops without outputs returned no operation")
	}
	got := runGraph(t, s, nil, read)
	expectEqual(t, "ReadVariableOp", got[0], []float32{11, 12})
}
