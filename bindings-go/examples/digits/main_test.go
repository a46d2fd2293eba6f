package main

import (
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// exportDir returns the directory of tools/demo/export_digits_for_go.py's files: $TX_DIGITS_EXPORT
// (the nox go session sets it), or a fresh export made with a Python that has tensorflux and the
// demo's packages (findPython). A failed export fails the test: it must not pass by skipping.
func exportDir(t *testing.T) string {
	if dir := os.Getenv("TX_DIGITS_EXPORT"); dir != "" {
		return dir
	}
	python, tried := findPython()
	if python == "" {
		t.Fatalf("TX_DIGITS_EXPORT is not set and no Python that imports tensorflux, numpy and sklearn was "+
			"found (tried %s); set TX_PYTHON to one, or run `python3 -m nox -s go` from the repository root, "+
			"which sets everything up", strings.Join(tried, ", "))
	}
	dir := t.TempDir()
	cmd := exec.Command(python, filepath.Join("..", "..", "..", "tools", "demo", "export_digits_for_go.py"), dir,
		"--epochs", "1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("TX_DIGITS_EXPORT is not set and the export with %s failed (%v):\n%s", python, err, out)
	}
	return dir
}

// findPython returns the first interpreter that imports what the export needs: $TX_PYTHON, the
// repository's nox test venv, an active virtualenv, then python3 and python on PATH; and the
// candidates it tried.
func findPython() (string, []string) {
	root := filepath.Join("..", "..", "..")
	candidates := []string{os.Getenv("TX_PYTHON"), filepath.Join(root, ".nox", "tests", "bin", "python")}
	if venv := os.Getenv("VIRTUAL_ENV"); venv != "" {
		candidates = append(candidates, filepath.Join(venv, "bin", "python"))
	}
	candidates = append(candidates, "python3", "python")
	var tried []string
	for _, c := range candidates {
		if c == "" {
			continue
		}
		path, err := exec.LookPath(c)
		if err != nil {
			continue
		}
		tried = append(tried, path)
		if exec.Command(path, "-c", "import tensorflux, numpy, sklearn").Run() == nil {
			return path, tried
		}
	}
	return "", tried
}

func TestServingMatchesPythonBitForBit(t *testing.T) {
	dir := exportDir(t)
	got, m, err := classifyExport(dir)
	if err != nil {
		t.Fatal(err)
	}
	want, err := readFloats(filepath.Join(dir, "logits.f32"), m.Batch, m.Classes)
	if err != nil {
		t.Fatal(err)
	}
	wantRows := want.Value().([][]float32)
	if len(got) != len(wantRows) {
		t.Fatalf("%d rows of logits, want %d", len(got), len(wantRows))
	}
	mismatches := 0
	for i := range got {
		for j := range got[i] {
			if math.Float32bits(got[i][j]) != math.Float32bits(wantRows[i][j]) {
				if mismatches++; mismatches <= 5 {
					t.Errorf("logits[%d][%d] = %v, Python computed %v", i, j, got[i][j], wantRows[i][j])
				}
			}
		}
	}
	if mismatches > 0 {
		t.Errorf("%d of %d logits differ from Python's", mismatches, m.Batch*m.Classes)
	}
}

func TestRestoreRejectsAKeyWithoutAVariable(t *testing.T) {
	dir := exportDir(t)
	m, err := readManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	m.CheckpointPrefix = "" // "model/cnn/conv1/kernel" names no operation of the graph
	if _, err := load(dir, m); err == nil || !strings.Contains(err.Error(), "names no variable") {
		t.Errorf("got %v, want an error naming the key without a variable", err)
	}
}
