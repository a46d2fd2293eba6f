package tf

import (
	"bytes"
	"reflect"
	"strings"
	"sync"
	"testing"
)

func TestGraphRun(t *testing.T) {
	g := NewGraph()
	x := placeholder(t, g, "x", Float)
	w := constOp(t, g, "w", [][]float32{{1, 2}, {3, 4}})
	mm, err := g.AddOperation(OpSpec{Type: "MatMul", Name: "mm", Input: []Input{x, w},
		Attrs: map[string]interface{}{"transpose_b": true}})
	if err != nil {
		t.Fatal(err)
	}
	feed, _ := NewTensor([][]float32{{1, 1}})
	got := runOne(t, g, map[Output]*Tensor{x: feed}, mm.Output(0))
	if want := [][]float32{{3, 7}}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if mm.Name() != "mm" || mm.Type() != "MatMul" || mm.NumInputs() != 2 || mm.NumOutputs() != 1 {
		t.Errorf("introspection: %q %q %d %d", mm.Name(), mm.Type(), mm.NumInputs(), mm.NumOutputs())
	}
	if in := mm.Input(1); in.Op.Name() != "w" || in.Index != 0 {
		t.Errorf("Input(1) = %s:%d", in.Op.Name(), in.Index)
	}
	if c := w.Consumers(); len(c) != 1 || c[0].Op.Name() != "mm" || c[0].Index != 1 {
		t.Errorf("Consumers = %v", c)
	}
	if s := w.Shape(); s.String() != "[2, 2]" || !s.IsFullySpecified() {
		t.Errorf("w shape %v", s)
	}
	if s := mm.Output(0).Shape(); s.NumDimensions() != 2 || s.Size(0) != -1 || s.Size(-1) != 2 {
		t.Errorf("mm shape %v", s)
	}
	if dt := mm.Output(0).DataType(); dt != Float {
		t.Errorf("dtype %v", dt)
	}
	if g.Operation("mm") == nil || g.Operation("nope") != nil || len(g.Operations()) != 3 {
		t.Errorf("lookup: %v %v %d", g.Operation("mm"), g.Operation("nope"), len(g.Operations()))
	}
}

func TestAutomaticNamesAndListInputs(t *testing.T) {
	g := NewGraph()
	a := constOp(t, g, "a", []float32{1, 2})
	b := constOp(t, g, "b", []float32{10, 20})
	var names []string
	var sum Output
	for i := 0; i < 2; i++ {
		op, err := g.AddOperation(OpSpec{Type: "AddN", Input: []Input{OutputList{a, b, a}}})
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, op.Name())
		if n, err := op.InputListSize("inputs"); err != nil || n != 3 {
			t.Errorf("InputListSize = %d, %v", n, err)
		}
		sum = op.Output(0)
	}
	if names[0] == names[1] || !strings.HasPrefix(names[0], "AddN") {
		t.Errorf("names %v", names)
	}
	if got := runOne(t, g, nil, sum); !reflect.DeepEqual(got, []float32{12, 24}) {
		t.Errorf("AddN = %v", got)
	}
	split, err := g.AddOperation(OpSpec{Type: "Split", Input: []Input{constOp(t, g, "axis", int32(0)), a},
		Attrs: map[string]interface{}{"num_split": 2}})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := split.OutputListSize("output"); err != nil || n != 2 {
		t.Errorf("OutputListSize = %d, %v", n, err)
	}
	if _, err := split.OutputListSize("nope"); err == nil {
		t.Error("OutputListSize of a missing argument: no error")
	}
}

