package tf

import (
	"reflect"
	"testing"
)

func TestShape(t *testing.T) {
	tests := []struct {
		shape  Shape
		rank   int
		full   bool
		str    string
		slice  []int64
		size1  int64
		errMsg bool
	}{
		{MakeShape(2, 3), 2, true, "[2, 3]", []int64{2, 3}, 3, false},
		{MakeShape(-1, 4), 2, false, "[?, 4]", []int64{-1, 4}, 4, false},
		{ScalarShape(), 0, true, "[]", []int64{}, -1, false},
		{MakeShape(), 0, true, "[]", []int64{}, -1, false},
		{UnknownShape(), -1, false, "?", nil, -1, true},
	}
	for _, tc := range tests {
		if tc.shape.NumDimensions() != tc.rank || tc.shape.IsFullySpecified() != tc.full ||
			tc.shape.String() != tc.str || tc.shape.Size(1) != tc.size1 {
			t.Errorf("%v: rank %d full %v size(1) %d", tc.shape, tc.shape.NumDimensions(), tc.shape.IsFullySpecified(),
				tc.shape.Size(1))
		}
		got, err := tc.shape.ToSlice()
		if (err != nil) != tc.errMsg || (err == nil && !reflect.DeepEqual(got, tc.slice)) {
			t.Errorf("%v.ToSlice() = %v, %v", tc.shape, got, err)
		}
	}
	dims := []int64{5, 6}
	s := MakeShape(dims...)
	dims[0] = 9
	if s.Size(0) != 5 || s.Size(-1) != 6 || s.Size(2) != -1 {
		t.Errorf("MakeShape aliases its argument or Size is wrong: %v", s)
	}
}

func TestSetShape(t *testing.T) {
	g := NewGraph()
	x := placeholder(t, g, "x", Float)
	if err := x.SetShape(MakeShape(-1, 3)); err != nil {
		t.Fatal(err)
	}
	if s := x.Shape(); s.String() != "[?, 3]" {
		t.Errorf("shape %v", s)
	}
	if err := x.SetShape(MakeShape(2, 4)); err == nil {
		t.Error("incompatible SetShape: no error")
	}
	if got := Version(); got == "" {
		t.Error("empty version")
	}
	if len(OpList()) == 0 {
		t.Error("empty op list")
	}
}
