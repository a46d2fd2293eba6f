package tf

// #include <stdlib.h>
// #include "tensorflux/c/c_api_profiler.h"
import "C"

import "unsafe"

// SetOptimizerOption turns a process-wide plan rewrite on or off for plans built afterwards
// (TensorFlow's tf.config.optimizer.set_experimental_options). The one option is "remapping":
// a Conv2D runs the bias, activation and residual ops after it as one kernel, and so does each
// group of connected elementwise ops (on at start; results are the same either way). A session's
// ConfigProto graph_options.rewrite_options.remapping overrides it for that session.
func SetOptimizerOption(name string, enabled bool) error {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	s := newStatus()
	defer s.done()
	on := C.uchar(0)
	if enabled {
		on = 1
	}
	C.TX_SetOptimizerOption(cname, on, s.c)
	return s.err()
}

// OptimizerOption reports the current value of a process-wide plan rewrite option (see
// SetOptimizerOption); an error for an unknown name.
func OptimizerOption(name string) (bool, error) {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	s := newStatus()
	defer s.done()
	on := C.TX_GetOptimizerOption(cname, s.c) != 0
	return on, s.err()
}
