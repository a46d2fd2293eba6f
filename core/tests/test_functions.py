"""Functions built and called from Python through the C API: results and static shapes of calls,
gradients (first and second order, through nested calls and variables passed by handle),
libraries travelling with GraphDefs, and the error paths. TensorFlow comparisons are in
test_functions_tf.py."""

import numpy as np
import pytest

import tensorflux as tx
from tensorflux._src import dtypes as _dtypes
from tensorflux._src import functions
from tensorflux._src.generated import gen_ops
from tensorflux.proto import function_pb2, graph_pb2

RNG = np.random.default_rng(3)


def _mul_add(dtype=tx.float32, name="mul_add"):
    """f(x, y) = x * y + x."""
    with tx.Graph().as_default() as g:
        x = tx.placeholder(dtype, name="x")
        y = tx.placeholder(dtype, name="y")
        z = x * y + x
    return functions.graph_to_function(g, name, [x, y], [z], output_names=["z"])


def test_call_runs_the_function_with_static_shapes():
    f = _mul_add()
    assert [a.name for a in f.definition.signature.input_arg] == ["x", "y"]
    with tx.Graph().as_default() as g:
        a = tx.placeholder(tx.float32, [2, 3], name="a")
        b = tx.placeholder(tx.float32, [None], name="b")
        (z,) = functions.call(f, [a, b], name="call")
        assert z.shape.as_list() == [2, 3] and z.op.type == "PartitionedCall"
        assert [fn.name for fn in functions.graph_functions(g)] == ["mul_add"]
        av, bv = RNG.standard_normal((2, 3)).astype(np.float32), RNG.standard_normal(3).astype(np.float32)
        with tx.Session() as sess:
            np.testing.assert_allclose(sess.run(z, {a: av, b: bv}), av * bv + av, rtol=1e-6)


def test_function_object_as_attr_and_stateful_call():
    f = _mul_add(tx.float64)
    with tx.Graph().as_default():
        a = tx.constant([1.0, 2.0], tx.float64)
        (z,) = gen_ops.stateful_partitioned_call([a, a], Tout=[tx.float64], f=f)
        assert z.op.type == "StatefulPartitionedCall"
        with tx.Session() as sess:
            np.testing.assert_array_equal(sess.run(z), [2.0, 6.0])


def test_gradients_first_and_second_order():
    f = _mul_add(tx.float64)
    with tx.Graph().as_default():
        x = tx.placeholder(tx.float64, [3], name="x")
        y = tx.placeholder(tx.float64, [3], name="y")
        (z,) = functions.call(f, [x, y])
        loss = tx.reduce_sum(z * z)  # d/dx = 2 z (y + 1), d/dy = 2 z x
        dx, dy = tx.gradients(loss, [x, y])
        (dxdy,) = tx.gradients(tx.reduce_sum(dx), [y])  # d/dy sum(2 (xy + x)(y + 1)) = 2x(2y + 2)
        xv, yv = RNG.standard_normal(3), RNG.standard_normal(3)
        with tx.Session() as sess:
            got_dx, got_dy, got_dxdy = sess.run([dx, dy, dxdy], {x: xv, y: yv})
    zv = xv * yv + xv
    np.testing.assert_allclose(got_dx, 2 * zv * (yv + 1), rtol=1e-12)
    np.testing.assert_allclose(got_dy, 2 * zv * xv, rtol=1e-12)
    np.testing.assert_allclose(got_dxdy, 4 * xv * (yv + 1), rtol=1e-12)


def test_nested_functions_and_gradients():
    inner = _mul_add(tx.float64, "inner")
    with tx.Graph().as_default() as g:
        a = tx.placeholder(tx.float64, name="a")
        (r,) = functions.call(inner, [a, a])  # a^2 + a
        out = tx.math.exp(r)
    outer = functions.graph_to_function(g, "outer", [a], [out])
    with tx.Graph().as_default():
        x = tx.placeholder(tx.float64, [2], name="x")
        (y,) = functions.call(outer, [x])
        (dx,) = tx.gradients(y, [x])
        xv = np.array([0.3, -0.7])
        with tx.Session() as sess:
            got_y, got_dx = sess.run([y, dx], {x: xv})
    np.testing.assert_allclose(got_y, np.exp(xv * xv + xv), rtol=1e-12)
    np.testing.assert_allclose(got_dx, np.exp(xv * xv + xv) * (2 * xv + 1), rtol=1e-12)


def test_variables_passed_by_handle_update_and_differentiate():
    with tx.Graph().as_default() as body:
        h = tx.placeholder(_dtypes.resource, name="h")
        d = tx.placeholder(tx.float64, name="d")
        bump = gen_ops.assign_add_variable_op(h, d)
        with tx.control_dependencies([bump]):
            w = gen_ops.read_variable_op(h, dtype=tx.float64)
        out = w * d
    f = functions.graph_to_function(body, "bump", [h, d], [out], control_outputs=[bump])
    assert f.definition.signature.is_stateful
    with tx.Graph().as_default():
        v = tx.Variable(np.array([1.0, 2.0]), name="v")
        delta = tx.placeholder(tx.float64, [2], name="delta")
        (y,) = functions.call(f, [v.handle, delta])
        assert y.op.type == "StatefulPartitionedCall" and y.shape.as_list() == [2]
        dv, dd = tx.gradients(y, [v.handle, delta])
        with tx.Session() as sess:
            sess.run(v.initializer)
            got_y, got_dv, got_dd = sess.run([y, dv, dd], {delta: [0.5, 1.0]})
            # w = v + delta after the update; y = w * delta. The gradient function recomputes the
            # read, not the update: it sees the variable as the call left it (Note [Function
            # gradients]), and the variable is updated once.
            np.testing.assert_allclose(got_y, [0.75, 3.0])
            np.testing.assert_allclose(got_dv, [0.5, 1.0])
            np.testing.assert_allclose(got_dd, [1.5, 3.0])
            np.testing.assert_allclose(sess.run(v.value()), [1.5, 3.0])


