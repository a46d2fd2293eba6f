package tf

// #include <stdlib.h>
// #include "tensorflux/c/c_api_eager.h"
import "C"

import (
	"runtime"
)

// GradientTape records the eager ops that read watched values and differentiates through them
// with the engine's registered gradients (TensorFlow's tf.GradientTape, a TXE_Tape).
//
// The engine's tapes record the ops executed on the OS thread that created them, so
// NewGradientTape locks the calling goroutine to its thread (runtime.LockOSThread) and Delete
// unlocks it: execute the ops to record, and call Delete, on the goroutine that made the tape.
type GradientTape struct {
	c      *C.TXE_Tape
	ctx    *Context
	locked bool
}

// NewGradientTape starts a tape recording on ctx. A persistent tape allows several Gradient
// calls; watchAccessedVariables watches every variable read while the tape records.
func (ctx *Context) NewGradientTape(persistent, watchAccessedVariables bool) (*GradientTape, error) {
	if err := ctx.acquire(); err != nil {
		return nil, err
	}
	runtime.LockOSThread()
	s := newStatus()
	defer s.done()
	c := C.TXE_NewTape(ctx.c, cBool(persistent), cBool(watchAccessedVariables), s.c)
	if err := s.err(); err != nil {
		runtime.UnlockOSThread()
		ctx.release()
		return nil, err
	}
	tape := &GradientTape{c: c, ctx: ctx, locked: true}
	runtime.SetFinalizer(tape, func(t *GradientTape) {
		t.locked = false // a finalizer runs on another goroutine: nothing to unlock there
		t.Delete()
	})
	return tape, nil
}

// Delete stops recording, frees the tape, and unlocks the goroutine from its OS thread.
func (t *GradientTape) Delete() {
	if t == nil || t.c == nil {
		return
	}
	C.TXE_DeleteTape(t.c)
	t.c = nil
	runtime.SetFinalizer(t, nil)
	if t.locked {
		t.locked = false
		runtime.UnlockOSThread()
	}
	t.ctx.release()
}

// check returns an error for a deleted tape.
func (t *GradientTape) check() error {
	if t == nil || t.c == nil {
		return errorf(FailedPrecondition, "the gradient tape was deleted")
	}
	return nil
}

// Watch makes gradients with respect to h (a tensor, or a resource variable handle) available
// through the ops recorded from now on.
func (t *GradientTape) Watch(h *TensorHandle) error {
	if err := t.check(); err != nil {
		return err
	}
	if err := h.check(); err != nil {
		return err
	}
	s := newStatus()
	defer s.done()
	C.TXE_TapeWatch(t.c, h.c, s.c)
	runtime.KeepAlive(h)
	runtime.KeepAlive(t)
	return s.err()
}

// SetRecording pauses (false) or resumes (true) recording.
func (t *GradientTape) SetRecording(recording bool) {
	if t.check() == nil {
		C.TXE_TapeSetRecording(t.c, cBool(recording))
		runtime.KeepAlive(t)
	}
}

// Gradient returns d(sum of targets)/d(source) for each source; a source no target depends on
// gets nil.
func (t *GradientTape) Gradient(targets, sources []*TensorHandle) ([]*TensorHandle, error) {
	return t.GradientWithOptions(targets, sources, nil, false)
}

// GradientWithOptions is Gradient with outputGradients (nil, or one per target; a nil entry
// means ones) weighting the targets, and unconnectedZeros giving unconnected sources zeros
// instead of nil.
func (t *GradientTape) GradientWithOptions(targets, sources, outputGradients []*TensorHandle,
	unconnectedZeros bool) ([]*TensorHandle, error) {
	if err := t.check(); err != nil {
		return nil, err
	}
	if outputGradients != nil && len(outputGradients) != len(targets) {
		return nil, errorf(InvalidArgument, "%d output gradients for %d targets", len(outputGradients), len(targets))
	}
	ct, err := handlePointers(targets, false)
	if err != nil {
		return nil, errorf(InvalidArgument, "target %s", errorMessage(err))
	}
	cs, err := handlePointers(sources, false)
	if err != nil {
		return nil, errorf(InvalidArgument, "source %s", errorMessage(err))
	}
	var cg []*C.TXE_TensorHandle
	if outputGradients != nil {
		if cg, err = handlePointers(outputGradients, true); err != nil {
			return nil, errorf(InvalidArgument, "output gradient %s", errorMessage(err))
		}
	}
	unconnected := C.int(C.TX_UNCONNECTED_NONE)
	if unconnectedZeros {
		unconnected = C.TX_UNCONNECTED_ZERO
	}
	results := make([]*C.TXE_TensorHandle, len(sources))
	s := newStatus()
	defer s.done()
	C.TXE_TapeGradient(t.c, (**C.TXE_TensorHandle)(firstOrNil(ct)), C.int(len(ct)),
		(**C.TXE_TensorHandle)(firstOrNil(cs)), C.int(len(cs)), (**C.TXE_TensorHandle)(firstOrNil(cg)), unconnected,
		(**C.TXE_TensorHandle)(firstOrNil(results)), s.c)
	runtime.KeepAlive(targets)
	runtime.KeepAlive(sources)
	runtime.KeepAlive(outputGradients)
	runtime.KeepAlive(t)
	if err := s.err(); err != nil {
		return nil, err
	}
	out := make([]*TensorHandle, len(results))
	for i, c := range results {
		if c != nil {
			out[i] = t.ctx.wrapHandles([]*C.TXE_TensorHandle{c})[0]
		}
	}
	return out, nil
}

// handlePointers returns the C handles of hs; nil entries are errors unless allowNil.
func handlePointers(hs []*TensorHandle, allowNil bool) ([]*C.TXE_TensorHandle, error) {
	c := make([]*C.TXE_TensorHandle, len(hs))
	for i, h := range hs {
		if h == nil && allowNil {
			continue
		}
		if err := h.check(); err != nil {
			return nil, errorf(InvalidArgument, "%d: %s", i, errorMessage(err))
		}
		c[i] = h.c
	}
	return c, nil
}
