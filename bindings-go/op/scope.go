// Package op builds graphs through generated functions, one per registered op (wrappers_*.go,
// from tools/gen_go_ops.py), and a Scope that names operations and collects the first error.
//
//	s := op.NewScope()
//	x := op.Placeholder(s, tf.Float, op.PlaceholderShape(tf.MakeShape(-1, 3)))
//	y := op.MatMul(s, x, op.Const(s, [][]float32{{1}, {2}, {3}}), op.MatMulTransposeA(false))
//	graph, err := s.Finalize()
package op

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	tf "github.com/tensorflux/tensorflux/bindings-go/tf"
)

// Scope adds operations to one graph under a name prefix, with control dependencies and a
// device applied to every operation it adds. Scopes made from one another (SubScope,
// WithControlDependencies, WithDevice) share the graph, the set of used names and the error.
//
// The first error (a bad op or attr, a bad namespace) is kept: from then on AddOperation and
// the wrappers add nothing and return zero values, and Finalize returns that error. A Scope is
// not safe for concurrent use.
type Scope struct {
	graph               *tf.Graph
	names               map[string]bool
	namespace           string
	controlDependencies []*tf.Operation
	device              string
	err                 *scopeErr
}

// scopeErr is the first error of a scope tree; shared by pointer so all scopes see it.
type scopeErr struct {
	err error
}

// errFinalized is the error of a scope whose graph Finalize has handed out.
var errFinalized = errors.New("op: the scope has been finalized and is no longer usable")

var validNamespace = regexp.MustCompile(`^[A-Za-z0-9.][A-Za-z0-9_.\-]*$`)

// NewScope returns a root scope over a new, empty graph.
func NewScope() *Scope {
	return NewScopeWithGraph(tf.NewGraph())
}

// NewScopeWithGraph returns a root scope that adds to g; names of operations already in g are
// never reused.
func NewScopeWithGraph(g *tf.Graph) *Scope {
	return &Scope{graph: g, names: map[string]bool{}, err: &scopeErr{}}
}

// Err returns the first error any scope of this tree met, or nil.
func (s *Scope) Err() error {
	return s.err.err
}

// UpdateErr records err, met while adding an operation of type op (prefixed "[op] " unless its
// text names the op already), unless an error is already recorded; a nil err is ignored.
func (s *Scope) UpdateErr(op string, err error) {
	if err == nil || s.err.err != nil {
		return
	}
	if strings.Contains(err.Error(), "["+op) { // the engine's errors name the node already
		s.err.err = err
		return
	}
	s.err.err = fmt.Errorf("[%s] %w", op, err)
}

// Finalize returns the graph and makes this scope tree unusable (later operations record an
// error), or returns the first error met while building.
func (s *Scope) Finalize() (*tf.Graph, error) {
	if err := s.Err(); err != nil {
		return nil, err
	}
	s.err.err = errFinalized
	return s.graph, nil
}

// AddOperation adds one operation with a unique name (args.Name, or args.Type when empty,
// under the scope's namespace) and the scope's control dependencies and device (unless
// args.Device is set). It returns nil, adding nothing, when the scope has an error, and records
// the error when the graph rejects the operation.
func (s *Scope) AddOperation(args tf.OpSpec) *tf.Operation {
	if s.Err() != nil {
		return nil
	}
	if args.Name == "" {
		args.Name = args.Type
	}
	args.Name = s.uniqueName(args.Name)
	if len(s.controlDependencies) > 0 {
		deps := make([]*tf.Operation, 0, len(args.ControlDependencies)+len(s.controlDependencies))
		deps = append(deps, args.ControlDependencies...)
		args.ControlDependencies = append(deps, s.controlDependencies...)
	}
	if args.Device == "" {
		args.Device = s.device
	}
	op, err := s.graph.AddOperation(args)
	if err != nil {
		s.UpdateErr(args.Type, err)
		return nil
	}
	return op
}

// SubScope returns a scope whose operations are named under namespace (made unique among the
// names of this scope: "a", then "a_1"). An invalid namespace records an error.
func (s *Scope) SubScope(namespace string) *Scope {
	if !validNamespace.MatchString(namespace) {
		s.UpdateErr("SubScope", fmt.Errorf("invalid namespace %q: want letters, digits, '.', '_' or '-', "+
			"not starting with '_' or '-'", namespace))
	}
	sub := s.clone()
	sub.namespace = s.uniqueName(namespace)
	return sub
}

// WithControlDependencies returns a scope whose operations run only after ops (added to the
// control dependencies this scope already has).
func (s *Scope) WithControlDependencies(ops ...*tf.Operation) *Scope {
	sub := s.clone()
	sub.controlDependencies = make([]*tf.Operation, 0, len(s.controlDependencies)+len(ops))
	sub.controlDependencies = append(sub.controlDependencies, s.controlDependencies...)
	sub.controlDependencies = append(sub.controlDependencies, ops...)
	return sub
}

// WithDevice returns a scope whose operations are placed on device ("" places them anywhere).
func (s *Scope) WithDevice(device string) *Scope {
	sub := s.clone()
	sub.device = device
	return sub
}

// clone copies the scope; the copy shares the graph, the names and the error.
func (s *Scope) clone() *Scope {
	c := *s
	return &c
}

// uniqueName returns name under the scope's namespace, with "_1", "_2", ... appended when an
// operation or namespace of this scope tree, or an operation of the graph, has it already.
func (s *Scope) uniqueName(name string) string {
	full := name
	if s.namespace != "" {
		full = s.namespace + "/" + name
	}
	candidate := full
	for i := 1; s.names[candidate] || s.graph.Operation(candidate) != nil; i++ {
		candidate = full + "_" + strconv.Itoa(i)
	}
	s.names[candidate] = true
	return candidate
}
