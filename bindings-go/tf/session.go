package tf

// #include <stdlib.h>
// #include "tensorflux/c/c_api.h"
import "C"

import (
	"context"
	"runtime"
	"sync"
	"time"
	"unsafe"
)

// SessionOptions configure a session; the zero value means the engine's defaults.
type SessionOptions struct {
	// IntraOpThreads is the number of threads one operation may use (0: one per core).
	IntraOpThreads int
	// InterOpThreads is the number of threads running independent operations (0: one per core).
	InterOpThreads int
	// Config is a serialized ConfigProto (optional; its thread counts and allow_soft_placement are read).
	Config []byte
}

// Session runs a graph (a TX_Session). Run may be called from several goroutines at once.
type Session struct {
	mu      sync.RWMutex // Run holds it shared; Close takes it exclusively to free the session
	closeMu sync.Mutex   // serializes Close calls
	c       *C.TX_Session
	g       *Graph
}

// NewSession creates a session on g; operations may still be added to g and run later.
func NewSession(g *Graph, opts *SessionOptions) (*Session, error) {
	if err := g.check(); err != nil {
		return nil, err
	}
	copts := C.TX_NewSessionOptions()
	defer C.TX_DeleteSessionOptions(copts)
	s := newStatus()
	defer s.done()
	if opts != nil {
		if len(opts.Config) > 0 {
			C.TX_SetConfig(copts, unsafe.Pointer(&opts.Config[0]), C.size_t(len(opts.Config)), s.c)
			if err := s.err(); err != nil {
				return nil, err
			}
		}
		if opts.IntraOpThreads != 0 {
			C.TX_SessionOptionsSetIntraOpThreads(copts, C.int(opts.IntraOpThreads))
		}
		if opts.InterOpThreads != 0 {
			C.TX_SessionOptionsSetInterOpThreads(copts, C.int(opts.InterOpThreads))
		}
	}
	c := C.TX_NewSession(g.c, copts, s.c)
	runtime.KeepAlive(g)
	if err := s.err(); err != nil {
		return nil, err
	}
	sess := &Session{c: c, g: g}
	runtime.SetFinalizer(sess, func(s *Session) { _ = s.Close() })
	return sess, nil
}

// RunOptions are per-run options (TensorFlow's RunOptions); the zero value means none.
type RunOptions struct {
	// Timeout, when positive, makes the run fail with DeadlineExceeded once it has run that long
	// (RunOptions.timeout_in_ms, rounded up to a millisecond): it stops at the next kernel or loop
	// iteration, and the session stays usable.
	Timeout time.Duration
	// Trace records every kernel the run executes (RunOptions.trace_level = FULL_TRACE), for
	// RunWithMetadata.
	Trace bool
}

// serialize encodes the options as a RunOptions message (nil when there is nothing to say).
func (o RunOptions) serialize() []byte {
	var b []byte
	if o.Trace {
		b = append(b, 1<<3|0, 3) // field 1 (trace_level), varint FULL_TRACE
	}
	if o.Timeout <= 0 {
		return b
	}
	ms := uint64((o.Timeout + time.Millisecond - 1) / time.Millisecond)
	b = append(b, 2<<3|0) // field 2 (timeout_in_ms), varint
	for ; ms >= 0x80; ms >>= 7 {
		b = append(b, byte(ms)|0x80)
	}
	return append(b, byte(ms))
}

// Run feeds the tensors of `feeds`, computes `fetches` and runs `targets` for their side
// effects; it returns one new tensor per fetch. Every problem is an *Error: a closed session
// (Cancelled), outputs or operations of another graph, nil tensors, and engine errors.
func (s *Session) Run(feeds map[Output]*Tensor, fetches []Output, targets []*Operation) ([]*Tensor, error) {
	return s.run(nil, nil, feeds, fetches, targets, nil)
}

// RunWithOptions is Run with per-run options: with opts.Timeout > 0 a run still going after that
// long fails with DeadlineExceeded.
func (s *Session) RunWithOptions(opts RunOptions, feeds map[Output]*Tensor, fetches []Output,
	targets []*Operation) ([]*Tensor, error) {
	return s.run(opts.serialize(), nil, feeds, fetches, targets, nil)
}

// RunWithMetadata is RunWithOptions that also returns the run's serialized RunMetadata
// (TensorFlow's message): with opts.Trace its step_stats hold one NodeExecStats per kernel run
// (node name, timeline label, start, duration, thread, outputs); without, it is empty.
func (s *Session) RunWithMetadata(opts RunOptions, feeds map[Output]*Tensor, fetches []Output,
	targets []*Operation) ([]*Tensor, []byte, error) {
	var metadata []byte
	out, err := s.run(opts.serialize(), nil, feeds, fetches, targets, &metadata)
	return out, metadata, err
}

