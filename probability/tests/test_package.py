"""The package contract: the declared core range is checked at import with a clear message, and
the add-on reaches tensorflux only through public names (DESIGN.md §8)."""

import pathlib
import re

import pytest

import tensorflux as tx
import tensorflux_probability as txp
from tensorflux_probability import _compat

SRC = pathlib.Path(txp.__file__).parent


def test_version_and_declared_core_range():
    assert re.match(r"^\d+\.\d+\.\d+", txp.__version__)
    core_range = _compat.declared_core_range()
    assert ">=" in core_range and "<" in core_range
    _compat.check_core_version(tx.__version__, core_range)  # the installed core is in range


def test_core_outside_the_range_is_refused_naming_both():
    with pytest.raises(ImportError, match=r"needs tensorflux >=0\.1\.0,<0\.2, but tensorflux 0\.3\.0 is installed"):
        _compat.check_core_version("0.3.0", ">=0.1.0,<0.2")
    with pytest.raises(ImportError, match="cannot read the core requirement clause"):
        _compat.check_core_version("0.1.0", "~=0.1")


def test_only_public_tensorflux_names_are_used():
    offenders = []
    pattern = re.compile(r"(from\s+tensorflux\._|import\s+tensorflux\._|tx\._[a-z]|tensorflux\._src)")
    for path in SRC.rglob("*.py"):
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if pattern.search(line):
                offenders.append("%s:%d: %s" % (path.relative_to(SRC), n, line.strip()))
    assert not offenders, "\n".join(offenders)


def test_every_listed_public_name_exists_and_has_a_docstring():
    for module in (txp.distributions, txp.bijectors, txp.layers, txp.mcmc, txp.vi, txp.math, txp.util):
        for name in module.__all__:
            obj = getattr(module, name)
            if callable(obj) and not isinstance(obj, type(txp.distributions.FULLY_REPARAMETERIZED)):
                assert obj.__doc__, "%s.%s has no docstring" % (module.__name__, name)
