"""Documentation that cannot rot: README.md's and docs/*.md's python blocks run (one test per
file), and so do the ``>>>`` examples in public docstrings (one test per public module)."""

import pathlib

import pytest

import doc_examples
import tensorflux as tx

pytestmark = pytest.mark.eager  # examples run as users run them: eagerly, the library default

ROOT = pathlib.Path(__file__).resolve().parents[2]
MARKDOWN_FILES = [ROOT / "README.md", ROOT / "core" / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
PUBLIC_MODULES = ["tensorflux", "tensorflux.math", "tensorflux.nn", "tensorflux.linalg", "tensorflux.random",
                  "tensorflux.train", "tensorflux.debugging", "tensorflux.errors", "tensorflux.initializers",
                  "tensorflux.losses", "tensorflux.optimizers", "tensorflux.optimizers.schedules",
                  "tensorflux.optimizers.testing",
                  "tensorflux.compat.v1", "tensorflux.experimental.dlpack", "tensorflux.image",
                  "tensorflux.signal", "tensorflux.strings", "tensorflux.io", "tensorflux.keras",
                  "tensorflux.keras.layers", "tensorflux.keras.models", "tensorflux.keras.callbacks",
                  "tensorflux.keras.metrics", "tensorflux.keras.activations", "tensorflux.keras.initializers",
                  "tensorflux.keras.regularizers", "tensorflux.keras.constraints", "tensorflux.keras.mixed_precision",
                  "tensorflux.keras.saving", "tensorflux.keras.utils", "tensorflux.keras.optimizers",
                  "tensorflux.keras.backend", "tensorflux.sparse", "tensorflux.lookup"]


@pytest.mark.parametrize("path", MARKDOWN_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_markdown_python_blocks_run(path, tmp_path):
    doc_examples.run_markdown(path, tmp_path)


def test_readme_has_runnable_examples(tmp_path):
    assert doc_examples.run_markdown(ROOT / "README.md", tmp_path) >= 3


def test_docstring_examples_pass():
    seen, attempted, reports = set(), 0, []
    for module_name in PUBLIC_MODULES:
        examples, failed, report = doc_examples.run_docstring_examples(module_name, seen)
        attempted += examples
        if failed:
            reports.append(report)
    assert not reports, "\n".join(reports)
    assert attempted >= 225, "docstring examples went missing: %d found" % attempted


# The harness itself: fences, markers, line numbers in failures.
SAMPLE = """Intro.

```python
a = 1
```

<!-- illustration -->
```python
undefined_name
```

```go
not python
```

```python
b = a + 1
```
"""


def test_blocks_and_illustration_marker():
    blocks = doc_examples.code_blocks(SAMPLE)
    assert [(b.language, b.line, b.illustration) for b in blocks] == [
        ("python", 4, False), ("python", 9, True), ("go", 13, False), ("python", 17, False)]
    assert blocks[1].code == "undefined_name\n"


def test_blocks_share_a_namespace_and_failures_name_the_line(tmp_path):
    doc = tmp_path / "doc.md"
    doc.write_text(SAMPLE)
    assert doc_examples.run_markdown(doc, tmp_path) == 2
    doc.write_text(SAMPLE.replace("b = a + 1", "b = a + missing"))
    with pytest.raises(NameError) as info:
        doc_examples.run_markdown(doc, tmp_path)
    assert any(entry.lineno == 16 and str(entry.path) == str(doc) for entry in info.traceback)


def test_blocks_naming_a_file_are_written_before_the_python_runs(tmp_path):
    doc = tmp_path / "doc.md"
    doc.write_text('```c file=hello.c\nint main(void) { return 0; }\n```\n\n'
                   '```python\nsource = open("hello.c").read()\nassert "main" in source\n```\n')
    assert [(b.language, b.file) for b in doc_examples.code_blocks(doc.read_text())] == [("c", "hello.c"),
                                                                                        ("python", None)]
    work = tmp_path / "work"
    work.mkdir()
    assert doc_examples.run_markdown(doc, work) == 1
    assert (work / "hello.c").read_text() == "int main(void) { return 0; }\n"


def test_docstring_failures_are_reported(monkeypatch):
    def bad():
        """Adds.

        >>> 1 + 1
        3
        """

    monkeypatch.setattr(tx.math, "__all__", ["reduce_sum"])
    monkeypatch.setattr(tx.math, "reduce_sum", bad)
    examples, failed, report = doc_examples.run_docstring_examples("tensorflux.math", set())
    assert (examples, failed) == (1, 1)
    assert "tx.math.reduce_sum" in report and "Expected:\n    3\nGot:\n    2" in report
