package tf

import (
	"fmt"
	"strings"
)

// Shape is a static tensor shape: a list of dimensions (-1 for an unknown one), or an unknown rank.
type Shape struct {
	dims []int64 // nil: unknown rank
}

// MakeShape returns the shape with the given dimensions (-1 marks an unknown dimension).
func MakeShape(dims ...int64) Shape {
	if dims == nil {
		dims = []int64{}
	}
	return Shape{dims: append([]int64{}, dims...)}
}

// ScalarShape returns the shape of a scalar (rank 0).
func ScalarShape() Shape { return Shape{dims: []int64{}} }

// UnknownShape returns a shape of unknown rank.
func UnknownShape() Shape { return Shape{} }

// NumDimensions is the rank, or -1 when the rank is unknown.
func (s Shape) NumDimensions() int {
	if s.dims == nil {
		return -1
	}
	return len(s.dims)
}

// Size is dimension `dim` (negative counts from the end), or -1 when it or the rank is unknown.
func (s Shape) Size(dim int) int64 {
	if dim < 0 {
		dim += len(s.dims)
	}
	if s.dims == nil || dim < 0 || dim >= len(s.dims) {
		return -1
	}
	return s.dims[dim]
}

// IsFullySpecified reports whether the rank and every dimension are known.
func (s Shape) IsFullySpecified() bool {
	if s.dims == nil {
		return false
	}
	for _, d := range s.dims {
		if d < 0 {
			return false
		}
	}
	return true
}

// ToSlice returns a copy of the dimensions; an error when the rank is unknown.
func (s Shape) ToSlice() ([]int64, error) {
	if s.dims == nil {
		return nil, errorf(FailedPrecondition, "cannot convert a shape of unknown rank to a slice")
	}
	return append([]int64{}, s.dims...), nil
}

// String is like "[2, ?, 3]", or "?" for an unknown rank.
func (s Shape) String() string {
	if s.dims == nil {
		return "?"
	}
	parts := make([]string, len(s.dims))
	for i, d := range s.dims {
		if d < 0 {
			parts[i] = "?"
		} else {
			parts[i] = fmt.Sprint(d)
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
