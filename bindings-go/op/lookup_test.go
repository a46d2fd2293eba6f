package op

import (
	"strings"
	"testing"

	tf "github.com/tensorflux/tensorflux/bindings-go/tf"
)

// Lookup tables reach Go through the generated wrappers: a HashTableV2 filled by an import op
// run as a target, then read; a lookup before the fill fails and the session stays usable.
func TestHashTableFromGo(t *testing.T) {
	s := NewScope()
	table := HashTableV2(s, tf.String, tf.Int64)
	fill := LookupTableImportV2(s, table, Const(s, []string{"cat", "dog"}), Const(s, []int64{3, 7}))
	ids := LookupTableFindV2(s, table, Const(s, []string{"dog", "eel", "cat"}), Const(s, int64(-1)))
	size := LookupTableSizeV2(s, table)
	sess := newSession(t, s)
	if _, err := sess.Run(nil, []tf.Output{ids}, nil); err == nil || !strings.Contains(err.Error(), "Table not initialized") {
		t.Fatalf("lookup before the fill: got error %v, want 'Table not initialized'", err)
	}
	if _, err := sess.Run(nil, nil, []*tf.Operation{fill}); err != nil {
		t.Fatal(err)
	}
	out, err := sess.Run(nil, []tf.Output{ids, size}, nil)
	if err != nil {
		t.Fatal(err)
	}
	expectEqual(t, "LookupTableFindV2", out[0].Value(), []int64{7, -1, 3})
	expectEqual(t, "LookupTableSizeV2", out[1].Value(), int64(2))
}

// RaggedTensorToTensor pads rows given by row splits (what TextVectorization's graphs hold).
func TestRaggedTensorToTensorFromGo(t *testing.T) {
	s := NewScope()
	dense := RaggedTensorToTensor(s, Const(s, []int64{-1, 3}), Const(s, []string{"a", "b", "c"}), Const(s, ""),
		[]tf.Output{Const(s, []int64{0, 1, 3})}, []string{"ROW_SPLITS"})
	got := runGraph(t, s, nil, dense)
	expectEqual(t, "RaggedTensorToTensor", got[0], [][]string{{"a", "", ""}, {"b", "c", ""}})
}
