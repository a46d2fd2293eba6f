package op

import (
	"strings"
	"testing"

	tf "github.com/tensorflux/tensorflux/bindings-go/tf"
)

// The image ops reach Go through the generated wrappers: resize, crop-and-resize and non-max
// suppression give the values tx.image gives, and a bad size is an error naming the op.
func TestImageOps(t *testing.T) {
	s := NewScope()
	img := Const(s, [][][][]float32{{{{0}, {1}}, {{2}, {3}}}}) // one 2x2 image, one channel
	resized := ResizeBilinear(s, img, Const(s, []int32{3, 3}), ResizeBilinearHalfPixelCenters(true))
	crops := CropAndResize(s, img, Const(s, [][]float32{{0, 0, 1, 1}}), Const(s, []int32{0}), Const(s, []int32{2, 2}))
	boxes := Const(s, [][]float32{{0, 0, 1, 1}, {0, 0.1, 1, 1.1}, {0, 2, 1, 3}})
	kept := NonMaxSuppressionV3(s, boxes, Const(s, []float32{0.9, 0.8, 0.7}), Const(s, int32(3)),
		Const(s, float32(0.5)), Const(s, float32(0)))
	got := runGraph(t, s, nil, resized, crops, kept)
	expectEqual(t, "ResizeBilinear", got[0], [][][][]float32{{{{0}, {0.5}, {1}}, {{1}, {1.5}, {2}}, {{2}, {2.5}, {3}}}})
	expectEqual(t, "CropAndResize", got[1], [][][][]float32{{{{0}, {1}}, {{2}, {3}}}})
	expectEqual(t, "NonMaxSuppressionV3", got[2], []int32{0, 2})
}

func TestImageOpErrorNamesTheOp(t *testing.T) {
	s := NewScope()
	img := Placeholder(s, tf.Float)
	size := Placeholder(s, tf.Int32)
	out := ResizeBilinear(s, img, size)
	sess := newSession(t, s)
	image, err := tf.NewTensor([][][][]float32{{{{1}}}})
	if err != nil {
		t.Fatal(err)
	}
	bad, err := tf.NewTensor([]int32{-1, 2})
	if err != nil {
		t.Fatal(err)
	}
	_, err = sess.Run(map[tf.Output]*tf.Tensor{img: image, size: bad}, []tf.Output{out}, nil)
	if err == nil || !strings.Contains(err.Error(), "ResizeBilinear") || !strings.Contains(err.Error(), "must be positive") {
		t.Fatalf("resize to a negative size: got error %v", err)
	}
}
