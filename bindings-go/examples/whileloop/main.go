// Command whileloop builds a data-dependent loop from Go: Newton's iteration for square roots
// runs in a While op (op.WhileLoop, its condition and body written as Go closures) until every
// element has converged, and the gradient of the result flows back through the loop.
//
//	go run ./examples/whileloop
package main

import (
	"fmt"
	"log"

	"github.com/tensorflux/tensorflux/bindings-go/op"
	tf "github.com/tensorflux/tensorflux/bindings-go/tf"
)

const (
	tolerance     = 1e-12 // on |x^2 - a|
	maxIterations = 100
)

// newtonSqrt adds the loop for sqrt(a), elementwise; it returns the roots, the iteration count
// and the gradient of sum(roots) with respect to a.
func newtonSqrt(s *op.Scope, a tf.Output) (roots, iterations, grad tf.Output) {
	x0 := op.Maximum(s, a, op.OnesLike(s, a)) // x0 >= sqrt(a) for a >= 0
	out := op.WhileLoop(s, []tf.Output{op.Const(s, int32(0)), x0, a},
		func(s *op.Scope, v []tf.Output) tf.Output {
			i, x, a := v[0], v[1], v[2]
			residual := op.Abs(s, op.Sub(s, op.Mul(s, x, x), a))
			notDone := op.Any(s, op.Greater(s, residual, op.Const(s, tolerance)), op.Const(s, int32(0)))
			return op.LogicalAnd(s, notDone, op.Less(s, i, op.Const(s, int32(maxIterations))))
		},
		func(s *op.Scope, v []tf.Output) []tf.Output {
			i, x, a := v[0], v[1], v[2]
			next := op.Mul(s, op.Const(s, 0.5), op.AddV2(s, x, op.Div(s, a, x))) // (x + a/x) / 2
			return []tf.Output{op.AddV2(s, i, op.Const(s, int32(1))), next, op.Identity(s, a)}
		})
	if s.Err() != nil {
		return
	}
	grads := op.Gradients(s, []tf.Output{op.Sum(s, out[1], op.Const(s, int32(0)))}, []tf.Output{a})
	if s.Err() != nil {
		return
	}
	return out[1], out[0], grads[0]
}

// run computes sqrt(values) with the loop and returns the roots, the iteration count and the
// gradient.
func run(values []float64) (roots []float64, iterations int32, grad []float64, err error) {
	s := op.NewScope()
	a := op.Placeholder(s, tf.Double, op.PlaceholderShape(tf.MakeShape(-1)))
	r, n, g := newtonSqrt(s, a)
	graph, err := s.Finalize()
	if err != nil {
		return nil, 0, nil, err
	}
	sess, err := tf.NewSession(graph, nil)
	if err != nil {
		return nil, 0, nil, err
	}
	defer sess.Close()
	feed, err := tf.NewTensor(values)
	if err != nil {
		return nil, 0, nil, err
	}
	out, err := sess.Run(map[tf.Output]*tf.Tensor{a: feed}, []tf.Output{r, n, g}, nil)
	if err != nil {
		return nil, 0, nil, err
	}
	return out[0].Value().([]float64), out[1].Value().(int32), out[2].Value().([]float64), nil
}

func main() {
	values := []float64{2, 9, 0.25, 1e6}
	roots, n, grad, err := run(values)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("converged after %d iterations\n", n)
	for i, a := range values {
		fmt.Printf("sqrt(%g) = %.15g, d/da = %.15g\n", a, roots[i], grad[i])
	}
}
