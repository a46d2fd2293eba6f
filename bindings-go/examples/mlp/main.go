// Command mlp trains a small multilayer perceptron on synthetic data entirely from Go: resource
// variables, a forward graph, gradients from Graph.AddGradients (op.Gradients) and an Adam update
// per variable (ResourceApplyAdam), run step by step in one session.
//
//	go run ./examples/mlp
package main

import (
	"fmt"
	"log"
	"math"
	"math/rand"

	"github.com/tensorflux/tensorflux/bindings-go/op"
	tf "github.com/tensorflux/tensorflux/bindings-go/tf"
)

// Adam's hyperparameters (Kingma & Ba's defaults, a larger step for a short run).
const (
	learningRate = 0.01
	beta1        = 0.9
	beta2        = 0.999
	epsilon      = 1e-7
)

// dataset returns n samples of 4 features in [-1, 1] and the target sin(2 x0) + x1 x2 - x3^2.
func dataset(n int, rng *rand.Rand) (x [][]float32, y [][]float32) {
	for i := 0; i < n; i++ {
		row := make([]float32, 4)
		for j := range row {
			row[j] = 2*rng.Float32() - 1
		}
		target := math.Sin(2*float64(row[0])) + float64(row[1]*row[2]) - float64(row[3]*row[3])
		x, y = append(x, row), append(y, []float32{float32(target)})
	}
	return x, y
}

// glorot returns a rows x cols matrix drawn uniformly from Glorot's range.
func glorot(rows, cols int, rng *rand.Rand) [][]float32 {
	limit := math.Sqrt(6 / float64(rows+cols))
	m := make([][]float32, rows)
	for i := range m {
		m[i] = make([]float32, cols)
		for j := range m[i] {
			m[i][j] = float32((2*rng.Float64() - 1) * limit)
		}
	}
	return m
}

// variable is one trained resource variable with its Adam slots.
type variable struct {
	handle, m, v tf.Output
	value        tf.Output // its value read in the forward pass
}

// newVariable adds a variable initialized to init and zero slots; the returned ops initialize them.
func newVariable(s *op.Scope, name string, init interface{}, shape tf.Shape) (variable, []*tf.Operation) {
	s = s.SubScope(name)
	initial := op.Const(s, init)
	zeros := op.ZerosLike(s, initial)
	var v variable
	var inits []*tf.Operation
	for _, slot := range []struct {
		out   *tf.Output
		value tf.Output
		name  string
	}{{&v.handle, initial, "var"}, {&v.m, zeros, "m"}, {&v.v, zeros, "v"}} {
		*slot.out = op.VarHandleOp(s.SubScope(slot.name), tf.Float, shape)
		inits = append(inits, op.AssignVariableOp(s, *slot.out, slot.value))
	}
	v.value = op.ReadVariableOp(s, v.handle, tf.Float)
	return v, inits
}

// model is the training graph: placeholders, loss, the init and train targets.
type model struct {
	x, y, beta1Power, beta2Power tf.Output
	loss                         tf.Output
	init, train                  *tf.Operation
}

// build adds a 4-32-32-1 tanh MLP with a mean squared error loss and an Adam step.
func build(s *op.Scope, rng *rand.Rand) model {
	var m model
	m.x = op.Placeholder(s, tf.Float, op.PlaceholderShape(tf.MakeShape(-1, 4)))
	m.y = op.Placeholder(s, tf.Float, op.PlaceholderShape(tf.MakeShape(-1, 1)))
	m.beta1Power = op.Placeholder(s, tf.Float, op.PlaceholderShape(tf.ScalarShape()))
	m.beta2Power = op.Placeholder(s, tf.Float, op.PlaceholderShape(tf.ScalarShape()))
	sizes := []int{4, 32, 32, 1}
	var vars []variable
	var inits []*tf.Operation
	h := m.x
	for i := 0; i+1 < len(sizes); i++ {
		layer := s.SubScope(fmt.Sprintf("dense%d", i))
		w, wInit := newVariable(layer, "kernel", glorot(sizes[i], sizes[i+1], rng), tf.MakeShape(int64(sizes[i]), int64(sizes[i+1])))
		b, bInit := newVariable(layer, "bias", make([]float32, sizes[i+1]), tf.MakeShape(int64(sizes[i+1])))
		vars, inits = append(vars, w, b), append(append(inits, wInit...), bInit...)
		h = op.BiasAdd(layer, op.MatMul(layer, h, w.value), b.value)
		if i+2 < len(sizes) {
			h = op.Tanh(layer, h)
		}
	}
	m.loss = op.Mean(s, op.SquaredDifference(s, h, m.y), op.Const(s, []int32{0, 1}))
	values := make([]tf.Output, len(vars))
	for i, v := range vars {
		values[i] = v.value
	}
	grads := op.Gradients(s, []tf.Output{m.loss}, values)
	opt := s.SubScope("adam")
	lr, b1, b2, eps := op.Const(opt, float32(learningRate)), op.Const(opt, float32(beta1)),
		op.Const(opt, float32(beta2)), op.Const(opt, float32(epsilon))
	var updates []*tf.Operation
	for i, v := range vars {
		if s.Err() != nil {
			break
		}
		updates = append(updates, op.ResourceApplyAdam(opt, v.handle, v.m, v.v, m.beta1Power, m.beta2Power,
			lr, b1, b2, eps, grads[i]))
	}
	m.init = op.NoOp(s.SubScope("init").WithControlDependencies(inits...))
	m.train = op.NoOp(s.SubScope("train").WithControlDependencies(updates...))
	return m
}

// train runs steps full-batch Adam steps on n samples and returns the loss before each step.
func train(steps, n int, seed int64) ([]float32, error) {
	rng := rand.New(rand.NewSource(seed))
	s := op.NewScope()
	m := build(s, rng)
	g, err := s.Finalize()
	if err != nil {
		return nil, err
	}
	sess, err := tf.NewSession(g, nil)
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	if _, err := sess.Run(nil, nil, []*tf.Operation{m.init}); err != nil {
		return nil, err
	}
	xs, ys := dataset(n, rng)
	x, err := tf.NewTensor(xs)
	if err != nil {
		return nil, err
	}
	y, err := tf.NewTensor(ys)
	if err != nil {
		return nil, err
	}
	losses := make([]float32, 0, steps)
	for step := 1; step <= steps; step++ {
		p1, _ := tf.NewTensor(float32(math.Pow(beta1, float64(step))))
		p2, _ := tf.NewTensor(float32(math.Pow(beta2, float64(step))))
		feeds := map[tf.Output]*tf.Tensor{m.x: x, m.y: y, m.beta1Power: p1, m.beta2Power: p2}
		out, err := sess.Run(feeds, []tf.Output{m.loss}, []*tf.Operation{m.train})
		if err != nil {
			return nil, fmt.Errorf("step %d: %w", step, err)
		}
		losses = append(losses, out[0].Value().(float32))
	}
	return losses, nil
}

func main() {
	losses, err := train(300, 512, 1)
	if err != nil {
		log.Fatal(err)
	}
	for i := 0; i < len(losses); i += 50 {
		fmt.Printf("step %3d: loss %.5f\n", i+1, losses[i])
	}
	fmt.Printf("step %3d: loss %.5f\n", len(losses), losses[len(losses)-1])
}
