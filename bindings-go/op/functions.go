package op

import (
	"fmt"
	"strings"

	tf "github.com/tensorflux/tensorflux/bindings-go/tf"
)

// BuildFunction makes a graph function named name (tf.BuildFunction with a Scope): build
// receives a scope over a fresh graph and one Placeholder per argument type and returns the
// results. The body cannot use tensors of other graphs; pass what it needs as arguments.
func BuildFunction(name string, argTypes []tf.DataType, build func(s *Scope, args []tf.Output) []tf.Output) (
	*tf.Function, error) {
	return tf.BuildFunction(name, argTypes, func(g *tf.Graph, args []tf.Output) ([]tf.Output, error) {
		s := NewScopeWithGraph(g)
		results := build(s, args)
		if err := s.Err(); err != nil {
			return nil, fmt.Errorf("function '%s': %w", name, err)
		}
		return results, nil
	})
}

// WhileLoop adds a While op that runs body on the loop variables while cond holds and returns
// their final values. cond builds a scalar bool from the variables, body their next values
// (same count and types); both are built as functions (BuildFunction) named after the loop,
// so they see only the loop variables. Errors are recorded on scope.
func WhileLoop(scope *Scope, loopVars []tf.Output, cond func(s *Scope, vars []tf.Output) tf.Output,
	body func(s *Scope, vars []tf.Output) []tf.Output, optional ...WhileAttr) (output []tf.Output) {
	if scope.Err() != nil {
		return
	}
	types := make([]tf.DataType, len(loopVars))
	for i, v := range loopVars {
		types[i] = v.DataType()
	}
	base := strings.ReplaceAll(scope.uniqueName("while"), "/", "_")
	condFn, err := BuildFunction(base+"_cond", types, func(s *Scope, vars []tf.Output) []tf.Output {
		return []tf.Output{cond(s, vars)}
	})
	if err != nil {
		scope.UpdateErr("While", err)
		return
	}
	bodyFn, err := BuildFunction(base+"_body", types, body)
	if err != nil {
		scope.UpdateErr("While", err)
		return
	}
	return While(scope, loopVars, condFn, bodyFn, optional...)
}
