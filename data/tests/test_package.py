"""The package itself: its version, the core range checked at import, tx.data resolving to it, its
documentation examples, and no private use of tensorflux."""

import doctest
import importlib
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import tensorflux as tx
import tensorflux_data as txd
from tensorflux_data import _compat

HERE = os.path.dirname(os.path.abspath(__file__))
MODULES = ["tensorflux_data." + m for m in ("_dataset", "_options", "_iterator", "experimental", "_arrays", "_stats",
                                            "_files", "_tfrecord", "io", "_csv", "_file_cache", "_make_csv")] + [
    "tensorflux_data"]


def test_version_and_declared_core_range():
    assert re.match(r"^\d+\.\d+\.\d+", txd.__version__)
    clauses = _compat.declared_core_range().split(",")
    assert any(c.startswith(">=") for c in clauses) and any(c.startswith("<") for c in clauses)
    _compat.check_core_version(tx.__version__, _compat.declared_core_range())


@pytest.mark.parametrize("core", ["0.0.9", "0.2.0", "1.0.0"])
def test_out_of_range_core_versions_are_refused_by_name(core):
    with pytest.raises(ImportError, match=r"tensorflux-data needs tensorflux >=0\.1\.0,<0\.2, but tensorflux %s"
                       % re.escape(core)):
        _compat.check_core_version(core, ">=0.1.0,<0.2")
    _compat.check_core_version("0.1.7", ">=0.1.0,<0.2")


def test_import_against_an_incompatible_core_fails_clearly():
    code = "import tensorflux; tensorflux.__version__ = '0.9.0'; import tensorflux_data"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode != 0
    assert "ImportError: tensorflux-data needs tensorflux %s, but tensorflux 0.9.0 is installed" \
        % _compat.declared_core_range() in out.stderr


def test_tx_data_is_this_package():
    assert tx.data is txd
    from tensorflux import data
    assert data.Dataset is txd.Dataset
    assert [int(x) for x in tx.data.Dataset.range(2)] == [0, 1]


def test_tx_data_without_the_package_names_it():
    code = ("import sys; sys.modules['tensorflux_data'] = None; import tensorflux as tx\n"
            "try:\n    tx.data\nexcept ImportError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert "pip install tensorflux-data" in out.stdout, out.stderr
    code = "import sys, tensorflux; print('tensorflux_data' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "False"  # the core never imports it unasked


def test_no_private_use_of_tensorflux():
    root = os.path.join(HERE, "..", "..", "ci", "check_addon_imports.py")
    if not os.path.exists(root):
        pytest.skip("outside the source tree")
    spec = importlib.util.spec_from_file_location("check_addon_imports", root)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    import pathlib
    assert mod.check([pathlib.Path(HERE).parent]) == []


def _python_blocks(path):
    text = open(path, encoding="utf-8").read()
    return [m.group(2) for m in re.finditer(r"(?m)^(<!-- illustration -->\n)?```python\n(.*?)^```", text, re.S)
            if m.group(1) is None]


def test_readme_examples_run(tmp_path, monkeypatch):
    blocks = _python_blocks(os.path.join(HERE, "..", "README.md"))
    assert blocks
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "__doc_example__"}
    for i, block in enumerate(blocks):
        path = tmp_path / ("readme_block_%d.py" % i)  # a file: AutoGraph reads functions' source
        path.write_text(block)
        exec(compile(block, str(path), "exec"), namespace)  # noqa: S102 (the documentation's own code)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name):
    result = doctest.testmod(importlib.import_module(name), extraglobs={"tx": tx, "np": np, "txd": txd},
                             optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0 and result.attempted > 0, name
