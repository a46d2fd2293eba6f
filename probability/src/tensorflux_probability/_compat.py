"""The supported core range, declared once in pyproject.toml (``tensorflux>=X,<Y``) and checked at
import: an add-on built for one core must say so clearly on another, not fail somewhere deep
inside (what ended tensorflow-addons)."""

import importlib.metadata
import re

DISTRIBUTION = "tensorflux-probability"
_CLAUSE = re.compile(r"^\s*(>=|<=|==|!=|>|<)\s*([0-9][0-9.]*)\s*$")


def _version_tuple(text):
    """(major, minor, patch) of a release version; pre-release and local parts are ignored."""
    numbers = re.match(r"^\s*([0-9]+(?:\.[0-9]+)*)", text)
    if numbers is None:
        raise ValueError("not a version: %r" % text)
    parts = [int(p) for p in numbers.group(1).split(".")]
    return tuple((parts + [0, 0, 0])[:3])


def declared_core_range():
    """The ``tensorflux`` requirement of the installed distribution, e.g. ``">=0.1.0,<0.2"``."""
    for req in importlib.metadata.requires(DISTRIBUTION) or ():
        m = re.match(r"^\s*tensorflux\s*([^;]*)", req)
        if m and not req.strip().startswith("tensorflux-"):
            return m.group(1).strip().strip("()")
    raise ImportError("%s declares no tensorflux requirement" % DISTRIBUTION)


def check_core_version(core_version, core_range):
    """Raises ImportError naming both when ``core_version`` is outside ``core_range`` (clauses such
    as ``>=0.1.0,<0.2`` joined by commas)."""
    have = _version_tuple(core_version)
    compare = {">=": lambda a, b: a >= b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
               "<": lambda a, b: a < b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b}
    for clause in filter(None, (c.strip() for c in core_range.split(","))):
        m = _CLAUSE.match(clause)
        if m is None:
            raise ImportError("cannot read the core requirement clause %r of %s" % (clause, DISTRIBUTION))
        if not compare[m.group(1)](have, _version_tuple(m.group(2))):
            raise ImportError(
                "%s needs tensorflux %s, but tensorflux %s is installed: install a matching tensorflux "
                "(pip install 'tensorflux%s') or a %s release made for tensorflux %s"
                % (DISTRIBUTION, core_range, core_version, core_range, DISTRIBUTION, core_version))
