"""Runs the examples in the documentation: fenced ```python blocks of Markdown files, and ``>>>``
examples in the docstrings of public names (used by test_docs.py; docs/layout.md says how).

A Markdown file's python blocks run in order in one namespace, so a later block may use an
earlier block's names. A block that is an illustration only (a fragment that cannot run) has the
line ``<!-- illustration -->`` right before its opening fence; any other python block must run.
A block of any language whose fence names a file (```` ```c file=cube_plugin.c ````) is written
to that file in the working directory first, so the python blocks can compile or read it.
"""

from __future__ import annotations

import contextlib
import doctest
import importlib
import inspect
import io
import os
import pathlib
import re

import numpy as np

ILLUSTRATION_MARKER = "<!-- illustration -->"
_FENCE = re.compile(r"^(?P<indent> *)(?P<fence>```+|~~~+)\s*(?P<info>[^`\s]*)(?:\s+file=(?P<file>[\w.-]+))?")


class CodeBlock:
    """One fenced code block: its language, the 1-based line of its first code line, its text, and
    the file name its fence gives (``file=NAME``), if any."""

    def __init__(self, language: str, line: int, code: str, illustration: bool, file: str | None = None):
        self.language, self.line, self.code, self.illustration = language, line, code, illustration
        self.file = file


def code_blocks(text: str) -> list[CodeBlock]:
    """Every fenced code block of Markdown ``text``, in order."""
    blocks, lines, i = [], text.splitlines(), 0
    while i < len(lines):
        match = _FENCE.match(lines[i])
        if not match:
            i += 1
            continue
        fence, indent = match["fence"], len(match["indent"])
        illustration = i > 0 and lines[i - 1].strip() == ILLUSTRATION_MARKER
        start, i = i + 1, i + 1
        while i < len(lines) and not lines[i].strip().startswith(fence[0] * len(fence)):
            i += 1
        body = "\n".join(line[indent:] if line[:indent].isspace() else line for line in lines[start:i])
        blocks.append(CodeBlock(match["info"].lower(), start + 1, body + "\n", illustration, match["file"]))
        i += 1
    return blocks


def runnable_python_blocks(path: pathlib.Path) -> list[CodeBlock]:
    """The python blocks of Markdown file ``path`` that must run (illustrations left out)."""
    return [b for b in code_blocks(path.read_text(encoding="utf-8")) if b.language == "python" and not b.illustration]


def run_markdown(path: pathlib.Path, workdir: pathlib.Path) -> int:
    """Runs ``path``'s python blocks in order in one namespace with ``workdir`` as the current
    directory; returns how many ran. A failure's traceback names the Markdown file and line."""
    namespace = {"__name__": "__doc_example__"}
    blocks = runnable_python_blocks(path)
    for block in code_blocks(path.read_text(encoding="utf-8")):
        if block.file is not None:
            (pathlib.Path(workdir) / block.file).write_text(block.code, encoding="utf-8")
    previous = os.getcwd()
    os.chdir(workdir)
    try:
        for block in blocks:
            # Leading newlines put each statement on its own line number in the Markdown file.
            code = compile("\n" * (block.line - 1) + block.code, str(path), "exec")
            with contextlib.redirect_stdout(io.StringIO()):
                exec(code, namespace)
    finally:
        os.chdir(previous)
    return len(blocks)


def public_objects(module_name: str):
    """(qualified public name, object) for each function or class in the module's ``__all__``."""
    module = importlib.import_module(module_name)
    spelled = "tx" + module_name[len("tensorflux"):]
    for name in module.__all__:
        value = getattr(module, name)
        if inspect.isroutine(value) or inspect.isclass(value):
            yield "%s.%s" % (spelled, name), value


def run_docstring_examples(module_name: str, seen: set) -> tuple[int, int, str]:
    """Runs the ``>>>`` examples in the docstrings of ``module_name``'s public names (and their
    methods), skipping objects in ``seen`` (and adding to it). Returns (examples, failures, report)."""
    import tensorflux as tx

    finder = doctest.DocTestFinder(recurse=True, exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    report = io.StringIO()
    for qualified, value in public_objects(module_name):
        if id(value) in seen:
            continue
        seen.add(id(value))
        tests = finder.find(value, qualified, globs={"tx": tx, "np": np}, module=False)
        for test in sorted(tests, key=lambda t: t.name):
            test.globs = {"tx": tx, "np": np}
            runner.run(test, out=report.write)
    results = runner.summarize(verbose=False)
    return results.attempted, results.failed, report.getvalue()
