package tf

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// buildPlugin compiles csrc/tests/plugin/<source> into a plugin library with the C compiler cgo
// uses (CC, default cc) and the include path of CGO_CFLAGS: the public headers, nothing else.
func buildPlugin(t *testing.T, source string, defines ...string) string {
	t.Helper()
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "cc"
	}
	out := filepath.Join(t.TempDir(), "libplugin.so")
	args := append([]string{"-shared", "-fPIC", "-O1", "-o", out}, strings.Fields(os.Getenv("CGO_CFLAGS"))...)
	args = append(args, defines...)
	args = append(args, filepath.Join("..", "..", "csrc", "tests", "plugin", source))
	if msg, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
		t.Fatalf("building the test plugin: %v\n%s", err, msg)
	}
	return out
}

func TestLoadLibraryRunsPluginOps(t *testing.T) {
	path := buildPlugin(t, "test_plugin.c")
	lib, err := LoadLibrary(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(lib.OpList(), []byte("PluginScaledSquare")) {
		t.Fatalf("the op list lacks PluginScaledSquare")
	}
	if again, err := LoadLibrary(path); err != nil || !bytes.Equal(again.OpList(), lib.OpList()) {
		t.Fatalf("loading twice: %v", err)
	}

	// Graph mode, with the gradient the plugin registered.
	g := NewGraph()
	x := constOp(t, g, "x", []float32{1, -2, 3})
	y, err := g.AddOperation(OpSpec{Type: "PluginScaledSquare", Name: "y", Input: []Input{x},
		Attrs: map[string]interface{}{"scale": float32(2)}})
	if err != nil {
		t.Fatal(err)
	}
	dx, err := g.AddGradients("", []Output{y.Output(0)}, []Output{x}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sess, err := NewSession(g, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	out, err := sess.Run(nil, []Output{y.Output(0), dx[0]}, nil)
	if err != nil {
		t.Fatal(err)
	}
	vals, grads := out[0].Value().([]float32), out[1].Value().([]float32)
	for k, xv := range []float32{1, -2, 3} {
		if vals[k] != 2*xv*xv || grads[k] != 4*xv {
			t.Errorf("element %d: y %v dy/dx %v, want %v %v", k, vals[k], grads[k], 2*xv*xv, 4*xv)
		}
	}

	// Eagerly, under a tape.
	ctx, err := NewContext(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Close()
	xh := handle(t, ctx, []float32{1, 2, 3})
	tape, err := ctx.NewGradientTape(false, false)
	if err != nil {
		t.Fatal(err)
	}
	defer tape.Delete()
	if err := tape.Watch(xh); err != nil {
		t.Fatal(err)
	}
	yh := exec1(t, ctx, "PluginRepeat", []*TensorHandle{xh, handle(t, ctx, int32(2))}, nil)
	if got := yh.Value().([]float32); len(got) != 6 || got[3] != 1 || got[5] != 3 {
		t.Errorf("PluginRepeat gave %v", got)
	}
	eg, err := tape.Gradient([]*TensorHandle{yh}, []*TensorHandle{xh})
	if err != nil {
		t.Fatal(err)
	}
	if got := eg[0].Value().([]float32); got[0] != 2 || got[1] != 2 || got[2] != 2 {
		t.Errorf("gradient of PluginRepeat(x, 2): %v, want [2 2 2]", got)
	}

	// A failing kernel is an error of that op; the context keeps working.
	_, err = ctx.Execute("PluginFaulty", []*TensorHandle{xh}, map[string]interface{}{"mode": "wrong_shape"})
	wantCode(t, err, Internal)
	if !strings.Contains(err.Error(), "produced output 0 of shape [4], but the op's shape function gives [3]") {
		t.Errorf("unexpected message: %v", err)
	}
	exec1(t, ctx, "PluginFaulty", []*TensorHandle{xh}, nil)
}

func TestLoadLibraryRefusals(t *testing.T) {
	next := PluginABIVersion() + 1 // the next minor of the same major
	_, err := LoadLibrary(buildPlugin(t, "bad_plugin.c", "-DTX_BAD_PLUGIN_ABI="+strconv.FormatUint(uint64(next), 10)))
	wantCode(t, err, FailedPrecondition)
	if !strings.Contains(err.Error(), "needs plugin ABI 1.1, newer than this core's 1.0") {
		t.Errorf("unexpected message: %v", err)
	}
	_, err = LoadLibrary(buildPlugin(t, "bad_plugin.c", "-DTX_BAD_PLUGIN_NOT_A_PLUGIN"))
	wantCode(t, err, InvalidArgument)
	_, err = LoadLibrary(buildPlugin(t, "bad_plugin.c", "-DTX_BAD_PLUGIN_DUPLICATE"))
	wantCode(t, err, AlreadyExists)
	_, err = LoadLibrary(filepath.Join(t.TempDir(), "missing.so"))
	wantCode(t, err, NotFound)
	if bytes.Contains(OpList(), []byte("PluginOnlyHere")) {
		t.Error("a refused plugin left an op registered")
	}
}
