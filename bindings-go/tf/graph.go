package tf

// #include <stdlib.h>
// #include "tensorflux/c/c_api.h"
import "C"

import (
	"io"
	"runtime"
	"unsafe"
)

// Graph is a dataflow graph (a TX_Graph): operations, and a library of functions they call.
// It may be read and extended from several goroutines at once.
type Graph struct {
	c *C.TX_Graph
}

// NewGraph returns an empty graph.
func NewGraph() *Graph {
	g := &Graph{c: C.TX_NewGraph()}
	runtime.SetFinalizer(g, (*Graph).Delete)
	return g
}

// Delete drops the graph's C handle now (sessions on it keep it alive); the graph and its
// operations are unusable afterwards.
func (g *Graph) Delete() {
	if g == nil || g.c == nil {
		return
	}
	C.TX_DeleteGraph(g.c)
	g.c = nil
	runtime.SetFinalizer(g, nil)
}

// check returns an error for a nil or deleted graph.
func (g *Graph) check() error {
	if g == nil || g.c == nil {
		return errorf(FailedPrecondition, "the graph was deleted")
	}
	return nil
}

// GraphImportOptions are the options of ImportWithOptions.
type GraphImportOptions struct {
	// Prefix is prepended to every imported name ("prefix/name").
	Prefix string
	// Device is the device of imported operations that request none.
	Device string
	// UniquifyNames renames imported operations whose names clash instead of failing.
	UniquifyNames bool
	// UniquifyPrefix makes the prefix itself unique in the graph.
	UniquifyPrefix bool
	// InputMapping makes imported uses of "name:index" read the given Output instead.
	InputMapping map[string]Output
}

// Import adds the operations and functions of a serialized GraphDef, their names prefixed
// with "prefix/" (when prefix is not empty). All or nothing: on error the graph is unchanged.
func (g *Graph) Import(def []byte, prefix string) error {
	return g.ImportWithOptions(def, GraphImportOptions{Prefix: prefix})
}

// ImportWithOptions adds the operations and functions of a serialized GraphDef.
func (g *Graph) ImportWithOptions(def []byte, opts GraphImportOptions) error {
	if err := g.check(); err != nil {
		return err
	}
	copts := C.TX_NewImportGraphDefOptions()
	defer C.TX_DeleteImportGraphDefOptions(copts)
	if opts.Prefix != "" {
		cs := C.CString(opts.Prefix)
		defer C.free(unsafe.Pointer(cs))
		C.TX_ImportGraphDefOptionsSetPrefix(copts, cs)
	}
	if opts.Device != "" {
		cs := C.CString(opts.Device)
		defer C.free(unsafe.Pointer(cs))
		C.TX_ImportGraphDefOptionsSetDefaultDevice(copts, cs)
	}
	C.TX_ImportGraphDefOptionsSetUniquifyNames(copts, cBool(opts.UniquifyNames))
	C.TX_ImportGraphDefOptionsSetUniquifyPrefix(copts, cBool(opts.UniquifyPrefix))
	for src, dst := range opts.InputMapping {
		if err := g.owns(dst.Op); err != nil {
			return err
		}
		name, index, err := splitTensorName(src)
		if err != nil {
			return err
		}
		cs := C.CString(name)
		defer C.free(unsafe.Pointer(cs))
		C.TX_ImportGraphDefOptionsAddInputMapping(copts, cs, C.int(index), dst.c())
	}
	buf := newBufferFrom(def)
	defer C.TX_DeleteBuffer(buf)
	s := newStatus()
	defer s.done()
	C.TX_GraphImportGraphDef(g.c, buf, copts, s.c)
	runtime.KeepAlive(g)
	return s.err()
}

// WriteTo writes the graph as a serialized GraphDef to w.
func (g *Graph) WriteTo(w io.Writer) (int64, error) {
	if err := g.check(); err != nil {
		return 0, err
	}
	buf := C.TX_NewBuffer()
	defer C.TX_DeleteBuffer(buf)
	s := newStatus()
	defer s.done()
	C.TX_GraphToGraphDef(g.c, buf, s.c)
	runtime.KeepAlive(g)
	if err := s.err(); err != nil {
		return 0, err
	}
	n, err := w.Write(bufferBytes(buf))
	return int64(n), err
}

