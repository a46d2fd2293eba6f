"""Runs the ``>>>`` examples of every public docstring of the add-on."""

import doctest
import importlib
import pkgutil

import numpy as np
import pytest

import tensorflux as tx
import tensorflux_probability as txp

MODULES = sorted(m.name for m in pkgutil.walk_packages(txp.__path__, "tensorflux_probability.")
                 if ".internal" not in m.name)


@pytest.mark.parametrize("name", ["tensorflux_probability"] + MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in finder.find(module, name, globs={"tx": tx, "txp": txp, "np": np}):
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, "%d doctest failures in %s" % (result.failed, name)
