package tf

import (
	"encoding/json"
	"testing"
)

// TestProfiler: a profile records a session run's kernels as Chrome trace events; starting twice
// and stopping without a profile are errors that leave the profiler usable.
func TestProfiler(t *testing.T) {
	if _, err := StopProfiler(); err == nil {
		t.Fatal("StopProfiler without a profile gave no error")
	}
	g := NewGraph()
	x := placeholder(t, g, "x", Float)
	y := unaryOp(t, g, "Exp", x)
	if err := StartProfiler(); err != nil {
		t.Fatal(err)
	}
	wantCode(t, StartProfiler(), FailedPrecondition)
	in, err := NewTensor([]float32{0, 1})
	if err != nil {
		t.Fatal(err)
	}
	runOne(t, g, map[Output]*Tensor{x: in}, y)
	trace, err := StopProfiler()
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents []struct {
			Ph   string `json:"ph"`
			Name string `json:"name"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(trace, &doc); err != nil {
		t.Fatalf("the trace is not JSON: %v", err)
	}
	found := false
	for _, e := range doc.TraceEvents {
		found = found || (e.Ph == "X" && e.Name == "Exp")
	}
	if !found {
		t.Fatalf("no Exp event in %s", trace)
	}
}
