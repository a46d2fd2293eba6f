package tf

// #include <stdlib.h>
// #include "tensorflux/c/c_api.h"
import "C"

import (
	"runtime"
	"sync"
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
	g  *Graph
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

// Run feeds the tensors of `feeds`, computes `fetches` and runs `targets` for their side
// effects; it returns one new tensor per fetch. Every problem is an *Error: a closed session
// (Cancelled), outputs or operations of another graph, nil tensors, and engine errors.
func (s *Session) Run(feeds map[Output]*Tensor, fetches []Output, targets []*Operation) ([]*Tensor, error) {
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
	results := make([]*C.TX_Tensor, len(fetches))
	st := newStatus()
	defer st.done()
	C.TX_SessionRun(s.c, nil, (*C.TX_Output)(firstOrNil(inputs)), (**C.TX_Tensor)(firstOrNil(values)),
		C.int(len(inputs)), (*C.TX_Output)(firstOrNil(outputs)), (**C.TX_Tensor)(firstOrNil(results)),
		C.int(len(outputs)), (**C.TX_Operation)(firstOrNil(ctargets)), C.int(len(ctargets)), nil, st.c)
	runtime.KeepAlive(feeds)
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
