package op

import (
	"math"
	"strings"
	"testing"

	tf "github.com/tensorflux/tensorflux/bindings-go/tf"
)

// half and bfloat16 arithmetic reaches Go through the generated wrappers like any other type.
func TestHalfAndBFloat16Arithmetic(t *testing.T) {
	s := NewScope()
	h := Const(s, []tf.Float16{tf.Float16FromFloat32(1.5), tf.Float16FromFloat32(-2), tf.Float16FromFloat32(65504)})
	hsum := Mul(s, Add(s, h, h), h)
	b := Const(s, []tf.BrainFloat16{tf.BrainFloat16FromFloat32(3), tf.BrainFloat16FromFloat32(0.5)})
	bmean := Mean(s, b, Const(s, []int32{0}))
	out := runGraph(t, s, nil, hsum, Cast(s, hsum, tf.Float), Cast(s, bmean, tf.Float))
	if got := out[0].([]tf.Float16); got[0].Float32() != 4.5 || got[1].Float32() != 8 {
		t.Errorf("half (h + h) * h: got %v", got)
	}
	expectEqual(t, "half cast", out[1], []float32{4.5, 8, float32(math.Inf(1))})
	expectEqual(t, "bfloat16 mean", out[2], float32(1.75))
}

func TestBitwiseOpsOnUnsignedIntegers(t *testing.T) {
	s := NewScope()
	x := Const(s, []uint16{0xf0f0, 0x00ff})
	y := Const(s, []uint16{0xff00, 0x0f0f})
	out := runGraph(t, s, nil, BitwiseAnd(s, x, y), BitwiseXor(s, x, y), Invert(s, x),
		LeftShift(s, x, Const(s, []uint16{4, 100})), PopulationCount(s, x))
	expectEqual(t, "and", out[0], []uint16{0xf000, 0x000f})
	expectEqual(t, "xor", out[1], []uint16{0x0ff0, 0x0ff0})
	expectEqual(t, "invert", out[2], []uint16{0x0f0f, 0xff00})
	expectEqual(t, "left shift (count clamped to 15)", out[3], []uint16{0x0f00, 0x8000})
	expectEqual(t, "popcount", out[4], []uint8{8, 8})
}

func TestMissingKernelNamesTheDtype(t *testing.T) {
	s := NewScope()
	x := Const(s, []tf.Float16{tf.Float16FromFloat32(0.5)})
	y := Erfinv(s.SubScope("inverse"), x)
	sess := newSession(t, s)
	_, err := sess.Run(nil, []tf.Output{y}, nil)
	if err == nil || !strings.Contains(err.Error(), "Erfinv has no CPU kernel for half") {
		t.Fatalf("got %v, want the missing-kernel error", err)
	}
}
