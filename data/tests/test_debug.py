"""Debug mode runs the same pipeline eagerly and sequentially in Python: same elements as the fast
path for every pipeline; Python code inside map functions runs per element."""

import numpy as np
import pytest

import tensorflux as tx
import tensorflux_data as txd
from pipelines import ERRORS, PIPELINES, RANDOM, assert_same_elements, flat_values, kinds, outcomes

ALL = {**PIPELINES, **RANDOM}


@pytest.mark.parametrize("name", sorted(ALL))
def test_debug_mode_yields_the_fast_path_elements(name):
    fast = [flat_values(tx.nest, e) for e in ALL[name](txd.Dataset, tx)]
    with txd.debug_mode():
        debug = [flat_values(tx.nest, e) for e in ALL[name](txd.Dataset, tx)]
    assert_same_elements(debug, fast)


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_debug_mode_raises_the_fast_path_errors_at_their_positions(name):
    fast = kinds(outcomes(tx.nest, tx.errors.OpError, iter(ERRORS[name](txd.Dataset, tx))))
    with txd.debug_mode():
        debug = kinds(outcomes(tx.nest, tx.errors.OpError, iter(ERRORS[name](txd.Dataset, tx))))
    assert debug == fast and ("error", tx.errors.InvalidArgumentError) in fast


def test_python_code_in_a_map_function_runs_per_element_in_debug_mode():
    seen = []

    def f(x):
        seen.append(x.numpy() if hasattr(x, "numpy") and tx.executing_eagerly() else "traced")
        return x + 1

    ds = txd.Dataset.range(3).map(f)
    seen.clear()
    assert [int(v) for v in ds] == [1, 2, 3]
    assert seen == []  # the fast path runs the trace
    with txd.debug_mode():
        assert [int(v) for v in ds] == [1, 2, 3]
    assert [int(s) for s in seen] == [0, 1, 2]


def test_debug_mode_as_a_pipeline_option_and_its_scope():
    o = txd.Options()
    o.debug_mode = True
    calls = []
    ds = txd.Dataset.range(2).map(lambda x: (calls.append(1), x)[1]).with_options(o)
    calls.clear()
    assert [int(v) for v in ds] == [0, 1] and len(calls) == 2
    with txd.debug_mode():
        pass
    calls.clear()
    list(txd.Dataset.range(2).map(lambda x: (calls.append(1), x)[1]))
    assert calls == [1]  # traced once at construction, not run per element: debug mode ended with its block


def test_from_generator_works_in_debug_mode():
    with txd.debug_mode():
        ds = txd.Dataset.from_generator(lambda: ((i, np.float32(i) / 2) for i in range(4)),
                                        output_signature=(tx.TensorSpec([], tx.int64), tx.TensorSpec([], tx.float32)))
        assert [(int(a), float(b)) for a, b in ds.map(lambda a, b: (a * 2, b))] == [(0, 0.0), (2, 0.5), (4, 1.0),
                                                                                     (6, 1.5)]


def test_debug_mode_names_an_element_whose_structure_differs():
    def f(x):
        if tx.executing_eagerly() and int(x) == 2:
            return x, x
        return x
    ds = txd.Dataset.range(4).map(f)
    with txd.debug_mode():
        it = iter(ds)
        assert [int(next(it)), int(next(it))] == [0, 1]
        with pytest.raises(tx.errors.InvalidArgumentError, match="map function on element 2 returned"):
            next(it)
        assert int(next(it)) == 3  # the iterator survives


def _file_sources(tmp_path):
    """Pipelines over each file source, its files written under ``tmp_path``."""
    (tmp_path / "a.txt").write_bytes(b"one\ntwo lines\n\nthree\r\n")
    (tmp_path / "b.txt").write_bytes(b"last line without a newline")
    (tmp_path / "c.csv").write_bytes(b'id,score,name\n1,0.5,"ann, jr"\n2,,bob\n3,2.5,"say ""hi"""\n')
    rows = np.arange(60, dtype=np.float32).reshape(20, 3)
    np.save(tmp_path / "x.npy", rows)
    safetensors = pytest.importorskip("safetensors.numpy")
    safetensors.save_file({"x": rows, "y": np.arange(20, dtype=np.int64)}, str(tmp_path / "d.safetensors"))
    text = [str(tmp_path / "a.txt"), str(tmp_path / "b.txt")]
    return {
        "text_lines": lambda: txd.TextLineDataset(text).map(lambda s: (s, tx.strings.length(s))).batch(2),
        "csv": lambda: txd.experimental.CsvDataset(str(tmp_path / "c.csv"), [tx.int64, [1.0], ["?"]],
                                                   header=True).batch(2),
        "make_csv": lambda: txd.experimental.make_csv_dataset(str(tmp_path / "c.csv"), 2, num_epochs=1,
                                                              shuffle=False, column_defaults=[0, 0.0, ""]),
        "npy": lambda: txd.experimental.from_npy(str(tmp_path / "x.npy")).map(lambda x: x * 2).batch(3),
        "safetensors": lambda: txd.experimental.from_safetensors(str(tmp_path / "d.safetensors")).global_shuffle(
            seed=3).batch(4),
    }


@pytest.mark.parametrize("name", ["text_lines", "csv", "make_csv", "npy", "safetensors"])
def test_debug_mode_yields_the_fast_path_elements_of_file_sources(name, tmp_path):
    build = _file_sources(tmp_path)[name]
    fast = [flat_values(tx.nest, e) for e in build()]
    with txd.debug_mode():
        debug = [flat_values(tx.nest, e) for e in build()]
    assert len(fast) >= 2 and len(debug) == len(fast)
    assert_same_elements(debug, fast)
