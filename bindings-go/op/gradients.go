package op

import (
	"fmt"

	tf "github.com/tensorflux/tensorflux/bindings-go/tf"
)

// Gradients adds operations computing the partial derivatives of sum(y) with respect to each x
// (tf.gradients semantics), starting from the gradients dx of y (none: ones), named under a
// unique "Gradients" namespace of scope. An x that no y depends on gets an Output with a nil
// Op. Errors (no gradient for an op, bad arguments) are recorded on the scope.
func Gradients(scope *Scope, y []tf.Output, x []tf.Output, dx ...tf.Output) (output []tf.Output) {
	if scope.Err() != nil {
		return
	}
	if len(dx) != 0 && len(dx) != len(y) {
		scope.UpdateErr("Gradients", fmt.Errorf("%d initial gradients for %d ys", len(dx), len(y)))
		return
	}
	if len(scope.controlDependencies) > 0 || scope.device != "" {
		scope.UpdateErr("Gradients", fmt.Errorf("control dependencies and devices of a scope do not apply "+
			"to gradients; build them in a scope without"))
		return
	}
	var err error
	if output, err = scope.graph.AddGradients(scope.uniqueName("Gradients"), y, x, dx); err != nil {
		scope.UpdateErr("Gradients", err)
		return nil
	}
	return output
}