// RunContext is Run that stops when ctx is done: a run in progress fails at its next kernel or
// loop iteration with Cancelled when ctx is cancelled, or with DeadlineExceeded once ctx's
// deadline has passed (a context already done fails at once). The session stays usable.
func (s *Session) RunContext(ctx context.Context, feeds map[Output]*Tensor, fetches []Output,
	targets []*Operation) ([]*Tensor, error) {
	if ctx.Done() == nil { // never done (context.Background)
		return s.Run(feeds, fetches, targets)
	}
	if err := contextError(ctx); err != nil {
		return nil, err
	}
	var opts RunOptions
	if deadline, ok := ctx.Deadline(); ok {
		// The deadline can pass before ctx's own timer marks it done (ctx.Err() still nil).
		if opts.Timeout = time.Until(deadline); opts.Timeout <= 0 {
			return nil, deadlineBeforeRun()
		}
	}
	flag := C.TX_NewCancellation()
	if flag == nil {
		return nil, errorf(ResourceExhausted, "out of memory for a cancellation flag")
	}
	finished, watcherDone := make(chan struct{}), make(chan struct{})
	go func() { // cancels the run when ctx is done first
		defer close(watcherDone)
		select {
		case <-ctx.Done():
			C.TX_Cancel(flag)
		case <-finished:
		}
	}()
	out, err := s.run(opts.serialize(), flag, feeds, fetches, targets, nil)
	close(finished)
	<-watcherDone // no TX_Cancel after the flag is freed
	C.TX_DeleteCancellation(flag)
	if e, ok := err.(*Error); ok && e.Code == Cancelled && ctx.Err() == context.DeadlineExceeded {
		err = errorf(DeadlineExceeded, "%s (the context's deadline passed)", e.Message)
	}
	return out, err
}

// contextError is ctx's error as an *Error (Cancelled or DeadlineExceeded), nil while ctx is live.
func contextError(ctx context.Context) error {
	switch ctx.Err() {
	case nil:
		return nil
	case context.DeadlineExceeded:
		return deadlineBeforeRun()
	default:
		return errorf(Cancelled, "the context was cancelled before the run: %v", ctx.Err())
	}
}

// deadlineBeforeRun is the DeadlineExceeded *Error of a run whose context's deadline had passed.
func deadlineBeforeRun() error {
	return errorf(DeadlineExceeded, "the context's deadline passed before the run")
}

// run is Run with serialized RunOptions (may be nil), a cancellation flag (may be nil) and, when
// metadata is not nil, the run's serialized RunMetadata stored there.
func (s *Session) run(runOptions []byte, flag *C.TX_Cancellation, feeds map[Output]*Tensor, fetches []Output,
	targets []*Operation, metadata *[]byte) ([]*Tensor, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.c == nil {
		return nil, errorf(Cancelled, "the session is closed")
	}
	inputs := make([]C.TX_Output, 0, len(feeds))
	values := make([]*C.TX_Tensor, 0, len(feeds))
	for o, t := range feeds {
		c, err := s.g.cOutputs([]Output{o})
		if err != nil {
			return nil, errorf(InvalidArgument, "feed: %s", errorMessage(err))
		}
		if t == nil || t.c == nil {
			return nil, errorf(InvalidArgument, "feed of '%s:%d': nil or deleted tensor", o.Op.Name(), o.Index)
		}
		inputs = append(inputs, c[0])
		values = append(values, t.c)
	}
	outputs, err := s.g.cOutputs(fetches)
	if err != nil {
		return nil, errorf(InvalidArgument, "fetch: %s", errorMessage(err))
	}
	ctargets := make([]*C.TX_Operation, len(targets))
	for i, op := range targets {
		if err := s.g.owns(op); err != nil {
			return nil, errorf(InvalidArgument, "target: %s", errorMessage(err))
		}
		ctargets[i] = op.c
	}
	var copts *C.TX_Buffer
	if len(runOptions) > 0 {
		copts = C.TX_NewBufferFromString(unsafe.Pointer(&runOptions[0]), C.size_t(len(runOptions)))
		defer C.TX_DeleteBuffer(copts)
	}
	var cmeta *C.TX_Buffer
	if metadata != nil {
		cmeta = C.TX_NewBuffer()
		defer C.TX_DeleteBuffer(cmeta)
	}
	results := make([]*C.TX_Tensor, len(fetches))
	st := newStatus()
	defer st.done()
	C.TX_SessionRunWithCancellation(s.c, copts, flag, (*C.TX_Output)(firstOrNil(inputs)),
		(**C.TX_Tensor)(firstOrNil(values)), C.int(len(inputs)), (*C.TX_Output)(firstOrNil(outputs)),
		(**C.TX_Tensor)(firstOrNil(results)), C.int(len(outputs)), (**C.TX_Operation)(firstOrNil(ctargets)),
		C.int(len(ctargets)), cmeta, st.c)
	runtime.KeepAlive(feeds)
	if metadata != nil && cmeta.length > 0 {
		*metadata = C.GoBytes(cmeta.data, C.int(cmeta.length))
	}
	if err := st.err(); err != nil {
		return nil, err
	}
	out := make([]*Tensor, len(results))
	for i, c := range results {
		out[i] = newTensorFromC(c)
	}
	return out, nil
}

// Close closes and frees the session. Runs in progress are cancelled: each returns a Cancelled
// error at its next kernel or loop iteration, and Close returns once they have. Later runs fail
// with Cancelled. Closing twice is a no-op.
func (s *Session) Close() error {
	s.closeMu.Lock()
	defer s.closeMu.Unlock()
	s.mu.RLock()
	c := s.c
	s.mu.RUnlock()
	if c == nil {
		return nil
	}
	st := newStatus()
	defer st.done()
	// Without s.mu: runs in progress hold it shared until the engine has stopped them.
	C.TX_CloseSession(c, st.c)
	err := st.err()
	s.mu.Lock()
	defer s.mu.Unlock()
	C.TX_DeleteSession(s.c, st.c)
	if err == nil {
		err = st.err()
	}
	s.c = nil
	runtime.SetFinalizer(s, nil)
	return err
}
