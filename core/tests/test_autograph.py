"""AutoGraph in tx.function: Python control flow on tensors becomes If/While ops (compared with
the same function run eagerly), Python control flow on Python values stays Python, and errors
name the variable and the user's source line."""

import re
import traceback

import numpy as np
import pytest

import tensorflux as tx

import autograph_cases as cases

pytestmark = pytest.mark.eager


def _graph_op_types(graph):
    """Op types of ``graph`` and of the functions in its library (branches, loop bodies)."""
    types = {op.type for op in graph.get_operations()}
    for fdef in graph.as_graph_def().library.function:
        types |= {n.op for n in fdef.node_def}
    return {t.replace("Stateless", "") for t in types}


def _values(result):
    return [np.asarray(r) for r in _flatten(result)]


def _flatten(x):
    if isinstance(x, (list, tuple)):
        return [v for s in x for v in _flatten(s)]
    return [x]


@pytest.mark.parametrize("fn,makers,ops", cases.CASES, ids=[c[0].__name__ + "-%d" % i for i, c in
                                                              enumerate(cases.CASES)])
def test_matches_eager_and_builds_graph_control_flow(fn, makers, ops):
    args = [m(tx) for m in makers]
    want = fn(*args)  # plain Python on eager tensors
    f = tx.function(fn)
    got = f(*args)
    for g, w in zip(_values(got), _values(want)):
        np.testing.assert_allclose(g, w, rtol=1e-6)
    cf = f.get_concrete_function(*args)
    types = _graph_op_types(cf.graph)
    assert ops <= types, (ops, sorted(types))
    if not ops:
        assert not {"If", "While"} & types  # Python conditions and iterables stay Python


def test_tensor_loop_is_not_unrolled():
    f = tx.function(cases.while_tensor)
    cf = f.get_concrete_function(tx.TensorSpec([], tx.int32))
    whiles = [op for op in cf.graph.get_operations() if op.type in ("While", "StatelessWhile")]
    assert len(whiles) == 1
    for n in (0, 1, 17):
        i, total = f(tx.constant(n))
        assert int(i) == n and int(total) == sum(k * k for k in range(n))


def test_python_loop_is_unrolled():
    f = tx.function(cases.python_for_list)
    cf = f.get_concrete_function(tx.constant(1.0))
    assert sum(op.type == "Mul" for op in cf.graph.get_operations()) == 3


def test_autograph_false_keeps_python_semantics():
    f = tx.function(cases.if_else_tensor, autograph=False)
    with pytest.raises(TypeError, match="as a Python bool"):
        f(tx.constant(1.0))
    g = tx.function(cases.python_for_list, autograph=False)
    assert float(g(tx.constant(1.0))) == 6.0


def test_dtype_change_in_loop_names_variable_and_line():
    def f(n):
        i = tx.constant(0)
        while i < n:
            i = tx.cast(i, tx.float32) + 1.5
        return i

    line = f.__code__.co_firstlineno + 2
    with pytest.raises(TypeError) as info:
        tx.function(f)(tx.constant(3))
    msg = str(info.value)
    assert "'i' has dtype int32 before the loop, but dtype float32 after one iteration" in msg
    assert "%s, line %d" % (__file__, line) in msg


def test_shape_change_in_loop():
    def f(x):
        while tx.reduce_sum(x) < 100.0:
            x = tx.concat([x, x], 0)
        return x

    with pytest.raises(ValueError, match=r"'x' has shape .*1.* before the loop, but shape .*2.* after one iteration"):
        tx.function(f)(tx.constant([3.0]))


def test_undefined_in_one_branch():
    def f(x):
        if x > 0:
            y = x
        return y

    line = f.__code__.co_firstlineno + 1
    with pytest.raises(ValueError, match="'y' must also be initialized in the else branch") as info:
        tx.function(f)(tx.constant(1.0))
    assert "%s, line %d" % (__file__, line) in str(info.value)

    def g(x):
        if x > 0:
            pass
        else:
            y = x
        return y

    with pytest.raises(ValueError, match="'y' must also be initialized in the main branch"):
        tx.function(g)(tx.constant(1.0))


def test_undefined_before_loop():
    def f(x):
        while x > 0:
            z = x
            x = x - 1.0
        return z

    with pytest.raises(ValueError, match="'z' must be defined before the loop"):
        tx.function(f)(tx.constant(3.0))


def test_different_dtypes_in_branches():
    def f(x):
        if x > 0:
            y = tx.constant(1)
        else:
            y = tx.constant(2.5)
        return y

    with pytest.raises(TypeError, match="'y' has dtype int32 in the main branch, but dtype float32 in the else branch"):
        tx.function(f)(tx.constant(1.0))


