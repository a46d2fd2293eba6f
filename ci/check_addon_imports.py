"""Fails when an add-on (addons/, probability/, data/) reaches past core's public API (DESIGN.md §8):

- Python: importing a private module (``import tensorflux._src``, ``from tensorflux._src import x``,
  ``from tensorflux import _lib``) or reading a private attribute of the package or of a public
  module (``tx._lib``, ``tensorflux.nn._impl``; dunders such as ``__version__`` are public);
- C/C++: including a Tensorflux header other than the public C API (``tensorflux/c/c_api*.h``).

    python ci/check_addon_imports.py            # the add-on folders of the repository
    python ci/check_addon_imports.py PATH ...   # given files or folders
"""

import ast
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
ADDONS = ("addons", "probability", "data")
SKIP = {"build", ".nox", ".venv", "__pycache__"}
C_SUFFIXES = {".c", ".cc", ".cpp", ".h", ".hpp", ".cu"}
PUBLIC_HEADER = re.compile(r"^tensorflux/c/c_api(_[a-z]+)?\.h$")
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]')


def _private(name):
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _private_module(dotted):
    parts = dotted.split(".")
    return parts[0] == "tensorflux" and any(_private(p) for p in parts[1:])


def python_problems(source, filename="<source>"):
    """(line, message) for each private use of tensorflux in Python ``source``."""
    tree = ast.parse(source, filename)
    aliases = {}  # local name -> dotted tensorflux module it stands for
    problems = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if _private_module(a.name):
                    problems.append((node.lineno, "imports the private module %s" % a.name))
                elif a.name.split(".")[0] == "tensorflux":
                    aliases[a.asname or a.name.split(".")[0]] = a.name if a.asname else "tensorflux"
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if _private_module(node.module):
                problems.append((node.lineno, "imports from the private module %s" % node.module))
            elif node.module.split(".")[0] == "tensorflux":
                for a in node.names:
                    if _private(a.name):
                        problems.append((node.lineno, "imports the private name %s.%s" % (node.module, a.name)))
                    else:
                        aliases[a.asname or a.name] = node.module + "." + a.name
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            base = node.value
            while isinstance(base, ast.Attribute):
                base = base.value
            if isinstance(base, ast.Name) and base.id in aliases:
                problems.append((node.lineno, "reads the private attribute %s of %s" % (node.attr, aliases[base.id])))
    return sorted(problems)


def c_problems(source):
    """(line, message) for each include of a Tensorflux header that is not the public C API."""
    problems = []
    for lineno, line in enumerate(source.splitlines(), start=1):
        m = INCLUDE.match(line)
        if m and m.group(1).startswith("tensorflux/") and not PUBLIC_HEADER.match(m.group(1)):
            problems.append((lineno, "includes %s, which is not a public C API header" % m.group(1)))
    return problems


def check(paths):
    """Every problem in the files under ``paths``, as "file:line: message" strings."""
    out = []
    for root in paths:
        files = [root] if root.is_file() else sorted(root.rglob("*"))
        for path in files:
            if not path.is_file() or SKIP & set(path.parts):
                continue
            if path.suffix == ".py":
                found = python_problems(path.read_text(encoding="utf-8"), str(path))
            elif path.suffix in C_SUFFIXES:
                found = c_problems(path.read_text(encoding="utf-8", errors="replace"))
            else:
                continue
            out.extend("%s:%d: %s" % (path, line, msg) for line, msg in found)
    return out


def main(argv=None):
    args = sys.argv[1:] if argv is None else argv
    paths = [pathlib.Path(a) for a in args] or [ROOT / d for d in ADDONS if (ROOT / d).exists()]
    problems = check(paths)
    for p in problems:
        print(p)
    print("%d private uses of tensorflux in %s" % (len(problems), ", ".join(str(p) for p in paths)),
          file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
