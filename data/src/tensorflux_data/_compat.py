"""The core range this distribution supports, declared once in pyproject.toml and checked at import,
so a mismatched core is named at once instead of failing deep inside a pipeline."""

import importlib.metadata
import re

DISTRIBUTION = "tensorflux-data"
_OPS = {">=": lambda a, b: a >= b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
        "<": lambda a, b: a < b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b}


def _release(text):
    """The first three numeric parts of a version string as a tuple (missing parts are 0)."""
    m = re.match(r"\s*(\d+(?:\.\d+)*)", text)
    if not m:
        raise ValueError("not a version: %r" % (text,))
    nums = [int(x) for x in m.group(1).split(".")] + [0, 0, 0]
    return tuple(nums[:3])


def declared_core_range():
    """The version clauses of this distribution's ``tensorflux`` requirement, e.g. ``>=0.1.0,<0.2``."""
    for req in importlib.metadata.requires(DISTRIBUTION) or ():
        m = re.match(r"\s*tensorflux(?![-\w])\s*\(?([^;)]*)", req)
        if m:
            return m.group(1).strip()
    raise ImportError("%s declares no tensorflux requirement" % DISTRIBUTION)


def check_core_version(core_version, core_range):
    """Raises ImportError naming both versions when ``core_version`` falls outside ``core_range``."""
    for clause in (c.strip() for c in core_range.split(",") if c.strip()):
        m = re.match(r"(>=|<=|==|!=|>|<)\s*(\S+)$", clause)
        if m is None:
            raise ImportError("%s: cannot read the core requirement clause %r" % (DISTRIBUTION, clause))
        if not _OPS[m.group(1)](_release(core_version), _release(m.group(2))):
            raise ImportError("%s needs tensorflux %s, but tensorflux %s is installed: install a matching "
                              "tensorflux (pip install 'tensorflux%s')" % (DISTRIBUTION, core_range, core_version,
                                                                           core_range))