def test_return_inside_tensor_loop_is_refused():
    def f(xs):
        for v in xs:
            if v > 2.0:
                return v
        return -1.0

    with pytest.raises(NotImplementedError, match="a return statement cannot be placed inside this TensorFlow loop"):
        tx.function(f)(tx.constant([1.0, 3.0]))


def test_python_loop_condition_turning_tensor_is_refused():
    def f(x):
        while True:
            x = x - 1.0
            if x < 0:
                break
        return x

    with pytest.raises(NotImplementedError, match="started as non-Tensor, then changed to Tensor"):
        tx.function(f)(tx.constant(2.5))


def test_stateful_ops_in_converted_branches_and_loops():
    v = tx.Variable(0.0)

    @tx.function
    def f(x):
        if x > 0:  # a branch with no outputs: the If op still runs (stateful)
            v.assign_add(x)
        for _ in tx.range(2):
            v.assign_add(1.0)
        return v.read_value()

    assert float(f(tx.constant(2.0))) == 4.0
    assert float(f(tx.constant(-1.0))) == 6.0


def test_error_traceback_shows_user_source_line():
    def f(x):
        if x > 0:
            y = x + 1.0
            raise RuntimeError("boom")
        else:
            y = x
        return y

    raise_line = f.__code__.co_firstlineno + 3
    with pytest.raises(RuntimeError, match="boom") as info:
        tx.function(f)(tx.constant(1.0))
    frames = traceback.extract_tb(info.value.__traceback__)
    assert any(fr.filename == __file__ and fr.lineno == raise_line and "raise RuntimeError" in fr.line
               for fr in frames), frames
    notes = "\n".join(getattr(info.value, "__notes__", []))
    assert "in user code:" in notes and 'line %d' % raise_line in notes
    assert 'raise RuntimeError("boom")' in notes


def test_undefined_variable_use_is_clear():
    def f(x, flag):
        if flag:
            y = x
        return y * 2.0

    with pytest.raises(UnboundLocalError, match="'y' is used before it is assigned"):
        tx.function(f)(tx.constant(1.0), False)


def test_recursive_conversion_and_library_functions_untouched():
    f = tx.function(cases.called_helper)
    assert float(f(tx.constant(2.0))) == 7.0
    assert float(f(tx.constant(-2.0))) == -1.0
    assert tx.autograph.to_graph(cases._helper) is not cases._helper
    # np.maximum and tensorflux functions are called as they are.
    g = tx.function(lambda x: tx.maximum(x, np.float32(0.0)))
    assert float(g(tx.constant(-1.0))) == 0.0


def test_functions_passed_to_tx_while_loop_are_converted():
    def body(i, acc):
        if i % 2 == 0:
            acc = acc + i
        return i + 1, acc

    @tx.function
    def f(n):
        return tx.while_loop(lambda i, acc: i < n, body, [0, 0])[1]

    assert int(f(tx.constant(7))) == 0 + 2 + 4 + 6


def test_do_not_convert():
    @tx.autograph.do_not_convert
    def helper(x):
        if x > 0:
            return x
        return -x

    def f(x):
        return helper(x)

    with pytest.raises(TypeError, match="as a Python bool"):
        tx.function(f)(tx.constant(1.0))


def test_to_code_and_to_graph():
    code = tx.autograph.to_code(cases.while_break_continue)
    assert "ag__.while_stmt" in code and "ag__.if_stmt" in code and "    break" not in code
    converted = tx.autograph.to_graph(cases.if_else_tensor)
    assert tx.autograph.to_graph(converted) is converted
    assert float(converted(tx.constant(-4.0))) == 4.0  # eagerly: Python control flow
    with tx.Graph().as_default():
        out = converted(tx.placeholder(tx.float32, []))
        assert out.op.type in ("If", "StatelessIf")
    with pytest.raises(tx.autograph.ConversionError):
        tx.autograph.to_graph(len)


def test_set_verbosity_logs_conversions(caplog):
    def f(x):
        return x + 1.0

    old = tx.autograph.get_verbosity()
    tx.autograph.set_verbosity(3)
    try:
        with caplog.at_level("INFO", logger="tensorflux.autograph"):
            tx.function(f)(tx.constant(1.0))
    finally:
        tx.autograph.set_verbosity(old)
    assert any("converted" in r.getMessage() for r in caplog.records)
    assert any("Converted code of" in r.getMessage() for r in caplog.records)


def test_methods_and_closures_are_converted():
    class Model:
        def __init__(self):
            self.scale = 3.0

        @tx.function
        def __call__(self, x):
            if x > 0:
                x = x * self.scale
            return x

    m = Model()
    assert float(m(tx.constant(2.0))) == 6.0
    assert float(m(tx.constant(-2.0))) == -2.0
    limit = tx.constant(10.0)

    def grow(x):
        while x < limit:
            x = x * 2.0
        return x

    assert float(tx.function(grow)(tx.constant(1.5))) == 12.0


