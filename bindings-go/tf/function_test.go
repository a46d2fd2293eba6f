package tf

import (
	"bytes"
	"math"
	"reflect"
	"testing"
)

// add adds an op to g inside a BuildFunction closure, recording the first error in *err.
func add(g *Graph, err *error, typ string, inputs ...Output) Output {
	if *err != nil {
		return Output{}
	}
	in := make([]Input, len(inputs))
	for i, o := range inputs {
		in[i] = o
	}
	op, e := g.AddOperation(OpSpec{Type: typ, Input: in})
	if e != nil {
		*err = e
		return Output{}
	}
	return op.Output(0)
}

// constIn adds a scalar constant to g (for closures).
func constIn(g *Graph, err *error, value interface{}) Output {
	if *err != nil {
		return Output{}
	}
	v, e := NewTensor(value)
	if e == nil {
		var op *Operation
		op, e = g.AddOperation(OpSpec{Type: "Const", Attrs: map[string]interface{}{"dtype": v.DataType(), "value": v}})
		if e == nil {
			return op.Output(0)
		}
	}
	*err = e
	return Output{}
}

// whileLoop adds a While over init with cond and body built from closures.
func whileLoop(t *testing.T, g *Graph, init []Output, cond, body func(g *Graph, args []Output) ([]Output, error)) *Operation {
	t.Helper()
	types := make([]DataType, len(init))
	for i, o := range init {
		types[i] = o.DataType()
	}
	c, err := BuildFunction("cond", types, cond)
	if err != nil {
		t.Fatal(err)
	}
	b, err := BuildFunction("body", types, body)
	if err != nil {
		t.Fatal(err)
	}
	w, err := g.AddOperation(OpSpec{Type: "While", Input: []Input{OutputList(init)},
		Attrs: map[string]interface{}{"T": types, "cond": c, "body": b}})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func TestWhileSum(t *testing.T) {
	g := NewGraph()
	n := placeholder(t, g, "n", Int32)
	w := whileLoop(t, g, []Output{constOp(t, g, "i0", int32(1)), n, constOp(t, g, "s0", int32(0))},
		func(g *Graph, a []Output) ([]Output, error) { // i <= n
			var err error
			return []Output{add(g, &err, "LessEqual", a[0], a[1])}, err
		},
		func(g *Graph, a []Output) ([]Output, error) { // (i + 1, n, sum + i)
			var err error
			next := add(g, &err, "AddV2", a[0], constIn(g, &err, int32(1)))
			return []Output{next, a[1], add(g, &err, "AddV2", a[2], a[0])}, err
		})
	s, err := NewSession(g, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, nv := range []int32{0, 1, 10, 100} {
		feed, _ := NewTensor(nv)
		out, err := s.Run(map[Output]*Tensor{n: feed}, []Output{w.Output(2)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := out[0].Value().(int32); got != nv*(nv+1)/2 {
			t.Errorf("sum(1..%d) = %d", nv, got)
		}
	}
	if got, err := w.Attr("body"); err != nil || got != "body" {
		t.Errorf("body attr = %v, %v", got, err)
	}
	if g.NumFunctions() != 2 {
		t.Errorf("%d functions in the library", g.NumFunctions())
	}
}

// powerLoop adds a While computing x * w^n for float x, w and int n, returning the result.
func powerLoop(t *testing.T, g *Graph, x, w, n Output) Output {
	t.Helper()
	loop := whileLoop(t, g, []Output{constOp(t, g, "k0", int32(0)), n, x, w},
		func(g *Graph, a []Output) ([]Output, error) {
			var err error
			return []Output{add(g, &err, "Less", a[0], a[1])}, err
		},
		func(g *Graph, a []Output) ([]Output, error) {
			var err error
			next := add(g, &err, "AddV2", a[0], constIn(g, &err, int32(1)))
			return []Output{next, a[1], add(g, &err, "Mul", a[2], a[3]), a[3]}, err
		})
	return loop.Output(2)
}

func TestWhileGradient(t *testing.T) {
	g := NewGraph()
	x := placeholder(t, g, "x", Float)
	w := placeholder(t, g, "w", Float)
	n := placeholder(t, g, "n", Int32)
	y := powerLoop(t, g, x, w, n)
	grads, err := g.AddGradients("", []Output{y}, []Output{x, w}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewSession(g, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, tc := range []struct {
		x, w float32
		n    int32
	}{{2, 1.5, 3}, {-1, 0.5, 5}, {3, 2, 0}, {1, -1.25, 4}} {
		xv, _ := NewTensor(tc.x)
		wv, _ := NewTensor(tc.w)
		nv, _ := NewTensor(tc.n)
		out, err := s.Run(map[Output]*Tensor{x: xv, w: wv, n: nv}, []Output{y, grads[0], grads[1]}, nil)
		if err != nil {
			t.Fatal(err)
		}
		xf, wf, nf := float64(tc.x), float64(tc.w), float64(tc.n)
		want := []float64{xf * math.Pow(wf, nf), math.Pow(wf, nf), 0}
		if tc.n > 0 {
			want[2] = nf * xf * math.Pow(wf, nf-1)
		}
		for k, o := range out {
			if got := float64(o.Value().(float32)); math.Abs(got-want[k]) > 1e-4*math.Max(1, math.Abs(want[k])) {
				t.Errorf("x=%v w=%v n=%d: output %d = %v, want %v", tc.x, tc.w, tc.n, k, got, want[k])
			}
		}
	}
}

func TestIf(t *testing.T) {
	g := NewGraph()
	pred := placeholder(t, g, "pred", Bool)
	x := placeholder(t, g, "x", Float)
	float := []DataType{Float}
	twice, err := BuildFunction("twice", float, func(g *Graph, a []Output) ([]Output, error) {
		var err error
		return []Output{add(g, &err, "AddV2", a[0], a[0])}, err
	})
	if err != nil {
		t.Fatal(err)
	}
	square, err := BuildFunction("square", float, func(g *Graph, a []Output) ([]Output, error) {
		var err error
		return []Output{add(g, &err, "Mul", a[0], a[0])}, err
	})
	if err != nil {
		t.Fatal(err)
	}
	ifOp, err := g.AddOperation(OpSpec{Type: "If", Input: []Input{pred, OutputList{x}},
		Attrs: map[string]interface{}{"Tcond": Bool, "Tin": float, "Tout": float, "then_branch": twice,
			"else_branch": square}})
	if err != nil {
		t.Fatal(err)
	}
	grads, err := g.AddGradients("grad", []Output{ifOp.Output(0)}, []Output{x}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		pred            bool
		x, want, wantDx float32
	}{{true, 3, 6, 2}, {false, 3, 9, 6}, {false, -0.5, 0.25, -1}} {
		pv, _ := NewTensor(tc.pred)
		xv, _ := NewTensor(tc.x)
		s, err := NewSession(g, nil)
		if err != nil {
			t.Fatal(err)
		}
		out, err := s.Run(map[Output]*Tensor{pred: pv, x: xv}, []Output{ifOp.Output(0), grads[0]}, nil)
		s.Close()
		if err != nil {
			t.Fatal(err)
		}
		if y, dx := out[0].Value().(float32), out[1].Value().(float32); y != tc.want || dx != tc.wantDx {
			t.Errorf("If(%v, %v) = %v, d/dx %v; want %v, %v", tc.pred, tc.x, y, dx, tc.want, tc.wantDx)
		}
	}
}

func TestFunctionDefAndErrors(t *testing.T) {
	f, err := BuildFunction("neg", []DataType{Double}, func(g *Graph, a []Output) ([]Output, error) {
		var err error
		return []Output{add(g, &err, "Neg", a[0])}, err
	})
	if err != nil {
		t.Fatal(err)
	}
	def, err := f.FunctionDef()
	if err != nil || len(def) == 0 || !bytes.Contains(def, []byte("neg")) {
		t.Fatalf("FunctionDef: %d bytes, %v", len(def), err)
	}
	imported, err := ImportFunction(def)
	if err != nil || imported.Name() != "neg" {
		t.Fatalf("ImportFunction: %v %v", imported, err)
	}
	g := NewGraph()
	x := placeholder(t, g, "x", Double)
	call, err := g.AddOperation(OpSpec{Type: "PartitionedCall", Input: []Input{OutputList{x}},
		Attrs: map[string]interface{}{"Tin": []DataType{Double}, "Tout": []DataType{Double}, "f": imported}})
	if err != nil {
		t.Fatal(err)
	}
	xv, _ := NewTensor([]float64{1, -2})
	if got := runOne(t, g, map[Output]*Tensor{x: xv}, call.Output(0)); !reflect.DeepEqual(got, []float64{-1, 2}) {
		t.Errorf("call = %v", got)
	}
	fns, err := g.Functions()
	if err != nil || len(fns) != 1 || fns[0].Name() != "neg" {
		t.Errorf("Functions = %v, %v", fns, err)
	}
	// Errors: the closure's error, a result from another graph, bad FunctionDef bytes, a
	// function whose name is taken by another definition.
	if _, err := BuildFunction("bad", nil, func(g *Graph, a []Output) ([]Output, error) {
		var err error
		return []Output{add(g, &err, "NoSuchOp")}, err
	}); err == nil {
		t.Error("closure error not returned")
	}
	if _, err := BuildFunction("foreign", nil, func(*Graph, []Output) ([]Output, error) {
		return []Output{x}, nil
	}); err == nil {
		t.Error("result of another graph: no error")
	}
	if _, err := ImportFunction([]byte{0xff, 0x01}); err == nil {
		t.Error("ImportFunction(garbage): no error")
	}
	other, err := BuildFunction("neg", []DataType{Float}, func(g *Graph, a []Output) ([]Output, error) {
		return []Output{a[0]}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := g.AddFunction(other); err == nil {
		t.Error("a different function under a taken name: no error")
	}
	f.Delete()
	if err := g.AddFunction(f); err == nil {
		t.Error("AddFunction(deleted): no error")
	}
}
