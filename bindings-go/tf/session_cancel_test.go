package tf

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// hangTimeout bounds every wait below, so a run that cannot be stopped fails the test instead of
// hanging it.
const hangTimeout = 2 * time.Minute

// endlessLoop adds a While over an int64 that never ends: cond i >= 0, body i + 1.
func endlessLoop(t *testing.T, g *Graph) *Operation {
	return whileLoop(t, g, []Output{constOp(t, g, "i0", int64(0))},
		func(g *Graph, a []Output) ([]Output, error) {
			var err error
			return []Output{add(g, &err, "GreaterEqual", a[0], constIn(g, &err, int64(0)))}, err
		},
		func(g *Graph, a []Output) ([]Output, error) {
			var err error
			return []Output{add(g, &err, "AddV2", a[0], constIn(g, &err, int64(1)))}, err
		})
}

// TestCloseStopsRunningLoops: Close cancels the runs in progress, which return Cancelled, and
// returns itself (it used to wait forever for the runs' shared lock).
func TestCloseStopsRunningLoops(t *testing.T) {
	g := NewGraph()
	w := endlessLoop(t, g)
	s, err := NewSession(g, nil)
	if err != nil {
		t.Fatal(err)
	}
	runErrs := make(chan error, 2)
	for k := 0; k < 2; k++ {
		go func() {
			_, err := s.Run(nil, []Output{w.Output(0)}, nil)
			runErrs <- err
		}()
	}
	time.Sleep(100 * time.Millisecond) // let the runs start; they end the same way if they have not
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatalf("Close: %v", err)
		}
	case <-time.After(hangTimeout):
		t.Fatal("Close did not return")
	}
	for k := 0; k < 2; k++ {
		select {
		case err := <-runErrs:
			var e *Error
			if !errors.As(err, &e) || e.Code != Cancelled {
				t.Fatalf("run error = %v, want Cancelled", err)
			}
			if !strings.Contains(e.Message, "session was closed during the run") &&
				!strings.Contains(e.Message, "session is closed") {
				t.Errorf("run error message = %q", e.Message)
			}
		case <-time.After(hangTimeout):
			t.Fatal("a run did not end after Close")
		}
	}
	if _, err := s.Run(nil, []Output{w.Output(0)}, nil); err == nil {
		t.Error("a run after Close succeeded")
	}
}