def test_print_uses_tx_print_when_present(capsys):
    if not hasattr(tx, "print"):
        pytest.skip("tx.print is not available")

    def f(x):
        print("value:", x)
        return x + 1.0

    out = tx.function(f)(tx.constant(2.5))
    assert float(out) == 3.5
    assert "2.5" in capsys.readouterr().out


def test_print_of_tensors_dispatches_to_tx_print(monkeypatch):
    import sys

    calls = []

    def fake_print(*args, **kwargs):
        calls.append((args, kwargs))
        return tx.no_op()

    monkeypatch.setattr(tx, "print", fake_print, raising=False)

    def f(x):
        print("x is", x, sep="=")
        return x + 1.0

    assert float(tx.function(f)(tx.constant(1.0))) == 2.0
    assert len(calls) == 1
    args, kwargs = calls[0]
    assert args[0] == "x is" and isinstance(args[1], tx.Tensor)
    assert kwargs == {"sep": "=", "output_stream": sys.stdout}


def test_autograph_trace_prints_at_trace_time(capsys):
    def f(x):
        tx.autograph.trace("tracing with", x.shape)
        return x * 2.0

    g = tx.function(f)
    g(tx.constant([1.0, 2.0]))
    g(tx.constant([3.0, 4.0]))
    assert capsys.readouterr().out.count("tracing with") == 1


def test_print_of_python_values_is_python_print(capsys):
    def f(x):
        print("tracing", 3)
        return x

    f_ = tx.function(f)
    f_(tx.constant(1.0))
    f_(tx.constant(2.0))
    assert capsys.readouterr().out.count("tracing 3") == 1  # at trace time only


def test_gradient_through_converted_loop():
    def f(x):
        y = x
        i = 0
        while i < 3:
            y = y * x
            i += 1
        return y

    x = tx.constant(2.0)
    with tx.GradientTape() as tape:
        tape.watch(x)
        y = tx.function(f)(x)
    assert float(y) == 16.0
    assert re.match(r"32(\.0*)?$", str(float(tape.gradient(y, x))))


def test_docs_examples_run(tmp_path):
    """Every python block of docs/autograph.md runs, from a file (AutoGraph needs the source)."""
    import pathlib
    import runpy

    doc = pathlib.Path(__file__).resolve().parents[2] / "docs" / "autograph.md"
    blocks = re.findall(r"```python\n(.*?)```", doc.read_text(), re.S)
    assert len(blocks) >= 3
    for i, block in enumerate(blocks):
        path = tmp_path / ("autograph_doc_%d.py" % i)
        path.write_text(block)
        runpy.run_path(str(path), run_name="autograph_doc_%d" % i)


def test_set_loop_options_shape_invariants_and_maximum_iterations():
    def grow(x):
        while tx.reduce_sum(x) < 100.0:
            tx.autograph.experimental.set_loop_options(shape_invariants=[(x, tx.TensorShape([None]))])
            x = tx.concat([x, x], 0)
        return x

    out = tx.function(grow)(tx.constant([3.0]))
    assert out.numpy().tolist() == [3.0] * 64

    def count(n):
        i = 0
        while i < n:
            tx.autograph.experimental.set_loop_options(maximum_iterations=4)
            i += 1
        return i

    assert int(tx.function(count)(tx.constant(10))) == 4
    assert "set_loop_options" not in tx.autograph.to_code(count).split("while_stmt")[0].split("def ag__loop_body")[1]
    tx.autograph.experimental.set_loop_options(maximum_iterations=3)  # outside converted loops: nothing


def test_for_over_tensor_of_unknown_length():
    f = tx.function(cases.for_over_tensor, input_signature=[tx.TensorSpec([None], tx.float32)])
    for n in (0, 1, 5):
        xs = np.arange(n, dtype=np.float32)
        assert float(f(tx.constant(xs))) == float(np.sum(xs * xs))


def test_gradient_through_converted_cond():
    def f(x):
        if tx.reduce_sum(x) > 0:
            y = x * x
        else:
            y = -3.0 * x
        return tx.reduce_sum(y)

    g = tx.function(f)
    for value, want in (([1.0, 2.0], [2.0, 4.0]), ([-1.0, -2.0], [-3.0, -3.0])):
        x = tx.constant(value)
        with tx.GradientTape() as tape:
            tape.watch(x)
            y = g(x)
        np.testing.assert_allclose(tape.gradient(y, x).numpy(), want)


