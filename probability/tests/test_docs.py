"""Every ```python block of the add-on's README.md and docs/*.md runs (each file's blocks in one
namespace, in order)."""

import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
FILES = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
FENCE = re.compile(r"```python\n(.*?)```", re.S)


def _blocks():
    for path in FILES:
        for i, code in enumerate(FENCE.findall(path.read_text())):
            yield pytest.param(path, i, code, id="%s-%d" % (path.name, i))


@pytest.mark.parametrize("path,index,code", list(_blocks()))
def test_doc_block_runs(path, index, code):
    exec(compile(code, "%s[block %d]" % (path.name, index), "exec"), {"__name__": "__doc_example__"})
