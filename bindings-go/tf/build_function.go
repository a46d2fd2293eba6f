package tf

import "fmt"

// BuildFunction makes a function named `name` from a Go closure: it creates a graph with one
// Placeholder per entry of inputTypes (named "arg0", "arg1", ...), calls build with the graph
// and the placeholders' outputs, and converts the graph between the placeholders and the
// results build returns (NewFunction). Use it for the bodies, conditions and branches of While,
// If and Case, and for PartitionedCall.
func BuildFunction(name string, inputTypes []DataType, build func(g *Graph, args []Output) ([]Output, error)) (*Function, error) {
	g := NewGraph()
	defer g.Delete()
	args := make([]Output, len(inputTypes))
	for i, dt := range inputTypes {
		op, err := g.AddOperation(OpSpec{Type: "Placeholder", Name: fmt.Sprintf("arg%d", i),
			Attrs: map[string]interface{}{"dtype": dt}})
		if err != nil {
			return nil, err
		}
		args[i] = op.Output(0)
	}
	outputs, err := build(g, args)
	if err != nil {
		return nil, err
	}
	return NewFunction(g, name, args, outputs, nil, nil, "")
}
