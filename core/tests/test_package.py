"""The distribution: public allow-list, lazy protobuf, installed files, generated wrappers."""

import ast
import os
import pathlib
import subprocess
import sys

import pytest

import tensorflux as tx
from tensorflux._src.generated import gen_ops
from tensorflux.proto import op_def_pb2

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_public_names_are_the_allow_list():
    for name in tx.__all__:
        assert hasattr(tx, name), name
        assert getattr(tx, name) is not None or name == "newaxis", name
    public = {n for n in vars(tx) if not n.startswith("_")}
    # "proto" (the generated messages) appears once tensorflux.proto has been imported.
    assert public - {"GraphDef", "ConfigProto", "proto"} <= set(tx.__all__)
    assert set(tx.errors.__all__) <= set(dir(tx.errors))
    for module in (tx.autograph, tx.autograph.experimental, tx.debugging, tx.linalg, tx.math, tx.nn, tx.random):
        for name in module.__all__:
            value = getattr(module, name)
            assert callable(value) or value is getattr(module, "experimental", None), f"{module.__name__}.{name}"
    with pytest.raises(AttributeError):
        tx.not_a_thing


# Note [Import layering]: modules that must not import (even inside a function) the higher ones named.
_LAYERING = {
    "operation.py": ["session", "array_ops", "eager_tensor"],
    "graph.py": ["session", "array_ops"],
    "eager_tensor.py": ["session", "array_ops", "constant_op", "op_def_library", "generated.gen_ops"],
    "variables.py": ["backprop", "function"],
    "func_graph.py": ["backprop", "function"],
    "sparse_tensor.py": ["sparse_ops"],
    "autograph/conversion.py": ["function"],
}


