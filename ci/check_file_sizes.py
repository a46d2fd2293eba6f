"""Fails when a hand-written source file passes the size budget (DESIGN.md §2: split before ~800 lines)."""

import pathlib
import sys

LIMIT = 800
ROOT = pathlib.Path(__file__).resolve().parent.parent
SUFFIXES = {".cc", ".h", ".c", ".py", ".go", ".cu"}


def main() -> int:
    too_big = []
    for path in ROOT.rglob("*"):
        rel = path.relative_to(ROOT)
        parts = set(rel.parts)
        if path.suffix not in SUFFIXES or not path.is_file():
            continue
        if parts & {"generated", "build", ".nox", ".venv", "proto", "node_modules"} or rel.parts[0].startswith("."):
            continue
        with path.open(encoding="utf-8", errors="replace") as f:
            first = f.readline()
            lines = 1 + sum(1 for _ in f) if first else 0
        if first.startswith("// Code generated ") and "DO NOT EDIT." in first:  # Go's generated-file banner
            continue
        if lines > LIMIT:
            too_big.append(f"{rel}: {lines} lines")
    for line in too_big:
        print(f"over {LIMIT} lines: {line}")
    return 1 if too_big else 0


if __name__ == "__main__":
    sys.exit(main())
