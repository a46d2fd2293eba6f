package tf

// #include <stdlib.h>
// #include "tensorflux/c/c_api_eager.h"
import "C"

import (
	"runtime"
	"sync"
	"unsafe"
)

// ContextOptions configure an eager Context; the zero value means the engine's defaults.
type ContextOptions struct {
	// IntraOpThreads and InterOpThreads size the thread pools (0: one per core).
	IntraOpThreads, InterOpThreads int
	// NumCPUDevices is the number of logical CPU devices (0 or 1: one).
	NumCPUDevices int
}

// Context executes ops one at a time (a TXE_Context). It may be used from several goroutines.
// The C context is freed once it is closed and every TensorHandle and GradientTape made from it
// is deleted (the C API requires that order; the Go side keeps it).
type Context struct {
	mu     sync.Mutex
	c      *C.TXE_Context
	refs   int // live handles and tapes
	closed bool
	ops    map[string]*opPool // idle ops by type, reused by ExecuteOp (guarded by mu)
	// Functions in the C library, by name (guarded by mu): explicit ones (AddFunction) stay until
	// RemoveFunction; the others were added for ops' *Function attrs and are counted per Function
	// (Note [Context function lifetime]).
	explicit map[string]bool
	implicit map[string]int
}

// Note [Context function lifetime]
// An eager op whose attr is a *Function (While's cond and body, If's branches, a call's f) needs
// the function in the context's library, so ExecuteOp adds it there. Nothing else would ever
// take it out, and a loop building a new Function per step would grow the library without
// bound; so such functions live as long as the Functions that put them there: each Function
// records the contexts it was added to, and when it is deleted (Delete, or its finalizer) the
// context removes the definition once no live Function with that name used it, unless
// AddFunction added the name explicitly (explicit additions stay until RemoveFunction, since
// other functions of the library may call them by name). Removing a definition also frees its
// instantiated bodies and the kernels cached for calls of it (TXE_ContextRemoveFunction).

// opPool holds idle TXE_Ops of one type, each with a status, and the type's name as a C string.
// Reusing an op through TXE_OpReset keeps its cached kernel, as the Python binding does (Note
// [Eager fast path] in core/src/pywrap/eager_execute.cc); every C call sets the status it is given.
type opPool struct {
	name *C.char
	idle []pooledOp
}

type pooledOp struct {
	op *C.TXE_Op
	s  status
}

// NewContext creates an eager context; opts may be nil.
func NewContext(opts *ContextOptions) (*Context, error) {
	copts := C.TXE_NewContextOptions()
	defer C.TXE_DeleteContextOptions(copts)
	if opts != nil {
		C.TXE_ContextOptionsSetThreads(copts, C.int(opts.IntraOpThreads), C.int(opts.InterOpThreads))
		if opts.NumCPUDevices > 1 {
			C.TXE_ContextOptionsSetNumCpuDevices(copts, C.int(opts.NumCPUDevices))
		}
	}
	s := newStatus()
	defer s.done()
	c := C.TXE_NewContext(copts, s.c)
	if err := s.err(); err != nil {
		return nil, err
	}
	ctx := &Context{c: c}
	runtime.SetFinalizer(ctx, func(ctx *Context) { ctx.Close() })
	return ctx, nil
}

// Close ends the context: later calls on it fail; the C context is freed when the last
// handle or tape made from it is deleted. Closing twice is a no-op.
func (ctx *Context) Close() {
	ctx.mu.Lock()
	defer ctx.mu.Unlock()
	ctx.closed = true
	ctx.freeIfUnused()
	runtime.SetFinalizer(ctx, nil)
}

// freeIfUnused frees the C context once closed and unreferenced; ctx.mu must be held.
func (ctx *Context) freeIfUnused() {
	if ctx.closed && ctx.refs == 0 && ctx.c != nil {
		for _, p := range ctx.ops {
			for _, po := range p.idle {
				C.TXE_DeleteOp(po.op)
				po.s.done()
			}
			C.free(unsafe.Pointer(p.name))
		}
		ctx.ops = nil
		C.TXE_DeleteContext(ctx.c)
		ctx.c = nil
	}
}

