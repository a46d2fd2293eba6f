package op

import (
	"strings"
	"testing"

	tf "github.com/tensorflux/tensorflux/bindings-go/tf"
)

// makeFunction builds a function named name from the graph build adds to a fresh scope; build
// returns the function's arguments (Placeholders) and results.
func makeFunction(t *testing.T, name string, build func(s *Scope) (args, results []tf.Output)) *tf.Function {
	t.Helper()
	s := NewScope()
	args, results := build(s)
	g, err := s.Finalize()
	if err != nil {
		t.Fatal(err)
	}
	f, err := tf.NewFunction(g, name, args, results, nil, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestIfWithFunctions(t *testing.T) {
	double := makeFunction(t, "double", func(s *Scope) ([]tf.Output, []tf.Output) {
		x := Placeholder(s, tf.Float)
		return []tf.Output{x}, []tf.Output{Mul(s, x, Const(s, float32(2)))}
	})
	negate := makeFunction(t, "negate", func(s *Scope) ([]tf.Output, []tf.Output) {
		x := Placeholder(s, tf.Float)
		return []tf.Output{x}, []tf.Output{Neg(s, x)}
	})
	s := NewScope()
	cond := Placeholder(s, tf.Bool, PlaceholderShape(tf.ScalarShape()))
	x := Const(s, []float32{1.5, -3})
	out := If(s, cond, []tf.Output{x}, []tf.DataType{tf.Float}, double, negate)
	stateless := StatelessIf(s, cond, []tf.Output{x}, []tf.DataType{tf.Float}, negate, double)
	if len(out) != 1 || len(stateless) != 1 {
		t.Fatalf("If gave %d outputs, StatelessIf %d, want 1", len(out), len(stateless))
	}
	sess := newSession(t, s)
	for _, c := range []bool{true, false} {
		feed, _ := tf.NewTensor(c)
		res, err := sess.Run(map[tf.Output]*tf.Tensor{cond: feed}, []tf.Output{out[0], stateless[0]}, nil)
		if err != nil {
			t.Fatal(err)
		}
		want, other := []float32{3, -6}, []float32{-1.5, 3}
		if !c {
			want, other = other, want
		}
		expectEqual(t, "If", res[0].Value(), want)
		expectEqual(t, "StatelessIf", res[1].Value(), other)
	}
}

func TestWhileWithFunctions(t *testing.T) {
	// Loop state (i, acc): while i < 5 { acc = acc * 2 + i; i++ }.
	cond := makeFunction(t, "less_than_5", func(s *Scope) ([]tf.Output, []tf.Output) {
		i, acc := Placeholder(s, tf.Int32), Placeholder(s, tf.Int64)
		return []tf.Output{i, acc}, []tf.Output{Less(s, i, Const(s, int32(5)))}
	})
	body := makeFunction(t, "step", func(s *Scope) ([]tf.Output, []tf.Output) {
		i, acc := Placeholder(s, tf.Int32), Placeholder(s, tf.Int64)
		next := AddV2(s, Mul(s, acc, Const(s, int64(2))), Cast(s, i, tf.Int64))
		return []tf.Output{i, acc}, []tf.Output{AddV2(s, i, Const(s, int32(1))), next}
	})
	s := NewScope()
	out := While(s, []tf.Output{Const(s, int32(0)), Const(s, int64(1))}, cond, body)
	if len(out) != 2 || out[0].DataType() != tf.Int32 || out[1].DataType() != tf.Int64 {
		t.Fatalf("While outputs %v, want (int32, int64)", out)
	}
	got := runGraph(t, s, nil, out...)
	want := int64(1)
	for i := int64(0); i < 5; i++ {
		want = want*2 + i
	}
	expectEqual(t, "While i", got[0], int32(5))
	expectEqual(t, "While acc", got[1], want)
}

func TestCaseAndPartitionedCall(t *testing.T) {
	branch := func(name string, k float64) *tf.Function {
		return makeFunction(t, name, func(s *Scope) ([]tf.Output, []tf.Output) {
			x := Placeholder(s, tf.Double)
			return []tf.Output{x}, []tf.Output{Mul(s, x, Const(s, k))}
		})
	}
	branches := []*tf.Function{branch("times1", 1), branch("times10", 10), branch("times100", 100)}
	s := NewScope()
	x := Const(s, 2.0)
	c := Case(s, Const(s, int32(1)), []tf.Output{x}, []tf.DataType{tf.Double}, branches)
	fallback := Case(s, Const(s, int32(7)), []tf.Output{x}, []tf.DataType{tf.Double}, branches)
	call := PartitionedCall(s, []tf.Output{x}, []tf.DataType{tf.Double}, branches[2])
	got := runGraph(t, s, nil, c[0], fallback[0], call[0])
	expectEqual(t, "Case", got[0], 20.0)
	expectEqual(t, "Case out of range (last branch)", got[1], 200.0)
	expectEqual(t, "PartitionedCall", got[2], 200.0)
}

func TestFunctionTypeMismatchIsAnError(t *testing.T) {
	double := makeFunction(t, "double_f", func(s *Scope) ([]tf.Output, []tf.Output) {
		x := Placeholder(s, tf.Float)
		return []tf.Output{x}, []tf.Output{Mul(s, x, Const(s, float32(2)))}
	})
	s := NewScope()
	out := PartitionedCall(s, []tf.Output{Const(s, int32(1))}, []tf.DataType{tf.Int32}, double)
	if out != nil {
		t.Errorf("a call with int32 arguments to a float function gave outputs %v", out)
	}
	if err := s.Err(); err == nil || !strings.Contains(err.Error(), "[PartitionedCall]") ||
		!strings.Contains(err.Error(), "double_f") {
		t.Errorf("got %v, want an error naming PartitionedCall", err)
	}
}

func TestWhileLoopHelperAndItsGradient(t *testing.T) {
	// (i, p) -> (i+1, p*x) while i < 3, with x a loop variable too: p = x^3, dp/dx = 3x^2.
	s := NewScope()
	x := Placeholder(s, tf.Double, PlaceholderShape(tf.ScalarShape()))
	out := WhileLoop(s, []tf.Output{Const(s, int32(0)), Const(s, 1.0), x},
		func(s *Scope, v []tf.Output) tf.Output { return Less(s, v[0], Const(s, int32(3))) },
		func(s *Scope, v []tf.Output) []tf.Output {
			return []tf.Output{AddV2(s, v[0], Const(s, int32(1))), Mul(s, v[1], v[2]), Identity(s, v[2])}
		})
	second := WhileLoop(s, []tf.Output{Const(s, int32(0))},
		func(s *Scope, v []tf.Output) tf.Output { return Less(s, v[0], Const(s, int32(4))) },
		func(s *Scope, v []tf.Output) []tf.Output { return []tf.Output{AddV2(s, v[0], Const(s, int32(2)))} })
	grad := Gradients(s, []tf.Output{out[1]}, []tf.Output{x})
	if s.Err() != nil {
		t.Fatal(s.Err())
	}
	feed, _ := tf.NewTensor(2.0)
	got := runGraph(t, s, map[tf.Output]*tf.Tensor{x: feed}, out[0], out[1], grad[0], second[0])
	expectEqual(t, "i", got[0], int32(3))
	expectEqual(t, "x^3", got[1], 8.0)
	expectEqual(t, "d(x^3)/dx", got[2], 12.0)
	expectEqual(t, "second loop", got[3], int32(4))
}

func TestWhileLoopBodyErrorIsRecorded(t *testing.T) {
	s := NewScope()
	out := WhileLoop(s, []tf.Output{Const(s, float32(1))},
		func(s *Scope, v []tf.Output) tf.Output { return Less(s, v[0], Const(s, float32(3))) },
		func(s *Scope, v []tf.Output) []tf.Output { return []tf.Output{AddV2(s, v[0], Const(s, int32(1)))} })
	if out != nil || s.Err() == nil || !strings.Contains(s.Err().Error(), "AddV2") {
		t.Errorf("got outputs %v and error %v, want none and an AddV2 error", out, s.Err())
	}
}
