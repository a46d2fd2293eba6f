package op

import (
	"strings"
	"testing"

	tf "github.com/tensorflux/tensorflux/bindings-go/tf"
)

// A SparseTensor reaches Go as its three component tensors (int64 indices [nnz, rank], values
// [nnz], int64 dense_shape [rank]): the sparse ops give the values tx.sparse gives.
func TestSparseOps(t *testing.T) {
	s := NewScope()
	indices := Const(s, [][]int64{{0, 1}, {1, 0}})
	values := Const(s, []float32{2, 3})
	shape := Const(s, []int64{2, 3})
	dense := SparseToDense(s, indices, shape, values, Const(s, float32(0)))
	product := SparseTensorDenseMatMul(s, indices, values, shape, Const(s, [][]float32{{1, 2}, {3, 4}, {5, 6}}))
	sumIndices, sumValues, _ := SparseAdd(s, indices, values, shape, Const(s, [][]int64{{1, 0}, {1, 2}}),
		Const(s, []float32{1, 4}), shape, Const(s, float32(0)))
	rowSums := SparseReduceSum(s, indices, values, shape, Const(s, []int32{1}))
	got := runGraph(t, s, nil, dense, product, sumIndices, sumValues, rowSums)
	expectEqual(t, "SparseToDense", got[0], [][]float32{{0, 2, 0}, {3, 0, 0}})
	expectEqual(t, "SparseTensorDenseMatMul", got[1], [][]float32{{6, 8}, {3, 6}})
	expectEqual(t, "SparseAdd indices", got[2], [][]int64{{0, 1}, {1, 0}, {1, 2}})
	expectEqual(t, "SparseAdd values", got[3], []float32{2, 4, 4})
	expectEqual(t, "SparseReduceSum", got[4], []float32{2, 3})
}

func TestSparseOutOfOrderIndicesNameTheOp(t *testing.T) {
	s := NewScope()
	indices := Placeholder(s, tf.Int64)
	out := SparseToDense(s, indices, Const(s, []int64{2, 2}), Const(s, []float32{1, 2}), Const(s, float32(0)))
	sess := newSession(t, s)
	unordered, err := tf.NewTensor([][]int64{{1, 0}, {0, 0}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = sess.Run(map[tf.Output]*tf.Tensor{indices: unordered}, []tf.Output{out}, nil)
	if err == nil || !strings.Contains(err.Error(), "SparseToDense") || !strings.Contains(err.Error(), "is out of order") {
		t.Fatalf("unordered indices: got error %v", err)
	}
}
