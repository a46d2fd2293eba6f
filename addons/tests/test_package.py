"""The package itself: its version, the core range checked at import, its plugin, its docs."""

import os
import re
import subprocess
import sys

import pytest

import tensorflux as tx
import tensorflux_addons as txa
from tensorflux_addons import _compat, _native

HERE = os.path.dirname(os.path.abspath(__file__))


def test_version_and_declared_core_range():
    assert re.match(r"^\d+\.\d+\.\d+", txa.__version__)
    clauses = _compat.declared_core_range().split(",")
    assert any(c.startswith(">=") for c in clauses) and any(c.startswith("<") for c in clauses)  # both bounds
    _compat.check_core_version(tx.__version__, _compat.declared_core_range())  # the installed core is in range


@pytest.mark.parametrize("core", ["0.0.9", "0.2.0", "1.0.0"])
def test_out_of_range_core_versions_are_refused_by_name(core):
    with pytest.raises(ImportError, match=r"tensorflux-addons needs tensorflux >=0\.1\.0,<0\.2, but tensorflux %s"
                       % re.escape(core)):
        _compat.check_core_version(core, ">=0.1.0,<0.2")
    _compat.check_core_version("0.1.7", ">=0.1.0,<0.2")


def test_import_against_an_incompatible_core_fails_clearly():
    code = "import tensorflux; tensorflux.__version__ = '0.9.0'; import tensorflux_addons"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode != 0
    want = "ImportError: tensorflux-addons needs tensorflux %s, but tensorflux 0.9.0 is installed"
    assert want % _compat.declared_core_range() in out.stderr


def test_the_plugin_registers_the_fused_op():
    ops = _native.ops()
    assert [op.name for op in ops.OP_LIST.op] == ["AddonsResourceApplyLion"]
    assert _native.ops() is ops


def _python_blocks(path):
    text = open(path, encoding="utf-8").read()
    return [m.group(2) for m in re.finditer(r"(?m)^(<!-- illustration -->\n)?```python\n(.*?)^```", text, re.S)
            if m.group(1) is None]


@pytest.mark.parametrize("doc", ["README.md", "CONTRIBUTING.md"])
def test_documentation_examples_run(doc, tmp_path, monkeypatch):
    blocks = _python_blocks(os.path.join(HERE, "..", doc))
    assert blocks, "no python examples in %s" % doc
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "__doc_example__"}
    for block in blocks:
        exec(compile(block, doc, "exec"), namespace)  # noqa: S102 (the documentation's own code)


def test_docstring_examples_run():
    import doctest

    import numpy as np

    import importlib

    for module in (txa, importlib.import_module("tensorflux_addons.optimizers.lion")):
        result = doctest.testmod(module, extraglobs={"tx": tx, "np": np},
                                 optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
        assert result.failed == 0 and result.attempted > 0, module.__name__