def test_function_without_source_runs_unconverted_and_is_reported(caplog):
    namespace = {"tx": tx}
    exec("def no_source(x, flag):\n    if flag:\n        x = x + 1.0\n    return x\n", namespace)
    fn = namespace["no_source"]
    with pytest.raises(tx.autograph.ConversionError, match="could not convert"):
        tx.autograph.to_code(fn)
    old = tx.autograph.get_verbosity()
    tx.autograph.set_verbosity(1)
    try:
        with caplog.at_level("WARNING", logger="tensorflux.autograph"):
            assert float(tx.function(fn)(tx.constant(1.0), True)) == 2.0  # Python bool: fine unconverted
    finally:
        tx.autograph.set_verbosity(old)
    assert any("could not transform" in r.getMessage() for r in caplog.records)


def _count_up(n):
    """0 + 1 + ... + (n - 1) by a while loop on n (a tensor of tensorflux or TensorFlow)."""
    total, i = n * 0, n * 0
    while i < n:
        total += i
        i += 1
    return total


def test_lambdas_and_the_functions_they_call_are_converted_as_in_tensorflow():
    tf = pytest.importorskip("tensorflow")
    for T in (tx, tf):
        calls = T.function(lambda n: _count_up(n) + 1)
        pos = T.function(lambda x: x if x > 0 else -x)
        neg = T.function(lambda y: -y if y > 0 else y)
        scale = lambda k: T.function(lambda x: x * k if x > 0 else x)  # noqa: E731
        wide = T.function(lambda x,
                          y=3: x + y if x > y else
                          _count_up(x))
        got = [int(calls(T.constant(5))), int(pos(T.constant(-2))), int(neg(T.constant(-2))),
               int(scale(3)(T.constant(4))), int(wide(T.constant(2))), int(wide(T.constant(9)))]
        assert got == [11, 2, -2, 12, 1, 12], T.__name__
    # Two lambdas of one line with the same parameters: TensorFlow cannot tell them apart and runs
    # them unconverted (an error on a tensor condition); their source positions tell them apart here.
    pos, neg = tx.function(lambda x: x if x > 0 else -x), tx.function(lambda x: -x if x > 0 else x)
    assert [int(pos(tx.constant(-2))), int(neg(tx.constant(-2)))] == [2, -2]
    assert "ag__.if_exp(x > 0" in tx.autograph.to_code(lambda x: x if x > 0 else -x)
    graph = tx.function(lambda n: _count_up(n)).get_concrete_function(tx.TensorSpec([], tx.int32)).graph
    assert {op.type for op in graph.get_operations()} & {"While", "StatelessWhile"}


def test_a_lambda_without_source_runs_unconverted():
    fn = eval("lambda x, flag: x + 1.0 if flag else x")
    with pytest.raises(tx.autograph.ConversionError, match="source is not available"):
        tx.autograph.to_code(fn)
    assert float(tx.function(fn)(tx.constant(1.0), True)) == 2.0  # Python bool: fine unconverted


class _Squares:
    """A graph iterable (Note [Graph iterables]): (i, i*i) for i < n, counted by a variable."""

    def __init__(self, n):
        self.n, self.i = n, tx.Variable(0, dtype=tx.int64)

    def __iter__(self):
        return iter([(i, i * i) for i in range(self.n)])

    def __tx_graph_iter__(self):
        self.i.assign(0)
        return self

    def next_or_end(self):
        i = self.i.assign_add(1) - 1
        return i < self.n, (i, i * i)


def test_graph_iterable_is_one_while_loop_with_break_and_structured_elements():
    def f(squares, stop):
        total = tx.constant(0, tx.int64)
        for i, sq in squares:
            if sq > stop:
                break
            total += sq
        return total

    g = tx.function(f)
    squares = _Squares(10)
    assert [int(g(squares, tx.constant(v, tx.int64))) for v in (-1, 0, 30, 1000)] == [0, 0, 55, 285]
    ops = [op.type for op in g.get_concrete_function(squares, tx.constant(0, tx.int64)).graph.get_operations()]
    assert ops.count("While") + ops.count("StatelessWhile") == 1
    assert int(f(squares, tx.constant(30, tx.int64))) == 55  # eagerly: Python iteration


def test_a_lambda_whose_file_changed_on_disk_is_not_converted_from_the_new_text(tmp_path):
    import importlib.util
    import linecache

    path = tmp_path / "lambda_module.py"
    path.write_text("f = lambda x: x if x > 0 else -x\n")
    spec = importlib.util.spec_from_file_location("lambda_module", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    path.write_text("f = lambda y, z: y if y > 0 else z\n")  # same line, other parameters
    linecache.checkcache(str(path))
    with pytest.raises(tx.autograph.ConversionError, match="could not be told apart"):
        tx.autograph.to_code(module.f)
