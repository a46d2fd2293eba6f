package tf

import (
	"reflect"
	"strings"
	"testing"
)

func TestStringTensorsRoundTrip(t *testing.T) {
	long := strings.Repeat("a string kept on the heap ", 4)
	tests := []struct {
		value interface{}
		shape []int64
	}{
		{"a", []int64{}},
		{"", []int64{}},
		{long, []int64{}},
		{"nul\x00inside \xff", []int64{}},
		{[]string{"héllo", "", long}, []int64{3}},
		{[][]string{{"a", "b", "c"}, {"d", long, ""}}, []int64{2, 3}},
		{[]string{}, []int64{0}},
		{[][]string{{}, {}}, []int64{2, 0}},
	}
	for _, tc := range tests {
		tensor, err := NewTensor(tc.value)
		if err != nil {
			t.Fatalf("NewTensor(%q): %v", tc.value, err)
		}
		if tensor.DataType() != String {
			t.Errorf("NewTensor(%q).DataType() = %v, want string", tc.value, tensor.DataType())
		}
		if !reflect.DeepEqual(tensor.Shape(), tc.shape) {
			t.Errorf("NewTensor(%q).Shape() = %v, want %v", tc.value, tensor.Shape(), tc.shape)
		}
		if got := tensor.Value(); !reflect.DeepEqual(got, tc.value) {
			t.Errorf("Value() = %q, want %q", got, tc.value)
		}
	}
}

func TestNamedStringTypes(t *testing.T) {
	type word string
	tensor, err := NewTensor([]word{"x", "yz"})
	if err != nil {
		t.Fatal(err)
	}
	if got := tensor.Value(); !reflect.DeepEqual(got, []string{"x", "yz"}) {
		t.Errorf("Value() = %q", got)
	}
}

func TestStringTensorsHaveNoRawBytes(t *testing.T) {
	tensor, err := NewTensor([]string{"a"})
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	if _, err := tensor.WriteContentsTo(&sb); err == nil || !strings.Contains(err.Error(), "string") {
		t.Errorf("WriteContentsTo of a string tensor: %v", err)
	}
	if _, err := ReadTensor(String, []int64{1}, strings.NewReader("abc")); err == nil {
		t.Error("ReadTensor(String) succeeded")
	}
}

func TestStringsThroughAGraph(t *testing.T) {
	g := NewGraph()
	words, err := g.AddOperation(OpSpec{Type: "Placeholder", Name: "words",
		Attrs: map[string]interface{}{"dtype": String}})
	if err != nil {
		t.Fatal(err)
	}
	suffix, _ := NewTensor("!")
	bang, err := g.AddOperation(OpSpec{Type: "Const", Name: "bang",
		Attrs: map[string]interface{}{"dtype": String, "value": suffix}})
	if err != nil {
		t.Fatal(err)
	}
	upper, err := g.AddOperation(OpSpec{Type: "StringUpper", Input: []Input{words.Output(0)}})
	if err != nil {
		t.Fatal(err)
	}
	joined, err := g.AddOperation(OpSpec{Type: "StringJoin", Input: []Input{OutputList{upper.Output(0), bang.Output(0)}}})
	if err != nil {
		t.Fatal(err)
	}
	sess, err := NewSession(g, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	feed, _ := NewTensor([]string{"hi", "yo"})
	out, err := sess.Run(map[Output]*Tensor{words.Output(0): feed}, []Output{joined.Output(0)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := out[0].Value(); !reflect.DeepEqual(got, []string{"HI!", "YO!"}) {
		t.Errorf("got %q", got)
	}
	// A number fed where a string is expected is an error naming the node; the session stays usable.
	bad, _ := NewTensor([]float32{1})
	if _, err := sess.Run(map[Output]*Tensor{words.Output(0): bad}, []Output{joined.Output(0)}, nil); err == nil ||
		!strings.Contains(err.Error(), "words") {
		t.Errorf("feeding float32 to a string placeholder: %v", err)
	}
	if _, err := sess.Run(map[Output]*Tensor{words.Output(0): feed}, []Output{joined.Output(0)}, nil); err != nil {
		t.Errorf("session unusable after an error: %v", err)
	}
}
