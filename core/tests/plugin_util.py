"""Builds the test plugins (csrc/tests/plugin/*.c) with the C compiler, against the installed
public headers only (tensorflux.sysconfig), the way a plugin author builds one."""

import os
import pathlib
import shutil
import subprocess

import pytest

from tensorflux import sysconfig

PLUGIN_SOURCES = pathlib.Path(__file__).resolve().parents[2] / "csrc" / "tests" / "plugin"


def build_plugin(source, out_dir, name="libplugin.so", defines=()):
    """Compiles ``source`` (a path, or a file name under csrc/tests/plugin) into ``out_dir/name``
    with ``-D`` ``defines``; skips the test when there is no C compiler."""
    cc = os.environ.get("CC", "cc")
    if shutil.which(cc) is None:
        pytest.skip("no C compiler (%s) to build a plugin with" % cc)
    source = pathlib.Path(source)
    if not source.is_absolute():
        source = PLUGIN_SOURCES / source
    out = pathlib.Path(out_dir) / name
    cmd = [cc, "-shared", "-fPIC", "-O2", "-Wall", "-Werror", *sysconfig.get_compile_flags(),
           *("-D" + d for d in defines), str(source), "-o", str(out)]
    done = subprocess.run(cmd, capture_output=True, text=True)
    assert done.returncode == 0, "%s\n%s" % (" ".join(cmd), done.stderr)
    return str(out)
