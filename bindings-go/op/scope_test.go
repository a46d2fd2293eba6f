package op

import (
	"strings"
	"testing"

	tf "github.com/tensorflux/tensorflux/bindings-go/tf"
)

func TestScopeUniqueNames(t *testing.T) {
	s := NewScope()
	a := Const(s, float32(1))
	b := Const(s, float32(2))
	c := Add(s, a, b)
	d := Add(s, c, b)
	sub := s.SubScope("layer")
	e := Const(sub, float32(3))
	f := Const(sub.SubScope("inner"), float32(4))
	sub2 := s.SubScope("layer")
	g := Const(sub2, float32(5))
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	want := map[tf.Output]string{a: "Const", b: "Const_1", c: "Add", d: "Add_1", e: "layer/Const",
		f: "layer/inner/Const", g: "layer_1/Const"}
	for out, name := range want {
		if got := out.Op.Name(); got != name {
			t.Errorf("got name %q, want %q", got, name)
		}
	}
}

func TestScopeAvoidsNamesAlreadyInTheGraph(t *testing.T) {
	s := NewScope()
	Const(s, int32(1))
	Const(s.SubScope("ns"), int32(1))
	g, err := s.Finalize()
	if err != nil {
		t.Fatal(err)
	}
	s2 := NewScopeWithGraph(g)
	if got := Const(s2, int32(2)).Op.Name(); got != "Const_1" {
		t.Errorf("got %q, want Const_1", got)
	}
	if got := Const(s2.SubScope("ns"), int32(2)).Op.Name(); got != "ns/Const_1" {
		t.Errorf("got %q, want ns/Const_1", got)
	}
	if err := s2.Err(); err != nil {
		t.Fatal(err)
	}
}

func TestScopeExplicitNameIsMadeUnique(t *testing.T) {
	s := NewScope().SubScope("m")
	x := Const(s, float32(1))
	op1 := s.AddOperation(tf.OpSpec{Type: "Identity", Name: "out", Input: []tf.Input{x}})
	op2 := s.AddOperation(tf.OpSpec{Type: "Identity", Name: "out", Input: []tf.Input{x}})
	if s.Err() != nil {
		t.Fatal(s.Err())
	}
	if op1.Name() != "m/out" || op2.Name() != "m/out_1" {
		t.Errorf("got %q and %q, want m/out and m/out_1", op1.Name(), op2.Name())
	}
}

func TestScopeControlDependenciesAndDevice(t *testing.T) {
	s := NewScope()
	first := NoOp(s)
	second := NoOp(s)
	ctl := s.WithControlDependencies(first)
	x := Const(ctl, float32(1))
	y := Const(ctl.WithControlDependencies(second), float32(2))
	z := Const(s, float32(3))
	dev := s.WithDevice("/device:CPU:0")
	w := Const(dev, float32(4))
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	names := func(ops []*tf.Operation) []string {
		var out []string
		for _, op := range ops {
			out = append(out, op.Name())
		}
		return out
	}
	if got := names(x.Op.ControlInputs()); len(got) != 1 || got[0] != "NoOp" {
		t.Errorf("x: control inputs %v, want [NoOp]", got)
	}
	if got := strings.Join(names(y.Op.ControlInputs()), ","); got != "NoOp,NoOp_1" && got != "NoOp_1,NoOp" {
		t.Errorf("y: control inputs %v, want NoOp and NoOp_1", got)
	}
	if got := names(z.Op.ControlInputs()); len(got) != 0 {
		t.Errorf("z: control inputs %v, want none (the parent scope is unchanged)", got)
	}
	if got := w.Op.Device(); !strings.Contains(got, "CPU:0") {
		t.Errorf("w: device %q, want /device:CPU:0", got)
	}
	if got := z.Op.Device(); got != "" {
		t.Errorf("z: device %q, want none", got)
	}
}