// acquire takes a reference for a new handle or tape; an error when the context is closed.
func (ctx *Context) acquire() error {
	ctx.mu.Lock()
	defer ctx.mu.Unlock()
	if ctx.closed || ctx.c == nil {
		return errorf(FailedPrecondition, "the eager context is closed")
	}
	ctx.refs++
	return nil
}

// release drops a reference taken by acquire.
func (ctx *Context) release() {
	ctx.mu.Lock()
	defer ctx.mu.Unlock()
	ctx.refs--
	ctx.freeIfUnused()
}

// Devices returns the full names of the context's devices.
func (ctx *Context) Devices() ([]string, error) {
	if err := ctx.acquire(); err != nil {
		return nil, err
	}
	defer ctx.release()
	s := newStatus()
	defer s.done()
	n := int(C.TXE_ContextNumDevices(ctx.c))
	names := make([]string, n)
	for i := range names {
		names[i] = C.GoString(C.TXE_ContextDeviceName(ctx.c, C.int(i), s.c))
		if err := s.err(); err != nil {
			return nil, err
		}
	}
	return names, nil
}

// AddFunction copies f into the context's library so call ops (StatefulPartitionedCall, While,
// If, ...) executed on the context can run it; it stays there until RemoveFunction.
func (ctx *Context) AddFunction(f *Function) error {
	if err := ctx.addFunction(f); err != nil {
		return err
	}
	ctx.mu.Lock()
	defer ctx.mu.Unlock()
	if ctx.explicit == nil {
		ctx.explicit = map[string]bool{}
	}
	ctx.explicit[f.Name()] = true
	return nil
}

// addFunction copies f into the C library.
func (ctx *Context) addFunction(f *Function) error {
	if f == nil || f.c == nil {
		return errorf(InvalidArgument, "the function is nil or deleted")
	}
	if err := ctx.acquire(); err != nil {
		return err
	}
	defer ctx.release()
	s := newStatus()
	defer s.done()
	C.TXE_ContextAddFunction(ctx.c, f.c, s.c)
	runtime.KeepAlive(f)
	return s.err()
}

