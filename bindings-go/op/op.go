package op

import (
	"fmt"

	tf "github.com/tensorflux/tensorflux/bindings-go/tf"
)

// optionalAttr collects the attrs the functional options of a wrapper set (MatMulTransposeA).
type optionalAttr map[string]interface{}

// Const adds a Const operation holding value: a *tf.Tensor, or any value tf.NewTensor accepts
// (a Go scalar, slice or array of numbers, bools or strings). An unsupported value records an
// error on the scope.
func Const(scope *Scope, value interface{}) (output tf.Output) {
	if scope.Err() != nil {
		return
	}
	t, ok := value.(*tf.Tensor)
	if !ok {
		var err error
		if t, err = tf.NewTensor(value); err != nil {
			scope.UpdateErr("Const", err)
			return
		}
	}
	op := scope.AddOperation(tf.OpSpec{
		Type:  "Const",
		Attrs: map[string]interface{}{"dtype": t.DataType(), "value": t},
	})
	if op == nil {
		return
	}
	return op.Output(0)
}

// makeOutputList returns the outputs of op's list output arg name, which starts at output
// start, and the index of the output after it.
func makeOutputList(op *tf.Operation, start int, name string) ([]tf.Output, int, error) {
	n, err := op.OutputListSize(name)
	if err != nil {
		return nil, start, err
	}
	if start+n > op.NumOutputs() {
		return nil, start, fmt.Errorf("output list %q of %s: %d outputs from %d, but the operation has %d",
			name, op.Name(), n, start, op.NumOutputs())
	}
	list := make([]tf.Output, n)
	for i := range list {
		list[i] = op.Output(start + i)
	}
	return list, start + n, nil
}
