"""Missing public names say whether TensorFlow has them; tools/api_coverage.py's report and check."""

import importlib.util
import pathlib
import traceback

import pytest

import tensorflux as tx
from tensorflux._src.module_getattr import TF_NAMESPACE_OF
from tensorflux._src.tf_api_names import NAMES

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _load_tool():
    spec = importlib.util.spec_from_file_location("api_coverage", ROOT / "tools" / "api_coverage.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _first_missing(module, namespace):
    """A name TensorFlow's ``namespace`` has and ``module`` lacks."""
    provided = set(vars(module)) | set(getattr(module, "__all__", ()))  # __all__: names loaded on first use too
    return next(n for n in sorted(NAMES[namespace]) if n not in provided)


def _message(error):
    return "".join(traceback.format_exception_only(type(error), error))


@pytest.mark.parametrize("module", [tx, tx.math, tx.nn, tx.linalg, tx.random, tx.train, tx.debugging, tx.losses,
                                    tx.keras.layers, tx.keras.callbacks, tx.keras.metrics],
                         ids=lambda m: m.__name__)
def test_name_tensorflow_has_is_reported_as_not_implemented(module):
    namespace = TF_NAMESPACE_OF[module.__name__]
    name = _first_missing(module, namespace)
    spelled = "tx" + module.__name__[len("tensorflux"):]
    with pytest.raises(AttributeError) as info:
        getattr(module, name)
    assert str(info.value) == ("module %r has no attribute %r: `%s.%s` is not implemented in Tensorflux "
                               "(TensorFlow has `%s.%s`)" % (module.__name__, name, spelled, name, namespace, name))
    assert not hasattr(module, name)


def test_unknown_name_is_a_plain_attribute_error_without_a_guess():
    for module, name in ((tx, "zeroes"), (tx.math, "reduce_summ"), (tx.nn, "reluu")):
        with pytest.raises(AttributeError) as info:
            getattr(module, name)
        assert str(info.value) == "module %r has no attribute %r" % (module.__name__, name)
        assert "Did you mean" not in _message(info.value)
        assert "not implemented" not in _message(info.value)


def test_private_and_dunder_names_stay_plain():
    with pytest.raises(AttributeError, match=r"^module 'tensorflux' has no attribute '__wrapped__'$"):
        tx.__wrapped__
    with pytest.raises(ImportError):
        from tensorflux.math import reduce_summ  # noqa: F401


def test_existing_names_and_lazy_protos_still_resolve():
    assert tx.zeros is not None and tx.math.reduce_sum is tx.reduce_sum
    assert tx.GraphDef.__name__ == "GraphDef"


def test_checked_in_names_cover_every_mapped_namespace():
    assert set(NAMES) <= set(TF_NAMESPACE_OF.values())
    for namespace in ("tf", "tf.math", "tf.nn", "tf.linalg", "tf.random", "tf.train"):
        assert len(NAMES[namespace]) > 10, namespace
    assert {"constant", "Variable", "matmul"} <= NAMES["tf"] and "relu" in NAMES["tf.nn"]
    assert not any(n.startswith("_") for names in NAMES.values() for n in names)
    assert "math" not in NAMES["tf"] and "compat" not in NAMES["tf"]  # submodules are not names


def test_check_fails_when_coverage_drops_below_the_record():
    tool = _load_tool()
    same = [{"namespace": "tf.math", "tx": "tx.math", "total": 10, "covered": 6, "missing": list("abcd")}]
    doc = tool.render_doc(same, "2.x")
    assert tool.recorded_coverage(doc) == {("tf.math", "tx.math"): 6}
    assert tool.check(same, doc) == []
    more = [{"namespace": "tf.math", "tx": "tx.math", "total": 11, "covered": 7, "missing": list("abcd")}]
    assert tool.check(more, doc) == []
    fewer = [{"namespace": "tf.math", "tx": "tx.math", "total": 10, "covered": 5, "missing": list("abcde")}]
    (problem,) = tool.check(fewer, doc)
    assert problem.startswith("tf.math: 5 of TensorFlow's names present") and "records 6" in problem


def test_recorded_coverage_is_read_from_the_checked_in_doc():
    tool = _load_tool()
    recorded = tool.recorded_coverage((ROOT / "docs" / "api-coverage.md").read_text(encoding="utf-8"))
    assert {"tf", "tf.math", "tf.nn", "tf.linalg", "tf.random", "tf.keras.layers"} <= {ns for ns, _ in recorded}
    assert recorded[("tf.math", "tx.math")] > 0
    assert recorded[("tf.keras.losses", "tx.losses")] == recorded[("tf.keras.losses", "tx.keras.losses")]


def test_coverage_check_passes_against_tensorflow():
    tf = pytest.importorskip("tensorflow")
    tool = _load_tool()
    names = tool.tf_names(tf)
    assert "math" not in names["tf"] and "add" in names["tf.math"]
    rows = tool.coverage(names)
    assert tool.check(rows, (ROOT / "docs" / "api-coverage.md").read_text(encoding="utf-8")) == []
    math_row = next(r for r in rows if r["namespace"] == "tf.math")
    assert "reduce_sum" not in math_row["missing"] and math_row["covered"] >= len(tx.math.__all__) // 2


def test_check_skips_without_tensorflow_but_generation_needs_it(monkeypatch, capsys):
    tool = _load_tool()
    monkeypatch.setattr(tool, "_import_tensorflow", lambda: None)
    monkeypatch.setattr("sys.argv", ["api_coverage.py", "--check"])
    assert tool.main() == 0
    assert "check skipped" in capsys.readouterr().out
    monkeypatch.setattr("sys.argv", ["api_coverage.py"])
    assert tool.main() == 1
    assert "needs TensorFlow" in capsys.readouterr().err
