"""Conformance entries: control ops."""

from conformance.harness import OpEntry, Sample

ENTRIES = [
    OpEntry("NoOp", [Sample({})], ref=lambda: (), cross_check=False),
]
