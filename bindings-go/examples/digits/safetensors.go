package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"

	tf "github.com/tensorflux/tensorflux/bindings-go/tf"
)

// safetensorsTypes maps the safetensors dtype names this example reads to tensor types.
var safetensorsTypes = map[string]tf.DataType{"F32": tf.Float, "F64": tf.Double, "I32": tf.Int32, "I64": tf.Int64}

// readSafetensors reads every tensor of a safetensors file: an 8-byte little-endian header
// length, a JSON header {name: {dtype, shape, data_offsets}}, then the raw little-endian data.
func readSafetensors(path string) (map[string]*tf.Tensor, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(raw) < 8 {
		return nil, fmt.Errorf("%s: %d bytes, too short for a safetensors file", path, len(raw))
	}
	n := binary.LittleEndian.Uint64(raw[:8])
	if n > uint64(len(raw)-8) {
		return nil, fmt.Errorf("%s: header of %d bytes in a file of %d", path, n, len(raw))
	}
	var header map[string]json.RawMessage
	if err := json.Unmarshal(raw[8:8+n], &header); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	data := raw[8+n:]
	out := map[string]*tf.Tensor{}
	for name, entry := range header {
		if name == "__metadata__" {
			continue
		}
		var info struct {
			Dtype   string   `json:"dtype"`
			Shape   []int64  `json:"shape"`
			Offsets []uint64 `json:"data_offsets"`
		}
		if err := json.Unmarshal(entry, &info); err != nil {
			return nil, fmt.Errorf("%s: tensor %q: %w", path, name, err)
		}
		dt, ok := safetensorsTypes[info.Dtype]
		if !ok {
			return nil, fmt.Errorf("%s: tensor %q has dtype %s, not one of F32, F64, I32, I64", path, name, info.Dtype)
		}
		if len(info.Offsets) != 2 || info.Offsets[0] > info.Offsets[1] || info.Offsets[1] > uint64(len(data)) {
			return nil, fmt.Errorf("%s: tensor %q has data offsets %v outside the %d data bytes", path, name,
				info.Offsets, len(data))
		}
		t, err := tf.ReadTensor(dt, info.Shape, bytes.NewReader(data[info.Offsets[0]:info.Offsets[1]]))
		if err != nil {
			return nil, fmt.Errorf("%s: tensor %q: %w", path, name, err)
		}
		out[name] = t
	}
	return out, nil
}
