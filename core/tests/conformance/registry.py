"""Collects the conformance entries of every op family into one table, keyed by op name."""

from __future__ import annotations

import importlib
import pkgutil

from conformance import dtype_column
from conformance.harness import OpEntry


def _load() -> dict:
    table: dict[str, OpEntry] = {}
    package = importlib.import_module("conformance")
    for info in pkgutil.iter_modules(package.__path__):
        if not info.name.startswith("entries_"):
            continue
        module = importlib.import_module(f"conformance.{info.name}")
        for entry in module.ENTRIES:
            if entry.op in table:
                raise ValueError(f"op {entry.op} has two conformance entries ({info.name})")
            table[entry.op] = entry
    dtype_column.apply(table)
    return table


ENTRIES = _load()
