package tf

import (
	"reflect"
	"testing"
)

// handle makes a handle of value on ctx.
func handle(t *testing.T, ctx *Context, value interface{}) *TensorHandle {
	t.Helper()
	v, err := NewTensor(value)
	if err != nil {
		t.Fatal(err)
	}
	h, err := ctx.NewTensorHandle(v)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// exec1 executes a one-output op and returns its output.
func exec1(t *testing.T, ctx *Context, op string, inputs []*TensorHandle, attrs map[string]interface{}) *TensorHandle {
	t.Helper()
	out, err := ctx.Execute(op, inputs, attrs)
	if err != nil {
		t.Fatalf("%s: %v", op, err)
	}
	if len(out) != 1 {
		t.Fatalf("%s: %d outputs", op, len(out))
	}
	return out[0]
}

func TestEagerExecute(t *testing.T) {
	ctx, err := NewContext(&ContextOptions{IntraOpThreads: 1, InterOpThreads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Close()
	a := handle(t, ctx, [][]float32{{1, 2}, {3, 4}})
	b := handle(t, ctx, [][]float32{{1, 0}, {0, 1}})
	mm := exec1(t, ctx, "MatMul", []*TensorHandle{a, b}, map[string]interface{}{"transpose_a": true})
	if got := mm.Value(); !reflect.DeepEqual(got, [][]float32{{1, 3}, {2, 4}}) {
		t.Errorf("MatMul = %v", got)
	}
	if shape, err := mm.Shape(); err != nil || !reflect.DeepEqual(shape, []int64{2, 2}) || mm.DataType() != Float {
		t.Errorf("shape %v %v dtype %v", shape, err, mm.DataType())
	}
	if dev, err := mm.DeviceName(); err != nil || dev == "" {
		t.Errorf("device %q %v", dev, err)
	}
	axis := handle(t, ctx, int32(0))
	cat, err := ctx.ExecuteOp(EagerOpSpec{Type: "ConcatV2", Input: []EagerInput{TensorHandleList{a, b, a}, axis}})
	if err != nil {
		t.Fatal(err)
	}
	if shape, _ := cat[0].Shape(); !reflect.DeepEqual(shape, []int64{6, 2}) {
		t.Errorf("ConcatV2 shape %v", shape)
	}
	// An op with many outputs (more than the first guess of room).
	x := handle(t, ctx, make([]float32, 40))
	parts, err := ctx.ExecuteOp(EagerOpSpec{Type: "Split", Input: []EagerInput{axis, x},
		Attrs: map[string]interface{}{"num_split": 20}})
	if err != nil || len(parts) != 20 {
		t.Fatalf("Split: %d outputs, %v", len(parts), err)
	}
	if devs, err := ctx.Devices(); err != nil || len(devs) != 1 {
		t.Errorf("Devices = %v, %v", devs, err)
	}
}

func TestEagerErrors(t *testing.T) {
	ctx, err := NewContext(nil)
	if err != nil {
		t.Fatal(err)
	}
	f := handle(t, ctx, []float32{1})
	i := handle(t, ctx, []int32{1})
	deleted := handle(t, ctx, []int32{1})
	deleted.Delete()
	tests := []struct {
		name   string
		op     string
		inputs []*TensorHandle
		attrs  map[string]interface{}
		code   Code
	}{
		{"unknown op", "NoSuchOp", nil, nil, NotFound},
		{"mismatched dtypes", "AddV2", []*TensorHandle{f, i}, nil, InvalidArgument},
		{"missing input", "Neg", nil, nil, InvalidArgument},
		{"deleted handle", "Neg", []*TensorHandle{deleted}, nil, InvalidArgument},
		{"nil handle", "Neg", []*TensorHandle{nil}, nil, InvalidArgument},
		{"unsupported attr", "Cast", []*TensorHandle{f}, map[string]interface{}{"DstT": []interface{}{}}, InvalidArgument},
	}
	for _, tc := range tests {
		out, err := ctx.Execute(tc.op, tc.inputs, tc.attrs)
		if err == nil || out != nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		if e, ok := err.(*Error); !ok || e.Code != tc.code {
			t.Errorf("%s: %v, want code %v", tc.name, err, tc.code)
		}
	}
	// The context still works; after Close, nothing new can be made but live handles still read.
	neg := exec1(t, ctx, "Neg", []*TensorHandle{f}, nil)
	ctx.Close()
	ctx.Close()
	if _, err := ctx.Execute("Neg", []*TensorHandle{f}, nil); err == nil {
		t.Error("Execute after Close: no error")
	}
	if v := neg.Value(); !reflect.DeepEqual(v, []float32{-1}) {
		t.Errorf("Neg = %v", v)
	}
	for _, h := range []*TensorHandle{f, i, neg} {
		h.Delete()
	}
}

func TestGradientTape(t *testing.T) {
	ctx, err := NewContext(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Close()
	x := handle(t, ctx, []float32{1, 2, 3})
	y := handle(t, ctx, []float32{4, 5, 6})
	tape, err := ctx.NewGradientTape(false, true)
	if err != nil {
		t.Fatal(err)
	}
	defer tape.Delete()
	if err := tape.Watch(x); err != nil {
		t.Fatal(err)
	}
	sq := exec1(t, ctx, "Mul", []*TensorHandle{x, x}, nil) // x^2
	sin := exec1(t, ctx, "Sin", []*TensorHandle{x}, nil)   // sin x
	loss := exec1(t, ctx, "AddV2", []*TensorHandle{sq, sin}, nil)
	grads, err := tape.Gradient([]*TensorHandle{loss}, []*TensorHandle{x, y})
	if err != nil {
		t.Fatal(err)
	}
	if grads[1] != nil {
		t.Errorf("unwatched y got a gradient %v", grads[1].Value())
	}
	got := grads[0].Value().([]float32)
	cosx := exec1(t, ctx, "Cos", []*TensorHandle{x}, nil).Value().([]float32)
	for k, xv := range []float32{1, 2, 3} {
		if want := 2*xv + cosx[k]; abs32(got[k]-want) > 1e-5 {
			t.Errorf("d/dx[%d] = %v, want %v", k, got[k], want)
		}
	}
	_, err = tape.Gradient([]*TensorHandle{loss}, []*TensorHandle{x})
	wantCode(t, err, FailedPrecondition) // not persistent
}

func TestGradientTapeOptions(t *testing.T) {
	ctx, err := NewContext(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Close()
	x := handle(t, ctx, float32(3))
	z := handle(t, ctx, float32(7))
	tape, err := ctx.NewGradientTape(true, false)
	if err != nil {
		t.Fatal(err)
	}
	defer tape.Delete()
	if err := tape.Watch(x); err != nil {
		t.Fatal(err)
	}
	cube := exec1(t, ctx, "Mul", []*TensorHandle{exec1(t, ctx, "Mul", []*TensorHandle{x, x}, nil), x}, nil)
	w := handle(t, ctx, float32(2))
	grads, err := tape.GradientWithOptions([]*TensorHandle{cube}, []*TensorHandle{x, z}, []*TensorHandle{w}, true)
	if err != nil {
		t.Fatal(err)
	}
	if g := grads[0].Value().(float32); g != 54 { // 2 * 3x^2
		t.Errorf("weighted gradient %v, want 54", g)
	}
	if g := grads[1].Value().(float32); g != 0 {
		t.Errorf("unconnected zeros: %v", g)
	}
	// Persistent: a second call works; errors are Go errors.
	if _, err := tape.Gradient([]*TensorHandle{cube}, []*TensorHandle{x}); err != nil {
		t.Errorf("second gradient of a persistent tape: %v", err)
	}
	if _, err := tape.GradientWithOptions([]*TensorHandle{cube}, []*TensorHandle{x}, []*TensorHandle{w, w}, false); err == nil {
		t.Error("mismatched output gradients: no error")
	}
	if _, err := tape.Gradient([]*TensorHandle{nil}, []*TensorHandle{x}); err == nil {
		t.Error("nil target: no error")
	}
}

func abs32(x float32) float32 {
	if x < 0 {
		return -x
	}
	return x
}