// useFunction adds f for an op's attr, once per Function (Note [Context function lifetime]).
func (ctx *Context) useFunction(f *Function) error {
	if f == nil || f.c == nil {
		return errorf(InvalidArgument, "the function is nil or deleted")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.contexts[ctx]; ok {
		return nil
	}
	if err := ctx.addFunction(f); err != nil {
		return err
	}
	ctx.mu.Lock()
	if ctx.implicit == nil {
		ctx.implicit = map[string]int{}
	}
	ctx.implicit[f.Name()]++
	ctx.mu.Unlock()
	if f.contexts == nil {
		f.contexts = map[*Context]struct{}{}
	}
	f.contexts[ctx] = struct{}{}
	return nil
}

// dropFunction is called when a Function that useFunction added as `name` is deleted.
func (ctx *Context) dropFunction(name string) {
	ctx.mu.Lock()
	defer ctx.mu.Unlock()
	if ctx.implicit[name]--; ctx.implicit[name] > 0 {
		return
	}
	delete(ctx.implicit, name)
	if ctx.explicit[name] || ctx.closed || ctx.c == nil {
		return
	}
	s := newStatus()
	defer s.done()
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	C.TXE_ContextRemoveFunction(ctx.c, cname, s.c) // NOT_FOUND if RemoveFunction came first: fine
}

// RemoveFunction removes function `name` from the context's library (TensorFlow's
// TFE_ContextRemoveFunction), freeing its definition, instantiated bodies and the kernels cached
// for calls of it; ops running now keep what they use. NotFound when absent. Remove a function
// only after the functions that call it.
func (ctx *Context) RemoveFunction(name string) error {
	if err := ctx.acquire(); err != nil {
		return err
	}
	defer ctx.release()
	ctx.mu.Lock()
	delete(ctx.explicit, name)
	ctx.mu.Unlock()
	s := newStatus()
	defer s.done()
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	C.TXE_ContextRemoveFunction(ctx.c, cname, s.c)
	return s.err()
}

// NumFunctions is the number of functions in the context's library (0 once it is closed).
func (ctx *Context) NumFunctions() int {
	if ctx.acquire() != nil {
		return 0
	}
	defer ctx.release()
	return int(C.TXE_ContextNumFunctions(ctx.c))
}

// TensorHandle is an immutable value living on a device of a Context (a TXE_TensorHandle).
type TensorHandle struct {
	c   *C.TXE_TensorHandle
	ctx *Context
}

// newHandleFromC wraps a caller-owned TXE_TensorHandle whose reference on ctx is already taken.
func newHandleFromC(ctx *Context, c *C.TXE_TensorHandle) *TensorHandle {
	h := &TensorHandle{c: c, ctx: ctx}
	runtime.SetFinalizer(h, (*TensorHandle).Delete)
	return h
}

// NewTensorHandle makes a handle on ctx's first device sharing t's value.
func (ctx *Context) NewTensorHandle(t *Tensor) (*TensorHandle, error) {
	if t == nil || t.c == nil {
		return nil, errorf(InvalidArgument, "nil or deleted tensor")
	}
	if err := ctx.acquire(); err != nil {
		return nil, err
	}
	s := newStatus()
	defer s.done()
	c := C.TXE_NewTensorHandle(t.c, s.c)
	runtime.KeepAlive(t)
	if err := s.err(); err != nil {
		ctx.release()
		return nil, err
	}
	return newHandleFromC(ctx, c), nil
}

// NewTensorHandle makes a handle of t on ctx (TensorFlow Go's spelling); see Context.NewTensorHandle.
func NewTensorHandle(ctx *Context, t *Tensor) (*TensorHandle, error) { return ctx.NewTensorHandle(t) }

// Delete releases the handle now (a finalizer does it otherwise).
func (h *TensorHandle) Delete() {
	if h == nil || h.c == nil {
		return
	}
	C.TXE_DeleteTensorHandle(h.c)
	h.c = nil
	runtime.SetFinalizer(h, nil)
	h.ctx.release()
}

// check returns an error for a nil or deleted handle.
func (h *TensorHandle) check() error {
	if h == nil || h.c == nil {
		return errorf(InvalidArgument, "nil or deleted tensor handle")
	}
	return nil
}

// DataType is the element type (0 for a deleted handle).
func (h *TensorHandle) DataType() DataType {
	if h.check() != nil {
		return 0
	}
	defer runtime.KeepAlive(h)
	return DataType(C.TXE_TensorHandleDataType(h.c))
}

// Shape returns the dimensions.
func (h *TensorHandle) Shape() ([]int64, error) {
	if err := h.check(); err != nil {
		return nil, err
	}
	defer runtime.KeepAlive(h)
	s := newStatus()
	defer s.done()
	n := C.TXE_TensorHandleNumDims(h.c, s.c)
	if err := s.err(); err != nil {
		return nil, err
	}
	dims := make([]int64, int(n)+1)
	C.TXE_TensorHandleShape(h.c, (*C.int64_t)(unsafe.Pointer(&dims[0])), n, s.c)
	if err := s.err(); err != nil {
		return nil, err
	}
	return dims[:n], nil
}

// DeviceName is the full name of the device the handle lives on.
func (h *TensorHandle) DeviceName() (string, error) {
	if err := h.check(); err != nil {
		return "", err
	}
	defer runtime.KeepAlive(h)
	s := newStatus()
	defer s.done()
	name := C.TXE_TensorHandleDeviceName(h.c, s.c)
	return C.GoString(name), s.err()
}

// ToTensor returns the handle's value as a Tensor.
func (h *TensorHandle) ToTensor() (*Tensor, error) {
	if err := h.check(); err != nil {
		return nil, err
	}
	defer runtime.KeepAlive(h)
	s := newStatus()
	defer s.done()
	c := C.TXE_TensorHandleResolve(h.c, s.c)
	if err := s.err(); err != nil {
		return nil, err
	}
	return newTensorFromC(c), nil
}

// Value is ToTensor().Value(), or nil on error.
func (h *TensorHandle) Value() interface{} {
	t, err := h.ToTensor()
	if err != nil {
		return nil
	}
	defer t.Delete()
	return t.Value()
}
