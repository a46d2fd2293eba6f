package tf

import (
	"strings"
	"testing"
)

// TestOptimizerOption: "remapping" (loop fusion of elementwise chains) is on at start, can be
// turned off and on, and does not change results; unknown names are rejected.
func TestOptimizerOption(t *testing.T) {
	if on, err := OptimizerOption("remapping"); err != nil || !on {
		t.Fatalf("OptimizerOption(remapping) = %v, %v; want true, nil", on, err)
	}
	err := SetOptimizerOption("constant_folding", false)
	wantCode(t, err, InvalidArgument)
	if err == nil || !strings.Contains(err.Error(), "unknown optimizer option 'constant_folding'") {
		t.Fatalf("unexpected error %v", err)
	}
	if _, err := OptimizerOption("nope"); err == nil {
		t.Fatal("OptimizerOption(nope) gave no error")
	}
	chain := func() []float32 {
		g := NewGraph()
		x := placeholder(t, g, "x", Float)
		y := x
		for i := 0; i < 10; i++ {
			y = unaryOp(t, g, "Tanh", binaryOp(t, g, "AddV2", y, constOp(t, g, "c"+string(rune('a'+i)), float32(0.25))))
		}
		in, err := NewTensor([]float32{-2, -0.5, 0, 1.5})
		if err != nil {
			t.Fatal(err)
		}
		return runOne(t, g, map[Output]*Tensor{x: in}, y).([]float32)
	}
	fused := chain()
	if err := SetOptimizerOption("remapping", false); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := SetOptimizerOption("remapping", true); err != nil {
			t.Fatal(err)
		}
	}()
	if on, err := OptimizerOption("remapping"); err != nil || on {
		t.Fatalf("OptimizerOption(remapping) = %v, %v after turning it off", on, err)
	}
	plain := chain()
	for i := range fused {
		if fused[i] != plain[i] {
			t.Fatalf("element %d: fused %v, unfused %v", i, fused[i], plain[i])
		}
	}
}