func TestScopeFirstErrorSticks(t *testing.T) {
	s := NewScope()
	a := Const(s, [][]float32{{1, 2, 3}})
	b := Const(s, [][]float32{{1, 2}})
	bad := MatMul(s.SubScope("bad"), a, b) // [1,3] x [1,2]: inner dimensions differ
	if bad.Op != nil {
		t.Fatalf("a rejected MatMul returned an operation %q", bad.Op.Name())
	}
	first := s.Err()
	if first == nil || !strings.Contains(first.Error(), "MatMul") {
		t.Fatalf("got error %v, want one naming MatMul", first)
	}
	if c := Const(s, float32(1)); c.Op != nil {
		t.Error("Const after an error added an operation")
	}
	if op := s.AddOperation(tf.OpSpec{Type: "NoOp"}); op != nil {
		t.Error("AddOperation after an error added an operation")
	}
	if outs := Split(s, Const(s, int32(0)), a, 2); outs != nil {
		t.Error("Split after an error returned outputs")
	}
	g, err := s.Finalize()
	if g != nil || err != first {
		t.Errorf("Finalize returned (%v, %v), want (nil, the first error %v)", g, err, first)
	}
}

func TestScopeErrorsFromSubScopesReachTheRoot(t *testing.T) {
	s := NewScope()
	s.SubScope("x").AddOperation(tf.OpSpec{Type: "NoSuchOp"})
	if s.Err() == nil || !strings.Contains(s.Err().Error(), "NoSuchOp") {
		t.Fatalf("got %v, want an error naming NoSuchOp", s.Err())
	}
	if _, err := s.Finalize(); err == nil {
		t.Error("Finalize succeeded after an error")
	}
}

func TestScopeBadConstValue(t *testing.T) {
	s := NewScope()
	if out := Const(s, struct{}{}); out.Op != nil {
		t.Error("Const of a struct added an operation")
	}
	if s.Err() == nil || !strings.Contains(s.Err().Error(), "Const") {
		t.Errorf("got %v, want an error naming Const", s.Err())
	}
}

func TestScopeInvalidNamespace(t *testing.T) {
	for _, ns := range []string{"", "_hidden", "a/b", "sp ace"} {
		s := NewScope()
		Const(s.SubScope(ns), float32(1))
		if s.Err() == nil || !strings.Contains(s.Err().Error(), "namespace") {
			t.Errorf("SubScope(%q): got %v, want an invalid namespace error", ns, s.Err())
		}
	}
}

func TestScopeFinalizeTwice(t *testing.T) {
	s := NewScope()
	Const(s, float32(1))
	if _, err := s.Finalize(); err != nil {
		t.Fatal(err)
	}
	if Const(s, float32(2)).Op != nil {
		t.Error("an operation was added after Finalize")
	}
	if _, err := s.Finalize(); err == nil {
		t.Error("a second Finalize succeeded")
	}
}

func TestGradientsOfASmallGraph(t *testing.T) {
	s := NewScope()
	x := Const(s, []float32{1, 2, 3})
	w := Const(s, []float32{4, 5, 6})
	y := Sum(s, Mul(s, Mul(s, x, x), w), Const(s, int32(0))) // sum(w x^2)
	unrelated := Const(s, float32(0))
	g1 := Gradients(s, []tf.Output{y}, []tf.Output{x, w, unrelated})
	g2 := Gradients(s, []tf.Output{y}, []tf.Output{x}, Const(s, float32(10)))
	if s.Err() != nil {
		t.Fatal(s.Err())
	}
	if g1[2].Op != nil {
		t.Errorf("the gradient of an unrelated x is %v, want an Output with a nil Op", g1[2])
	}
	if !strings.HasPrefix(g1[0].Op.Name(), "Gradients/") || !strings.HasPrefix(g2[0].Op.Name(), "Gradients_1/") {
		t.Errorf("gradient ops %q and %q, want them under Gradients/ and Gradients_1/", g1[0].Op.Name(), g2[0].Op.Name())
	}
	got := runGraph(t, s, nil, g1[0], g1[1], g2[0])
	expectEqual(t, "dy/dx", got[0], []float32{8, 20, 36})
	expectEqual(t, "dy/dw", got[1], []float32{1, 4, 9})
	expectEqual(t, "10 dy/dx", got[2], []float32{80, 200, 360})

	s = NewScope()
	a := Const(s, float32(1))
	Gradients(s.WithControlDependencies(a.Op), []tf.Output{a}, []tf.Output{a})
	if s.Err() == nil {
		t.Error("Gradients in a scope with control dependencies gave no error")
	}
}
