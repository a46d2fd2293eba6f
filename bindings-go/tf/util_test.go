package tf

import (
	"errors"
	"testing"
)

// constOp adds a Const holding value.
func constOp(t *testing.T, g *Graph, name string, value interface{}) Output {
	t.Helper()
	v, err := NewTensor(value)
	if err != nil {
		t.Fatalf("NewTensor(%v): %v", value, err)
	}
	op, err := g.AddOperation(OpSpec{Type: "Const", Name: name,
		Attrs: map[string]interface{}{"dtype": v.DataType(), "value": v}})
	if err != nil {
		t.Fatalf("Const %s: %v", name, err)
	}
	return op.Output(0)
}

// placeholder adds a Placeholder of dtype dt.
func placeholder(t *testing.T, g *Graph, name string, dt DataType) Output {
	t.Helper()
	op, err := g.AddOperation(OpSpec{Type: "Placeholder", Name: name, Attrs: map[string]interface{}{"dtype": dt}})
	if err != nil {
		t.Fatalf("Placeholder %s: %v", name, err)
	}
	return op.Output(0)
}

// binaryOp adds an op of two inputs.
func binaryOp(t *testing.T, g *Graph, typ string, a, b Output) Output {
	t.Helper()
	op, err := g.AddOperation(OpSpec{Type: typ, Input: []Input{a, b}})
	if err != nil {
		t.Fatalf("%s: %v", typ, err)
	}
	return op.Output(0)
}

// unaryOp adds an op of one input.
func unaryOp(t *testing.T, g *Graph, typ string, a Output) Output {
	t.Helper()
	op, err := g.AddOperation(OpSpec{Type: typ, Input: []Input{a}})
	if err != nil {
		t.Fatalf("%s: %v", typ, err)
	}
	return op.Output(0)
}

// runOne runs fetch with feeds on a fresh session and returns its value.
func runOne(t *testing.T, g *Graph, feeds map[Output]*Tensor, fetch Output) interface{} {
	t.Helper()
	s, err := NewSession(g, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	out, err := s.Run(feeds, []Output{fetch}, nil)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return out[0].Value()
}

// wantCode fails unless err is an *Error with the given code.
func wantCode(t *testing.T, err error, code Code) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("got error %v (%T), want *Error with code %v", err, err, code)
	}
	if e.Code != code {
		t.Fatalf("got code %v (%s), want %v", e.Code, e.Message, code)
	}
}
