package tf

import (
	"context"
	"strings"
	"testing"
	"time"
)

// runEnds runs f in a goroutine and fails the test if it has not returned within hangTimeout.
func runEnds(t *testing.T, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(hangTimeout):
		t.Fatal("the run did not end")
		return nil
	}
}

// TestRunWithOptionsDeadline: RunOptions.Timeout stops an endless loop with DeadlineExceeded and
// leaves the session usable; a run within its timeout is unaffected.
func TestRunWithOptionsDeadline(t *testing.T) {
	g := NewGraph()
	w := endlessLoop(t, g)
	c := constOp(t, g, "c", int64(42))
	s, err := NewSession(g, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	err = runEnds(t, func() error {
		_, err := s.RunWithOptions(RunOptions{Timeout: 50 * time.Millisecond}, nil, []Output{w.Output(0)}, nil)
		return err
	})
	wantCode(t, err, DeadlineExceeded)
	out, err := s.RunWithOptions(RunOptions{Timeout: time.Hour}, nil, []Output{c}, nil)
	if err != nil || out[0].Value().(int64) != 42 {
		t.Fatalf("a run after the deadline: %v, %v", out, err)
	}
	if got := (RunOptions{Timeout: 1500 * time.Microsecond}).serialize(); string(got) != "\x10\x02" {
		t.Errorf("1.5 ms serializes as % x, want timeout_in_ms 2", got)
	}
	if got := (RunOptions{}).serialize(); got != nil {
		t.Errorf("no timeout serializes as % x, want nothing", got)
	}
}

// TestRunContext: cancelling the context stops a run with Cancelled, its deadline with
// DeadlineExceeded, a context done before the run fails at once; the session stays usable.
func TestRunContext(t *testing.T) {
	g := NewGraph()
	w := endlessLoop(t, g)
	c := constOp(t, g, "c", int64(7))
	s, err := NewSession(g, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	err = runEnds(t, func() error {
		_, err := s.RunContext(ctx, nil, []Output{w.Output(0)}, nil)
		return err
	})
	wantCode(t, err, Cancelled)
	if !strings.Contains(err.Error(), "cancelled") {
		t.Errorf("message: %v", err)
	}
	_, err = s.RunContext(ctx, nil, []Output{c}, nil)
	wantCode(t, err, Cancelled)

	dctx, dcancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer dcancel()
	err = runEnds(t, func() error {
		_, err := s.RunContext(dctx, nil, []Output{w.Output(0)}, nil)
		return err
	})
	wantCode(t, err, DeadlineExceeded)
	_, err = s.RunContext(dctx, nil, []Output{c}, nil)
	wantCode(t, err, DeadlineExceeded)

	live, lcancel := context.WithTimeout(context.Background(), time.Hour)
	defer lcancel()
	for _, ctx := range []context.Context{live, context.Background()} {
		out, err := s.RunContext(ctx, nil, []Output{c}, nil)
		if err != nil || out[0].Value().(int64) != 7 {
			t.Fatalf("a run with a live context: %v, %v", out, err)
		}
	}
}

// pastDeadline is a context whose deadline has passed while its own timer has not yet marked it
// done (Err is nil), as a context.WithTimeout can be for a moment.
type pastDeadline struct{ context.Context }

func (pastDeadline) Deadline() (time.Time, bool) { return time.Now().Add(-time.Millisecond), true }
func (pastDeadline) Done() <-chan struct{}       { return make(chan struct{}) }
func (pastDeadline) Err() error                  { return nil }

// TestRunContextDeadlinePassedNotYetDone: such a context fails the run with DeadlineExceeded
// instead of returning no outputs and no error.
func TestRunContextDeadlinePassedNotYetDone(t *testing.T) {
	g := NewGraph()
	c := constOp(t, g, "c", int64(7))
	s, err := NewSession(g, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	out, err := s.RunContext(pastDeadline{context.Background()}, nil, []Output{c}, nil)
	if out != nil {
		t.Errorf("outputs %v from a run past its deadline", out)
	}
	wantCode(t, err, DeadlineExceeded)
}

// TestRunWithMetadataTrace: a traced run returns a RunMetadata naming the kernels that ran and the
// CPU device; an untraced one returns none.
func TestRunWithMetadataTrace(t *testing.T) {
	g := NewGraph()
	c := constOp(t, g, "traced_const", int64(5))
	s, err := NewSession(g, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	out, meta, err := s.RunWithMetadata(RunOptions{Trace: true}, nil, []Output{c}, nil)
	if err != nil || out[0].Value().(int64) != 5 {
		t.Fatalf("traced run: %v, %v", out, err)
	}
	for _, want := range []string{"traced_const", "device:CPU:0"} {
		if !strings.Contains(string(meta), want) {
			t.Errorf("RunMetadata (%d bytes) does not mention %q", len(meta), want)
		}
	}
	if got := (RunOptions{Trace: true}).serialize(); string(got) != "\x08\x03" {
		t.Errorf("Trace serializes as % x, want trace_level FULL_TRACE", got)
	}
	_, meta, err = s.RunWithMetadata(RunOptions{}, nil, []Output{c}, nil)
	if err != nil || len(meta) != 0 {
		t.Errorf("untraced run: %d bytes of metadata, %v", len(meta), err)
	}
}