func TestAttrs(t *testing.T) {
	g := NewGraph()
	x := placeholder(t, g, "x", Float)
	shape := MakeShape(2, -1)
	op, err := g.AddOperation(OpSpec{Type: "Placeholder", Name: "p", Device: "/device:CPU:0",
		Attrs: map[string]interface{}{"dtype": Int64, "shape": shape}})
	if err != nil {
		t.Fatal(err)
	}
	cast, err := g.AddOperation(OpSpec{Type: "Cast", Input: []Input{x},
		Attrs: map[string]interface{}{"DstT": Double, "Truncate": true}})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := g.AddOperation(OpSpec{Type: "Transpose", Input: []Input{x, constOp(t, g, "perm", []int32{1, 0})}})
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		op   *Operation
		name string
		want interface{}
	}{
		{op, "dtype", Int64},
		{op, "shape", shape},
		{cast, "DstT", Double},
		{cast, "SrcT", Float},
		{cast, "Truncate", true},
		{tr, "Tperm", Int32},
	}
	for _, c := range checks {
		got, err := c.op.Attr(c.name)
		if err != nil {
			t.Errorf("Attr(%s): %v", c.name, err)
		} else if !reflect.DeepEqual(got, c.want) {
			t.Errorf("Attr(%s) = %#v, want %#v", c.name, got, c.want)
		}
	}
	if op.Device() != "/device:CPU:0" {
		t.Errorf("device %q", op.Device())
	}
	value, err := g.Operation("perm").Attr("value")
	if err != nil {
		t.Fatal(err)
	}
	if v := value.(*Tensor).Value(); !reflect.DeepEqual(v, []int32{1, 0}) {
		t.Errorf("value attr %v", v)
	}
	if _, err := op.Attr("missing"); err == nil {
		t.Error("Attr(missing): no error")
	}
}

func TestAddOperationErrors(t *testing.T) {
	g, other := NewGraph(), NewGraph()
	x := placeholder(t, g, "x", Float)
	y := placeholder(t, other, "y", Float)
	tests := []struct {
		name string
		spec OpSpec
		code Code
	}{
		{"unknown op type", OpSpec{Type: "NoSuchOp"}, NotFound},
		{"empty type", OpSpec{}, InvalidArgument},
		{"input from another graph", OpSpec{Type: "Neg", Input: []Input{y}}, InvalidArgument},
		{"list input from another graph", OpSpec{Type: "AddN", Input: []Input{OutputList{x, y}}}, InvalidArgument},
		{"bad output index", OpSpec{Type: "Neg", Input: []Input{Output{Op: x.Op, Index: 3}}}, InvalidArgument},
		{"nil op", OpSpec{Type: "Neg", Input: []Input{Output{}}}, InvalidArgument},
		{"control dep from another graph", OpSpec{Type: "NoOp", ControlDependencies: []*Operation{y.Op}},
			InvalidArgument},
		{"unsupported attr type", OpSpec{Type: "Placeholder", Attrs: map[string]interface{}{"dtype": struct{}{}}},
			InvalidArgument},
		{"nil tensor attr", OpSpec{Type: "Const", Attrs: map[string]interface{}{"value": (*Tensor)(nil)}},
			InvalidArgument},
		{"missing attr", OpSpec{Type: "Placeholder"}, InvalidArgument},
		{"missing input", OpSpec{Type: "Neg"}, InvalidArgument},
		{"duplicate name", OpSpec{Type: "NoOp", Name: "x"}, AlreadyExists},
		{"mismatched dtypes", OpSpec{Type: "AddV2", Input: []Input{x, constOp(t, g, "i", int32(1))}},
			InvalidArgument},
	}
	for _, tc := range tests {
		op, err := g.AddOperation(tc.spec)
		if op != nil || err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		if e, ok := err.(*Error); !ok || e.Code != tc.code {
			t.Errorf("%s: %v (want code %v)", tc.name, err, tc.code)
		}
	}
	if n := len(g.Operations()); n != 2 {
		t.Errorf("failed additions changed the graph: %d operations", n)
	}
}

func TestGraphDefRoundTrip(t *testing.T) {
	g := NewGraph()
	x := placeholder(t, g, "x", Float)
	unaryOp(t, g, "Neg", x)
	var buf bytes.Buffer
	if _, err := g.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	def := buf.Bytes()
	g2 := NewGraph()
	if err := g2.Import(def, "imported"); err != nil {
		t.Fatal(err)
	}
	neg := g2.Operation("imported/Neg")
	if neg == nil {
		t.Fatalf("imported/Neg missing among %d ops", len(g2.Operations()))
	}
	feed, _ := NewTensor([]float32{1, -2})
	got := runOne(t, g2, map[Output]*Tensor{g2.Operation("imported/x").Output(0): feed}, neg.Output(0))
	if !reflect.DeepEqual(got, []float32{-1, 2}) {
		t.Errorf("got %v", got)
	}
	// Input mapping: the imported Neg reads a constant of g3 instead of its placeholder.
	g3 := NewGraph()
	c := constOp(t, g3, "c", []float32{5})
	if err := g3.ImportWithOptions(def, GraphImportOptions{Prefix: "m", InputMapping: map[string]Output{"x:0": c}}); err != nil {
		t.Fatal(err)
	}
	if got := runOne(t, g3, nil, g3.Operation("m/Neg").Output(0)); !reflect.DeepEqual(got, []float32{-5}) {
		t.Errorf("mapped import = %v", got)
	}
	// Bad bytes, and a second import under the same prefix, fail and leave the graph unchanged.
	before := len(g2.Operations())
	for _, bad := range [][]byte{[]byte("not a graphdef"), {0xff, 0xff, 0xff}} {
		if err := g2.Import(bad, ""); err == nil {
			t.Errorf("Import(%q): no error", bad)
		}
	}
	if err := g2.Import(def, "imported"); err == nil {
		t.Error("importing clashing names: no error")
	}
	if len(g2.Operations()) != before {
		t.Error("a failed import changed the graph")
	}
}

