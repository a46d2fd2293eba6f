package tf

// #include "tensorflux/c/c_api_profiler.h"
import "C"

// StartProfiler starts recording a profile: until StopProfiler every session run and eager op of
// the process is traced, the kernels of the function bodies they run included (TX_ProfilerStart).
// An error with code FailedPrecondition when a profile is already recording.
func StartProfiler() error {
	s := newStatus()
	defer s.done()
	C.TX_ProfilerStart(s.c)
	return s.err()
}

// StopProfiler stops the profile StartProfiler began and returns what it recorded as Chrome
// trace-event JSON (one complete event per kernel, which Perfetto and chrome://tracing open).
// An error with code FailedPrecondition when no profile records.
func StopProfiler() ([]byte, error) {
	buf := C.TX_NewBuffer()
	defer C.TX_DeleteBuffer(buf)
	s := newStatus()
	defer s.done()
	C.TX_ProfilerStop(buf, s.c)
	if err := s.err(); err != nil {
		return nil, err
	}
	return bufferBytes(buf), nil
}
