package main

import (
	"math"
	"testing"
)

func TestNewtonLoopConvergesAndDifferentiates(t *testing.T) {
	values := []float64{2, 9, 0.25, 1e6, 0}
	roots, n, grad, err := run(values)
	if err != nil {
		t.Fatal(err)
	}
	// Newton from max(a, 1) needs ~log2(a)/2 halvings, then a few quadratic steps.
	if n < 5 || n >= maxIterations {
		t.Errorf("%d iterations, want between 5 and %d", n, maxIterations)
	}
	for i, a := range values {
		if residual := math.Abs(roots[i]*roots[i] - a); residual > tolerance {
			t.Errorf("sqrt(%g) = %.17g: residual %g above the tolerance", a, roots[i], residual)
		}
		if a == 0 {
			continue // Newton converges only linearly to 0, and the derivative is infinite there
		}
		if want := math.Sqrt(a); math.Abs(roots[i]-want) > 1e-12*want {
			t.Errorf("sqrt(%g) = %.17g, want %.17g", a, roots[i], want)
		}
		if want := 0.5 / math.Sqrt(a); math.Abs(grad[i]-want) > 1e-9*want {
			t.Errorf("d sqrt(a)/da at %g = %.17g, want %.17g", a, grad[i], want)
		}
	}
}

func TestNewtonLoopStopsAtTheIterationBound(t *testing.T) {
	_, n, _, err := run([]float64{4, -1}) // no real root of -1: only the bound stops the loop
	if err != nil {
		t.Fatal(err)
	}
	if n != maxIterations {
		t.Errorf("%d iterations, want the bound %d", n, maxIterations)
	}
}
