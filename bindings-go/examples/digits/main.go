// Command digits serves the digits CNN trained in Python (tools/demo/digits.py) from Go: it
// imports the model's GraphDef, restores its variables from the safetensors checkpoint with
// AssignVariableOps added by package op to the imported graph, and classifies a test batch.
//
//	python tools/demo/export_digits_for_go.py /tmp/digits
//	go run ./examples/digits /tmp/digits
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tensorflux/tensorflux/bindings-go/op"
	tf "github.com/tensorflux/tensorflux/bindings-go/tf"
)

// manifest is what tools/demo/export_digits_for_go.py writes to manifest.json.
type manifest struct {
	Input            string  `json:"input"`  // "x:0"
	Logits           string  `json:"logits"` // e.g. "BiasAdd_2:0"
	Batch            int64   `json:"batch"`
	Features         int64   `json:"features"`
	Classes          int64   `json:"classes"`
	CheckpointPrefix string  `json:"checkpoint_prefix"` // "model/": keys of the model's variables
	TestAccuracy     float64 `json:"test_accuracy"`
}

// server holds the imported model in a session with its variables restored.
type server struct {
	sess          *tf.Session
	input, logits tf.Output
}

// output finds the tensor "name:index" of g.
func output(g *tf.Graph, name string) (tf.Output, error) {
	opName, index := name, 0
	if i := strings.LastIndex(name, ":"); i >= 0 {
		n, err := strconv.Atoi(name[i+1:])
		if err != nil {
			return tf.Output{}, fmt.Errorf("bad tensor name %q", name)
		}
		opName, index = name[:i], n
	}
	o := g.Operation(opName)
	if o == nil {
		return tf.Output{}, fmt.Errorf("the graph has no operation %q", opName)
	}
	return o.Output(index), nil
}

// restoreOps adds to g one AssignVariableOp per checkpoint tensor whose key is prefix followed
// by the name of a VarHandleOp of g, assigning it the stored value.
func restoreOps(g *tf.Graph, weights map[string]*tf.Tensor, prefix string) ([]*tf.Operation, error) {
	s := op.NewScopeWithGraph(g).SubScope("restore")
	var assigns []*tf.Operation
	for key, value := range weights {
		if !strings.HasPrefix(key, prefix) {
			continue // optimizer slots and counters: not needed for inference
		}
		handle := g.Operation(strings.TrimPrefix(key, prefix))
		if handle == nil || handle.Type() != "VarHandleOp" {
			return nil, fmt.Errorf("checkpoint key %q names no variable of the graph", key)
		}
		assigns = append(assigns, op.AssignVariableOp(s, handle.Output(0), op.Const(s, value)))
	}
	if len(assigns) == 0 {
		return nil, fmt.Errorf("no checkpoint key starts with %q", prefix)
	}
	return assigns, s.Err()
}

// load imports dir/graph.pb and restores dir/weights.safetensors into a new session.
func load(dir string, m manifest) (*server, error) {
	def, err := os.ReadFile(filepath.Join(dir, "graph.pb"))
	if err != nil {
		return nil, err
	}
	g := tf.NewGraph()
	if err := g.Import(def, ""); err != nil {
		return nil, err
	}
	weights, _, err := tf.LoadSafetensors(filepath.Join(dir, "weights.safetensors"))
	if err != nil {
		return nil, err
	}
	assigns, err := restoreOps(g, weights, m.CheckpointPrefix)
	if err != nil {
		return nil, err
	}
	srv := &server{}
	if srv.input, err = output(g, m.Input); err != nil {
		return nil, err
	}
	if srv.logits, err = output(g, m.Logits); err != nil {
		return nil, err
	}
	if srv.sess, err = tf.NewSession(g, nil); err != nil {
		return nil, err
	}
	if _, err := srv.sess.Run(nil, nil, assigns); err != nil {
		srv.sess.Close()
		return nil, err
	}
	return srv, nil
}

// classify returns the logits of a [batch, features] float32 tensor.
func (srv *server) classify(images *tf.Tensor) ([][]float32, error) {
	out, err := srv.sess.Run(map[tf.Output]*tf.Tensor{srv.input: images}, []tf.Output{srv.logits}, nil)
	if err != nil {
		return nil, err
	}
	return out[0].Value().([][]float32), nil
}

// readFloats reads a file of little-endian float32s as a tensor of the given shape.
func readFloats(path string, shape ...int64) (*tf.Tensor, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return tf.ReadTensor(tf.Float, shape, bytes.NewReader(raw))
}

// argmax returns the index of each row's largest value.
func argmax(rows [][]float32) []int {
	out := make([]int, len(rows))
	for i, row := range rows {
		for j, v := range row {
			if v > row[out[i]] {
				out[i] = j
			}
		}
	}
	return out
}

func readManifest(dir string) (manifest, error) {
	var m manifest
	raw, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err == nil {
		err = json.Unmarshal(raw, &m)
	}
	return m, err
}

// classifyExport loads the export in dir and returns the logits of its test batch.
func classifyExport(dir string) ([][]float32, manifest, error) {
	m, err := readManifest(dir)
	if err != nil {
		return nil, m, err
	}
	srv, err := load(dir, m)
	if err != nil {
		return nil, m, err
	}
	defer srv.sess.Close()
	images, err := readFloats(filepath.Join(dir, "inputs.f32"), m.Batch, m.Features)
	if err != nil {
		return nil, m, err
	}
	logits, err := srv.classify(images)
	return logits, m, err
}

func main() {
	if len(os.Args) != 2 {
		log.Fatal("usage: digits DIR (written by tools/demo/export_digits_for_go.py)")
	}
	logits, _, err := classifyExport(os.Args[1])
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("predicted digits:", argmax(logits))
}
