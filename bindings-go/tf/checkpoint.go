package tf

// #include <stdlib.h>
// #include "tensorflux/c/c_api.h"
import "C"

import (
	"runtime"
	"sort"
	"unsafe"
)

// SaveSafetensors writes tensors (by name) and string metadata to path in the safetensors
// format, atomically: on error any previous file at path is left intact (TX_SaveSafetensors).
func SaveSafetensors(path string, tensors map[string]*Tensor, metadata map[string]string) error {
	names := make([]string, 0, len(tensors))
	for k := range tensors {
		names = append(names, k)
	}
	sort.Strings(names)
	cts := make([]*C.TX_Tensor, len(names))
	for i, k := range names {
		t := tensors[k]
		if t == nil || t.c == nil {
			return errorf(InvalidArgument, "tensor '%s' is nil or deleted", k)
		}
		cts[i] = t.c
	}
	keys := make([]string, 0, len(metadata))
	for k := range metadata {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	values := make([]string, len(keys))
	for i, k := range keys {
		values[i] = metadata[k]
	}
	cnames, freeNames := cStringArray(names)
	defer freeNames()
	ckeys, freeKeys := cStringArray(keys)
	defer freeKeys()
	cvalues, freeValues := cStringArray(values)
	defer freeValues()
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	s := newStatus()
	defer s.done()
	C.TX_SaveSafetensors(cpath, cnames, (**C.TX_Tensor)(firstOrNil(cts)), C.int(len(cts)), ckeys, cvalues,
		C.int(len(keys)), s.c)
	runtime.KeepAlive(tensors)
	return s.err()
}

// LoadSafetensors reads every tensor and the metadata of a safetensors file (TX_LoadSafetensors).
// A missing file is NotFound, a corrupt one DataLoss.
func LoadSafetensors(path string) (map[string]*Tensor, map[string]string, error) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	s := newStatus()
	defer s.done()
	st := C.TX_LoadSafetensors(cpath, s.c)
	if err := s.err(); err != nil {
		return nil, nil, err
	}
	defer C.TX_DeleteSafetensors(st)
	tensors := map[string]*Tensor{}
	for i := C.int(0); i < C.TX_SafetensorsNumTensors(st); i++ {
		var n C.size_t
		name := C.TX_SafetensorsName(st, i, &n)
		c := C.TX_SafetensorsTensor(st, i, s.c)
		if err := s.err(); err != nil {
			for _, t := range tensors {
				t.Delete()
			}
			return nil, nil, err
		}
		tensors[C.GoStringN(name, C.int(n))] = newTensorFromC(c)
	}
	metadata := map[string]string{}
	for i := C.int(0); i < C.TX_SafetensorsNumMetadata(st); i++ {
		var kn, vn C.size_t
		k := C.TX_SafetensorsMetadataKey(st, i, &kn)
		v := C.TX_SafetensorsMetadataValue(st, i, &vn)
		metadata[C.GoStringN(k, C.int(kn))] = C.GoStringN(v, C.int(vn))
	}
	return tensors, metadata, nil
}

// cStringArray copies strs into a C array of NUL-terminated strings; free releases it.
func cStringArray(strs []string) (**C.char, func()) {
	if len(strs) == 0 {
		return nil, func() {}
	}
	arr := unsafe.Slice((**C.char)(C.malloc(C.size_t(len(strs))*C.size_t(unsafe.Sizeof((*C.char)(nil))))), len(strs))
	for i, s := range strs {
		arr[i] = C.CString(s)
	}
	return &arr[0], func() {
		for _, p := range arr {
			C.free(unsafe.Pointer(p))
		}
		C.free(unsafe.Pointer(&arr[0]))
	}
}
