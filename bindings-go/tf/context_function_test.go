package tf

import (
	"runtime"
	"testing"
	"time"
)

// eagerCall runs f (one int64 argument and result) on x through StatefulPartitionedCall.
func eagerCall(t *testing.T, ctx *Context, f *Function, x *TensorHandle) int64 {
	t.Helper()
	out, err := ctx.ExecuteOp(EagerOpSpec{Type: "StatefulPartitionedCall", Input: []EagerInput{TensorHandleList{x}},
		Attrs: map[string]interface{}{"f": f, "Tin": []DataType{Int64}, "Tout": []DataType{Int64}}})
	if err != nil {
		t.Fatal(err)
	}
	defer out[0].Delete()
	return out[0].Value().(int64)
}

// addConst builds a function named `name` returning its argument plus k.
func addConst(t *testing.T, name string, k int64) *Function {
	t.Helper()
	f, err := BuildFunction(name, []DataType{Int64}, func(g *Graph, a []Output) ([]Output, error) {
		var err error
		return []Output{add(g, &err, "AddV2", a[0], constIn(g, &err, k))}, err
	})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestContextFreesAttrFunctions: a function an op's attr added to a context leaves the context's
// library when its Function is deleted, so a new definition under the same name can be used
// (it used to be InvalidArgument, "a different one under a taken name") and the library does not
// grow with every Function a loop builds.
func TestContextFreesAttrFunctions(t *testing.T) {
	ctx, err := NewContext(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Close()
	x := handle(t, ctx, int64(10))
	defer x.Delete()
	for k := int64(0); k < 20; k++ {
		f := addConst(t, "step", k)
		if got := eagerCall(t, ctx, f, x); got != 10+k {
			t.Fatalf("step %d: got %d", k, got)
		}
		if got := eagerCall(t, ctx, f, x); got != 10+k { // a second use adds nothing
			t.Fatalf("step %d again: got %d", k, got)
		}
		if n := ctx.NumFunctions(); n != 1 {
			t.Fatalf("step %d: %d functions in the library, want 1", k, n)
		}
		f.Delete()
		if n := ctx.NumFunctions(); n != 0 {
			t.Fatalf("after deleting step %d: %d functions in the library, want 0", k, n)
		}
	}
}

// TestContextFreesCollectedFunctions: a Function dropped without Delete leaves the library once
// the garbage collector has run its finalizer.
func TestContextFreesCollectedFunctions(t *testing.T) {
	ctx, err := NewContext(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Close()
	x := handle(t, ctx, int64(1))
	defer x.Delete()
	for k := int64(0); k < 5; k++ {
		if got := eagerCall(t, ctx, addConst(t, "collected", k), x); got != 1+k {
			t.Fatalf("step %d: got %d", k, got)
		}
		deadline := time.Now().Add(time.Minute)
		for ctx.NumFunctions() != 0 {
			if time.Now().After(deadline) {
				t.Fatalf("step %d: the dropped Function's definition is still in the library", k)
			}
			runtime.GC()
			time.Sleep(time.Millisecond)
		}
	}
}

// TestContextExplicitFunctions: AddFunction's definitions stay until RemoveFunction, even when
// the Function is deleted or also used by an op's attr; removing an absent name is NotFound, and
// after RemoveFunction a new definition can take the name.
func TestContextExplicitFunctions(t *testing.T) {
	ctx, err := NewContext(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Close()
	x := handle(t, ctx, int64(2))
	defer x.Delete()
	f := addConst(t, "kept", 5)
	if err := ctx.AddFunction(f); err != nil {
		t.Fatal(err)
	}
	if got := eagerCall(t, ctx, f, x); got != 7 {
		t.Fatalf("got %d", got)
	}
	f.Delete()
	same := addConst(t, "kept", 5) // an equal definition: a no-op addition
	if got := eagerCall(t, ctx, same, x); got != 7 {
		t.Fatalf("got %d", got)
	}
	same.Delete()
	if n := ctx.NumFunctions(); n != 1 {
		t.Fatalf("%d functions after deleting the Functions of an explicit addition, want 1", n)
	}
	wantCode(t, ctx.AddFunction(addConst(t, "kept", 6)), InvalidArgument) // the name is taken
	if err := ctx.RemoveFunction("kept"); err != nil {
		t.Fatal(err)
	}
	if n := ctx.NumFunctions(); n != 0 {
		t.Fatalf("%d functions after RemoveFunction, want 0", n)
	}
	wantCode(t, ctx.RemoveFunction("kept"), NotFound)
	if got := eagerCall(t, ctx, addConst(t, "kept", 6), x); got != 8 {
		t.Fatalf("a new definition after RemoveFunction: got %d, want 8", got)
	}
}
