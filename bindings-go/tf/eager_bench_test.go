package tf

import "testing"

// BenchmarkEagerTinyAdd measures one eager AddV2 of two float32[4] handles (tools/bench/go_bench.py
// compares it with Python's tx.add on eager tensors).
func BenchmarkEagerTinyAdd(b *testing.B) {
	ctx, err := NewContext(nil)
	if err != nil {
		b.Fatal(err)
	}
	defer ctx.Close()
	t, err := NewTensor([]float32{1, 1, 1, 1})
	if err != nil {
		b.Fatal(err)
	}
	x, err := ctx.NewTensorHandle(t)
	if err != nil {
		b.Fatal(err)
	}
	defer x.Delete()
	inputs := []*TensorHandle{x, x}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out, err := ctx.Execute("AddV2", inputs, nil)
		if err != nil {
			b.Fatal(err)
		}
		out[0].Delete()
	}
}