def test_library_travels_with_the_graph_def():
    f = _mul_add()
    with tx.Graph().as_default() as g:
        a = tx.placeholder(tx.float32, name="a")
        (z,) = functions.call(f, [a, a], name="call")
    graph_def = g.as_graph_def()
    assert [fn.signature.name for fn in graph_def.library.function] == ["mul_add"]
    with tx.Graph().as_default() as h:
        a2, z2 = tx.import_graph_def(graph_def, return_elements=["a:0", "call:0"], name="")
        assert [fn.name for fn in functions.graph_functions(h)] == ["mul_add"]
        with tx.Session() as sess:
            np.testing.assert_allclose(sess.run(z2, {a2: np.float32(3)}), 12.0)
    again = functions.Function.from_function_def(f.definition)
    assert again.to_function_def_bytes() == f.to_function_def_bytes()


def test_call_errors_name_the_node_and_function():
    f = _mul_add()
    with tx.Graph().as_default():
        a = tx.placeholder(tx.float32, [3], name="a")
        i = tx.placeholder(tx.int32, [3], name="i")
        with pytest.raises(tx.errors.NotFoundError,
                           match=r"\[c0\] function 'nope' is not in the graph's function library"):
            gen_ops.partitioned_call([a], Tout=[tx.float32], f="nope", name="c0")
        with pytest.raises(tx.errors.InvalidArgumentError, match=r"\[c1\] function 'mul_add' takes 2 arguments"):
            gen_ops.partitioned_call([a], Tout=[tx.float32], f=f, name="c1")
        with pytest.raises(tx.errors.InvalidArgumentError, match="argument 1 of function 'mul_add' has type float but"):
            gen_ops.partitioned_call([a, i], Tout=[tx.float32], f=f, name="c2")
        b = tx.placeholder(tx.float32, name="b")
        (z,) = gen_ops.partitioned_call([a, b], Tout=[tx.float32], f=f, name="c3")
        with tx.Session() as sess:
            with pytest.raises(tx.errors.InvalidArgumentError, match=r"\[c3\] in function 'mul_add': \[mul\]") as info:
                sess.run(z, {a: np.ones(3, np.float32), b: np.ones(2, np.float32)})
            assert info.value.node_name == "c3"


def _recursive_function_def():
    fdef = function_pb2.FunctionDef()
    fdef.signature.name = "loop"
    fdef.signature.input_arg.add(name="x", type=tx.float32.as_datatype_enum)
    fdef.signature.output_arg.add(name="y", type=tx.float32.as_datatype_enum)
    node = fdef.node_def.add(name="again", op="PartitionedCall", input=["x"])
    node.attr["f"].func.name = "loop"
    node.attr["Tin"].list.type.append(tx.float32.as_datatype_enum)
    node.attr["Tout"].list.type.append(tx.float32.as_datatype_enum)
    fdef.ret["y"] = "again:output:0"
    return fdef


def test_recursion_is_an_error():
    f = functions.Function.from_function_def(_recursive_function_def())
    with tx.Graph().as_default():
        a = tx.placeholder(tx.float32, name="a")
        with pytest.raises(tx.errors.InvalidArgumentError, match=r"function 'loop' calls itself recursively"):
            functions.call(f, [a], name="call")


def test_conflicting_library_on_import_changes_nothing():
    with tx.Graph().as_default() as g:
        _mul_add().add_to_graph()
        a = tx.placeholder(tx.float32, name="a")
        before = g.as_graph_def().SerializeToString()
        other = graph_pb2.GraphDef()
        fdef = other.library.function.add()
        fdef.CopyFrom(_mul_add().definition)
        fdef.node_def[0].op = "Sub"  # same name, different body
        other.library.function.add().CopyFrom(_recursive_function_def())
        other.node.add(name="b", op="Placeholder").attr["dtype"].type = tx.float32.as_datatype_enum
        with pytest.raises(tx.errors.InvalidArgumentError,
                           match="cannot add function 'mul_add': the library already has a different function"):
            tx.import_graph_def(other, name="imp")
        assert g.as_graph_def().SerializeToString() == before
        assert [fn.name for fn in functions.graph_functions(g)] == ["mul_add"]
        del a


def test_function_def_errors():
    with pytest.raises(tx.errors.DataLossError, match="malformed FunctionDef"):
        functions.Function.from_function_def(b"\x0a\x05\x0a")
    bad = _mul_add().definition
    bad.ret["z"] = "nowhere:z:0"
    with pytest.raises(tx.errors.InvalidArgumentError, match="ret 'z' 'nowhere:z:0' names no input argument or body"):
        functions.Function.from_function_def(bad)
    with tx.Graph().as_default() as g:
        x = tx.placeholder(tx.float32, name="x")
        y = tx.placeholder(tx.float32, name="y")
        with pytest.raises(tx.errors.InvalidArgumentError, match=r"\[y\] Placeholder is reached"):
            functions.graph_to_function(g, "f", [x], [x * y])
