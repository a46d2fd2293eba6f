"""ci/check_addon_imports.py: the CI check that keeps add-ons on core's public API."""

import importlib.util
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("check_addon_imports", ROOT / "ci" / "check_addon_imports.py")
check = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check)


def test_private_python_uses_are_found():
    source = """
import tensorflux as tx
import tensorflux._src.lib
from tensorflux._src import gen_ops
from tensorflux import _lib, nn
from tensorflux.optimizers import Optimizer
from . import _local                  # the add-on's own private modules are fine
import numpy._core
x = tx._lib.c
y = nn._impl
z = Optimizer._apply
ok = tx.__version__, tx.nn.relu, tx.Variable(1)._private_of_an_object
"""
    lines = [line for line, _ in check.python_problems(source)]
    assert lines == [3, 4, 5, 9, 10, 11]


def test_private_includes_are_found():
    source = '#include "tensorflux/c/c_api_plugin.h"\n#include <tensorflux/c/c_api.h>\n' \
             '#include "tensorflux/framework/graph.h"\n#include <stdio.h>\n# include "tensorflux/c/plugin_internal.h"\n'
    assert [line for line, _ in check.c_problems(source)] == [3, 5]


def test_the_add_ons_in_the_repository_pass(tmp_path):
    assert check.main([]) == 0
    bad = tmp_path / "bad.py"
    bad.write_text("from tensorflux._src.generated import gen_ops\n")
    assert check.main([str(tmp_path)]) == 1
