package op

import (
	"math"
	"math/cmplx"
	"testing"

	tf "github.com/tensorflux/tensorflux/bindings-go/tf"
)

// The FFT and complex ops reach Go through the generated wrappers like every other op, with
// their engine gradients.
func TestFFTAndComplexOps(t *testing.T) {
	s := NewScope()
	x := Const(s, []float64{1, 2, 3, 4})
	spectrum := RFFT(s, x, Const(s, []int32{4}), RFFTTcomplex(tf.Complex128))
	back := IRFFT(s, spectrum, Const(s, []int32{4}), IRFFTTreal(tf.Double))
	z := Complex(s, Const(s, []float32{3, 0}), Const(s, []float32{4, -1}))
	modulus := ComplexAbs(s, z)
	// The gradient of a real loss through RFFT: power = sum_k |X_k|^2.
	power := Sum(s, Real(s, Mul(s, spectrum, Conj(s, spectrum)), RealTout(tf.Double)), Const(s, []int32{0}))
	grads := Gradients(s, []tf.Output{power}, []tf.Output{x})
	got := runGraph(t, s, nil, spectrum, back, modulus, grads[0])
	want := []complex128{10, -2 + 2i, -2}
	for i, v := range got[0].([]complex128) {
		if cmplx.Abs(v-want[i]) > 1e-12 {
			t.Errorf("RFFT[%d] = %v, want %v", i, v, want[i])
		}
	}
	for i, v := range got[1].([]float64) {
		if math.Abs(v-float64(i+1)) > 1e-12 {
			t.Errorf("IRFFT[%d] = %v, want %d", i, v, i+1)
		}
	}
	expectEqual(t, "ComplexAbs", got[2], []float32{5, 1})
	// d/dx_j sum_k |X_k|^2 over k = 0..n/2 is sum_k 2 Re(conj(X_k) e^{-2 pi i jk/n}).
	g := got[3].([]float64)
	for j := range g {
		var w float64
		for k, v := range got[0].([]complex128) {
			w += 2 * real(cmplx.Conj(v)*cmplx.Exp(complex(0, -2*math.Pi*float64(j*k)/4)))
		}
		if math.Abs(g[j]-w) > 1e-9 {
			t.Errorf("gradient[%d] = %v, want %v", j, g[j], w)
		}
	}
}