// Operation returns the operation named name, or nil.
func (g *Graph) Operation(name string) *Operation {
	if g.check() != nil {
		return nil
	}
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	c := C.TX_GraphOperationByName(g.c, cs)
	if c == nil {
		return nil
	}
	return &Operation{c: c, g: g}
}

// Operations returns every operation in creation order.
func (g *Graph) Operations() []Operation {
	if g.check() != nil {
		return nil
	}
	var ops []Operation
	var pos C.size_t
	for c := C.TX_GraphNextOperation(g.c, &pos); c != nil; c = C.TX_GraphNextOperation(g.c, &pos) {
		ops = append(ops, Operation{c: c, g: g})
	}
	return ops
}

// AddFunction copies f (and the functions it calls must already be there or be added too) into
// the graph's library. An identical definition already there is a no-op.
func (g *Graph) AddFunction(f *Function) error { return g.AddFunctionWithGradient(f, nil) }

// AddFunctionWithGradient copies f, and grad when not nil, into the library and records grad as
// the gradient of f (it takes f's inputs and one gradient per output, and returns one per input).
func (g *Graph) AddFunctionWithGradient(f, grad *Function) error {
	if err := g.check(); err != nil {
		return err
	}
	if f == nil || f.c == nil {
		return errorf(InvalidArgument, "the function is nil or deleted")
	}
	var cgrad *C.TX_Function
	if grad != nil {
		if grad.c == nil {
			return errorf(InvalidArgument, "the gradient function was deleted")
		}
		cgrad = grad.c
	}
	s := newStatus()
	defer s.done()
	C.TX_GraphCopyFunction(g.c, f.c, cgrad, s.c)
	runtime.KeepAlive(g)
	runtime.KeepAlive(f)
	runtime.KeepAlive(grad)
	return s.err()
}

// NumFunctions is the number of functions in the graph's library.
func (g *Graph) NumFunctions() int {
	if g.check() != nil {
		return 0
	}
	defer runtime.KeepAlive(g)
	return int(C.TX_GraphNumFunctions(g.c))
}

// Functions returns copies of the functions in the graph's library, sorted by name.
func (g *Graph) Functions() ([]*Function, error) {
	if err := g.check(); err != nil {
		return nil, err
	}
	n := C.TX_GraphNumFunctions(g.c)
	if n == 0 {
		return nil, nil
	}
	cfns := make([]*C.TX_Function, int(n))
	s := newStatus()
	defer s.done()
	got := C.TX_GraphGetFunctions(g.c, &cfns[0], n, s.c)
	runtime.KeepAlive(g)
	if err := s.err(); err != nil {
		return nil, err
	}
	fns := make([]*Function, int(got))
	for i := range fns {
		fns[i] = newFunctionFromC(cfns[i])
	}
	return fns, nil
}

// owns returns an error unless op is a live operation of g.
func (g *Graph) owns(op *Operation) error {
	if err := g.check(); err != nil {
		return err
	}
	if op == nil || op.c == nil {
		return errorf(InvalidArgument, "nil operation")
	}
	if op.g != g {
		return errorf(InvalidArgument, "operation '%s' belongs to another graph", op.Name())
	}
	return nil
}

// cBool converts a Go bool to the C API's unsigned char.
func cBool(b bool) C.uchar {
	if b {
		return 1
	}
	return 0
}

// newBufferFrom copies b into a new TX_Buffer (caller frees it with TX_DeleteBuffer).
func newBufferFrom(b []byte) *C.TX_Buffer {
	if len(b) == 0 {
		return C.TX_NewBufferFromString(nil, 0)
	}
	return C.TX_NewBufferFromString(unsafe.Pointer(&b[0]), C.size_t(len(b)))
}

// bufferBytes copies the buffer's data into Go memory.
func bufferBytes(buf *C.TX_Buffer) []byte {
	b := C.TX_GetBuffer(buf)
	if b.length == 0 {
		return []byte{}
	}
	return C.GoBytes(b.data, C.int(b.length))
}
