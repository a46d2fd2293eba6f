"""Where the installed engine's C API lives, for building C and Go programs against it (``tf.sysconfig``).

``python -m tensorflux.sysconfig --cgo-cflags`` (or ``--cgo-ldflags``, ``--include-dir``, ``--lib-dir``,
``--cflags``, ``--ldflags``) prints one line for a shell: e.g.
``CGO_CFLAGS="$(python -m tensorflux.sysconfig --cgo-cflags)"`` for the Go bindings (docs/go.md).
"""

from __future__ import annotations

import argparse
import importlib.util
import os

__all__ = ["get_include", "get_lib", "get_compile_flags", "get_link_flags"]

LIBRARY_NAME = "tensorflux"  # libtensorflux.so


def get_lib() -> str:
    """The directory holding the engine's shared library libtensorflux.so (installed or editable)."""
    spec = importlib.util.find_spec("tensorflux._tx_c")
    if spec is None or spec.origin is None:
        raise RuntimeError("tensorflux is not installed: its extension module tensorflux._tx_c was not found")
    lib_dir = os.path.dirname(os.path.abspath(spec.origin))
    if not os.path.exists(os.path.join(lib_dir, f"lib{LIBRARY_NAME}.so")):
        raise RuntimeError(f"lib{LIBRARY_NAME}.so is not next to {spec.origin}")
    return lib_dir


def get_include() -> str:
    """The directory to put on the include path so that ``#include "tensorflux/c/c_api.h"`` works."""
    inc = os.path.join(get_lib(), "include")
    if not os.path.exists(os.path.join(inc, "tensorflux", "c", "c_api.h")):
        raise RuntimeError(f"the C API headers are not installed under {inc}")
    return inc


def get_compile_flags() -> list[str]:
    """Compiler flags for code that includes the C API headers."""
    return [f"-I{get_include()}"]


def get_link_flags() -> list[str]:
    """Linker flags for code that calls the C API: the library, its directory, and a run path to it."""
    lib = get_lib()
    return [f"-L{lib}", f"-Wl,-rpath,{lib}", f"-l{LIBRARY_NAME}"]


def main(argv: list[str] | None = None) -> None:
    """Prints the requested paths or flags, one request per line."""
    parser = argparse.ArgumentParser(prog="python -m tensorflux.sysconfig", description=__doc__.splitlines()[0])
    for flag in ("--include-dir", "--lib-dir", "--cflags", "--ldflags", "--cgo-cflags", "--cgo-ldflags"):
        parser.add_argument(flag, action="store_true")
    args = parser.parse_args(argv)
    lines = []
    if args.include_dir:
        lines.append(get_include())
    if args.lib_dir:
        lines.append(get_lib())
    if args.cflags or args.cgo_cflags:
        lines.append(" ".join(get_compile_flags()))
    if args.ldflags or args.cgo_ldflags:
        lines.append(" ".join(get_link_flags()))
    if not lines:
        parser.error("name at least one of the flags")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