@pytest.mark.parametrize("path", sorted(_LAYERING))
def test_lower_modules_do_not_import_higher_ones(path):
    src = ROOT / "core" / "src" / "tensorflux" / "_src" / path
    imported = set()
    for node in ast.walk(ast.parse(src.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module)
            imported.update("%s.%s" % (node.module, a.name) for a in node.names)
        elif isinstance(node, ast.Import):
            imported.update(a.name for a in node.names)
    bad = sorted(m for m in _LAYERING[path] if "tensorflux._src." + m in imported)
    assert not bad, "%s imports %s" % (path, bad)


def test_import_does_not_load_protobuf():
    code = ("import sys, tensorflux as tx; "
            "bad = sorted(m for m in sys.modules if m.startswith(('google.protobuf', 'tensorflux.proto'))); "
            "assert not bad, bad; "
            "tx.GraphDef; assert 'tensorflux.proto.graph_pb2' in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True, env=dict(os.environ))


def test_installed_files():
    pkg = pathlib.Path(tx._lib.c.__file__).parent
    assert (pkg / "libtensorflux.so").exists()
    for name in ("c_api.h", "c_api_eager.h", "c_api_callback.h", "c_api_profiler.h"):
        header = pkg / "include" / "tensorflux" / "c" / name
        assert header.read_text() == (ROOT / "csrc" / "include" / "tensorflux" / "c" / name).read_text()


def test_every_c_api_function_is_called_with_null_arguments():
    """csrc/tests/c_api_null_test.c calls every function the public headers declare with NULL objects
    (c_api.h's "Misuse" rules); a function added to a header must be added there too."""
    import re

    declared = set()
    for name in ("c_api.h", "c_api_eager.h", "c_api_callback.h", "c_api_profiler.h"):
        text = (ROOT / "csrc" / "include" / "tensorflux" / "c" / name).read_text()
        declared |= set(re.findall(r"TX_CAPI_EXPORT extern [^;]*?\b(TXE?_\w+)\(", text))
    called = set(re.findall(r"\b(TXE?_\w+)\(", (ROOT / "csrc" / "tests" / "c_api_null_test.c").read_text()))
    assert len(declared) > 200
    assert sorted(declared - called) == []


def test_binding_links_only_the_c_api_library():
    pkg = pathlib.Path(tx._lib.c.__file__).parent
    out = subprocess.run(["readelf", "-d", tx._lib.c.__file__], capture_output=True, text=True)
    if out.returncode != 0:
        pytest.skip("readelf is not available")
    needed = [line.split("[")[1].rstrip("]") for line in out.stdout.splitlines() if "(NEEDED)" in line]
    assert "libtensorflux.so" in needed
    assert "$ORIGIN" in out.stdout  # RPATH/RUNPATH
    nm = subprocess.run(["nm", "-D", "--defined-only", str(pkg / "libtensorflux.so")], capture_output=True,
                        text=True)
    exported = [line.split()[-1] for line in nm.stdout.splitlines() if " T " in line]
    assert exported and all(name.startswith(("TX_", "TXE_")) for name in exported), exported[:5]


def test_every_registered_op_has_a_wrapper():
    from tensorflux._src.load_library import loaded_op_names

    registered = {op.name for op in op_def_pb2.OpList.FromString(tx._lib.c.get_all_op_list()).op}
    registered -= loaded_op_names()  # plugins' ops get their wrappers when loaded (test_plugin.py)
    assert registered == set(gen_ops.OP_WRAPPERS)
    for fname in gen_ops.OP_WRAPPERS.values():
        assert callable(getattr(gen_ops, fname))
    assert gen_ops.OP_WRAPPERS["MatMul"] == "mat_mul" and gen_ops.OP_WRAPPERS["AddV2"] == "add_v2"
    assert gen_ops.OP_WRAPPERS["BiasAdd"] == "bias_add"


def test_generated_file_is_up_to_date():
    out = subprocess.run([sys.executable, str(ROOT / "tools" / "gen_python_ops.py"), "--check"], capture_output=True,
                         text=True)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr


def test_generated_file_banner_and_docstrings():
    text = pathlib.Path(gen_ops.__file__).read_text()
    assert text.splitlines()[0] == ("# Generated by tools/gen_python_ops.py from the engine's op registry — "
                                    "do not edit.")
    registered = {op.name: op for op in op_def_pb2.OpList.FromString(tx._lib.c.get_all_op_list()).op}
    assert gen_ops.mat_mul.__doc__.startswith(registered["MatMul"].summary)


def test_snake_case_names():
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import gen_python_ops
    finally:
        sys.path.pop(0)
    cases = {"MatMul": "mat_mul", "AddV2": "add_v2", "BiasAdd": "bias_add", "Conv2D": "conv2d",
             "RealDiv": "real_div", "NoOp": "no_op", "BiasAddV1": "bias_add_v1", "LRN": "lrn",
             "Conv2DBackpropInput": "conv2d_backprop_input", "ResourceApplyAdam": "resource_apply_adam"}
    for op, want in cases.items():
        assert gen_python_ops.snake_case(op) == want


def test_generator_on_synthetic_op_defs():
    """Parameter order and defaults, inferred type attrs, list outputs and keyword renames."""
    import inspect
    import types

    from google.protobuf import text_format

    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import gen_python_ops
    finally:
        sys.path.pop(0)
    op_list = text_format.Parse("""
        op { name: "SplitThings" summary: "Splits things."
             input_arg { name: "split_dim" type: DT_INT32 } input_arg { name: "value" type_attr: "T" }
             input_arg { name: "lambda" number_attr: "N" type_attr: "T" }
             output_arg { name: "parts" number_attr: "num_split" type_attr: "T" }
             output_arg { name: "index" type_attr: "out_idx" }
             attr { name: "num_split" type: "int" has_minimum: true minimum: 1 }
             attr { name: "T" type: "type" } attr { name: "N" type: "int" }
             attr { name: "out_idx" type: "type" default_value { type: DT_INT64 } }
             attr { name: "alpha" type: "float" default_value { f: 0.2 } }
             attr { name: "dims" type: "list(int)" default_value { list { i: [1, 2] } } }
             attr { name: "shape" type: "shape" default_value { shape { dim { size: -1 } dim { size: 3 } } } } }
        """, op_def_pb2.OpList())
    text = gen_python_ops.generate(op_list, gen_python_ops.BANNER, gen_python_ops.DOCSTRING)
    module = types.ModuleType("synthetic")
    exec(compile(text, "synthetic", "exec"), module.__dict__)
    fn = module.split_things
    params = [(p.name, p.default) for p in inspect.signature(fn).parameters.values()]
    empty = inspect.Parameter.empty
    assert params == [("split_dim", empty), ("value", empty), ("lambda_", empty), ("num_split", empty),
                      ("out_idx", tx.int64), ("alpha", 0.2), ("dims", [1, 2]), ("shape", [None, 3]),
                      ("name", None)]
    assert fn.__doc__.startswith("Splits things.")
    sig = module._SPLIT_THINGS
    assert sig.inputs == (("split_dim", "", 3, 0), ("value", "T", 0, 0), ("lambda", "T", 0, 1))
    assert sig.outputs == (("parts", True), ("index", False))
    assert sig.output_class._fields == ("parts", "index")
    assert module.OP_WRAPPERS == {"SplitThings": "split_things"}
