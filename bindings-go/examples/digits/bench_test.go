package main

import (
	"os"
	"path/filepath"
	"testing"

	tf "github.com/tensorflux/tensorflux/bindings-go/tf"
)

// benchServe measures one Session.Run of the digits CNN on the first `batch` test images of the
// export in $TX_DIGITS_EXPORT (tools/bench/go_bench.py sets it and compares with Python).
func benchServe(b *testing.B, batch int64) {
	dir := os.Getenv("TX_DIGITS_EXPORT")
	if dir == "" {
		b.Skip("TX_DIGITS_EXPORT is not set")
	}
	m, err := readManifest(dir)
	if err != nil {
		b.Fatal(err)
	}
	srv, err := load(dir, m)
	if err != nil {
		b.Fatal(err)
	}
	defer srv.sess.Close()
	all, err := readFloats(filepath.Join(dir, "inputs.f32"), m.Batch, m.Features)
	if err != nil {
		b.Fatal(err)
	}
	rows := all.Value().([][]float32)[:batch]
	images, err := tf.NewTensor(rows)
	if err != nil {
		b.Fatal(err)
	}
	feeds := map[tf.Output]*tf.Tensor{srv.input: images}
	fetches := []tf.Output{srv.logits}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := srv.sess.Run(feeds, fetches, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkServeBatch1(b *testing.B)  { benchServe(b, 1) }
func BenchmarkServeBatch64(b *testing.B) { benchServe(b, 64) }