func TestSessionErrors(t *testing.T) {
	g, other := NewGraph(), NewGraph()
	x := placeholder(t, g, "x", Float)
	neg := unaryOp(t, g, "Neg", x)
	y := placeholder(t, other, "y", Float)
	s, err := NewSession(g, &SessionOptions{IntraOpThreads: 1, InterOpThreads: 1})
	if err != nil {
		t.Fatal(err)
	}
	f, _ := NewTensor([]float32{1})
	i, _ := NewTensor([]int32{1})
	tests := []struct {
		name    string
		feeds   map[Output]*Tensor
		fetches []Output
		targets []*Operation
		code    Code
	}{
		{"unfed placeholder", nil, []Output{neg}, nil, InvalidArgument},
		{"feed from another graph", map[Output]*Tensor{y: f}, []Output{neg}, nil, InvalidArgument},
		{"fetch from another graph", map[Output]*Tensor{x: f}, []Output{y}, nil, InvalidArgument},
		{"target from another graph", map[Output]*Tensor{x: f}, nil, []*Operation{y.Op}, InvalidArgument},
		{"nil feed tensor", map[Output]*Tensor{x: nil}, []Output{neg}, nil, InvalidArgument},
		{"wrong feed dtype", map[Output]*Tensor{x: i}, []Output{neg}, nil, InvalidArgument},
		{"bad fetch index", map[Output]*Tensor{x: f}, []Output{{Op: neg.Op, Index: 1}}, nil, InvalidArgument},
	}
	for _, tc := range tests {
		out, err := s.Run(tc.feeds, tc.fetches, tc.targets)
		if err == nil || out != nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		wantCode(t, err, tc.code)
	}
	// The session still works, then Close makes runs fail.
	if out, err := s.Run(map[Output]*Tensor{x: f}, []Output{neg}, nil); err != nil || out[0].Value().([]float32)[0] != -1 {
		t.Fatalf("run after errors: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	_, err = s.Run(map[Output]*Tensor{x: f}, []Output{neg}, nil)
	wantCode(t, err, Cancelled)
}

func TestConcurrentRuns(t *testing.T) {
	g := NewGraph()
	x := placeholder(t, g, "x", Int32)
	sq := binaryOp(t, g, "Mul", x, x)
	s, err := NewSession(g, nil)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for k := 0; k < 8; k++ {
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				in, _ := NewTensor(int32(k*100 + i))
				out, err := s.Run(map[Output]*Tensor{x: in}, []Output{sq}, nil)
				if err != nil {
					errs <- err
					return
				}
				if v := out[0].Value().(int32); v != int32((k*100+i)*(k*100+i)) {
					errs <- errorf(Internal, "got %d", v)
					return
				}
			}
		}(k)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestDeletedGraph(t *testing.T) {
	g := NewGraph()
	x := placeholder(t, g, "x", Float)
	g.Delete()
	g.Delete()
	if _, err := g.AddOperation(OpSpec{Type: "Neg", Input: []Input{x}}); err == nil {
		t.Error("AddOperation on a deleted graph: no error")
	}
	if x.Op.Name() != "" || g.Operation("x") != nil || g.Operations() != nil {
		t.Error("a deleted graph still answers")
	}
	if _, err := NewSession(g, nil); err == nil {
		t.Error("NewSession on a deleted graph: no error")
	}
}
