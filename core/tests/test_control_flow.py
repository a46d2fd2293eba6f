"""tx.cond, tx.switch_case and tx.case: graph mode (If/Case ops over traced branch functions),
eager mode (Python control flow) and inside tx.function; structures, captures, stateful branches,
nesting and the construction and run-time errors."""

import collections

import numpy as np
import pytest

import tensorflux as tx

Pair = collections.namedtuple("Pair", "a b")


def _types(graph):
    return [op.type for op in graph.get_operations()]


def test_cond_runs_the_chosen_branch(sess):
    p = tx.placeholder(tx.bool, shape=[])
    x = tx.constant(np.array([1.0, 2.0, 3.0], np.float32))
    r = tx.cond(p, lambda: x * 2.0, lambda: x - 1.0)
    assert r.op.type == "StatelessIf" and r.shape == tx.TensorShape([3])
    np.testing.assert_array_equal(sess.run(r, {p: True}), [2.0, 4.0, 6.0])
    np.testing.assert_array_equal(sess.run(r, {p: False}), [0.0, 1.0, 2.0])


def test_cond_keeps_nested_structures(sess):
    p = tx.placeholder(tx.bool, shape=[])
    x = tx.constant(2.0)
    r = tx.cond(p, lambda: (Pair(x, [x + 1.0]), {"k": tx.constant(1), "j": x * x}),
                lambda: (Pair(x * 0.0, [x]), {"k": tx.constant(7), "j": -x}))
    assert isinstance(r, tuple) and isinstance(r[0], Pair) and isinstance(r[0].b, list)
    assert sorted(r[1]) == ["j", "k"]
    t = sess.run(r, {p: True})
    f = sess.run(r, {p: False})
    assert (t[0].a, t[0].b[0], t[1]["k"], t[1]["j"]) == (2.0, 3.0, 1, 4.0)
    assert (f[0].a, f[0].b[0], f[1]["k"], f[1]["j"]) == (0.0, 2.0, 7, -2.0)


def test_cond_captures_tensors_used_by_one_branch_only(sess):
    p = tx.placeholder(tx.bool, shape=[])
    a = tx.placeholder(tx.float32, shape=[2])
    b = tx.placeholder(tx.float32, shape=[2])
    r = tx.cond(p, lambda: a + 1.0, lambda: b * 3.0)
    assert len(r.op.inputs) == 3  # pred, a, b: each branch function takes both captures
    feeds = {a: [1.0, 2.0], b: [10.0, 20.0]}
    np.testing.assert_array_equal(sess.run(r, {p: True, **feeds}), [2.0, 3.0])
    np.testing.assert_array_equal(sess.run(r, {p: False, **feeds}), [30.0, 60.0])


def test_cond_returns_python_numbers_and_outer_tensors(sess):
    p = tx.placeholder(tx.bool, shape=[])
    x = tx.constant([4.0, 5.0])
    r = tx.cond(p, lambda: (x, 1.5), lambda: (x * 0.0, 2.5))
    assert sess.run(r, {p: True})[1] == 1.5
    np.testing.assert_array_equal(sess.run(r, {p: True})[0], [4.0, 5.0])
    assert sess.run(r, {p: False})[1] == 2.5


def test_cond_output_shape_is_most_specific_compatible():
    p = tx.placeholder(tx.bool, shape=[])
    same = tx.cond(p, lambda: tx.zeros([2, 3]), lambda: tx.ones([2, 3]))
    dims = tx.cond(p, lambda: tx.zeros([2]), lambda: tx.zeros([3]))
    part = tx.cond(p, lambda: tx.zeros([4, 2]), lambda: tx.zeros([4, 5]))
    ranks = tx.cond(p, lambda: tx.zeros([2]), lambda: tx.zeros([3, 1]))
    assert same.shape.as_list() == [2, 3]
    assert dims.shape.as_list() == [None]
    assert part.shape.as_list() == [4, None]
    assert ranks.shape.rank is None
    with tx.Session() as s:
        assert s.run(ranks, {p: False}).shape == (3, 1)
        assert s.run(dims, {p: False}).shape == (3,)


def test_cond_with_stateful_branch_is_an_if_and_updates_only_when_taken(sess):
    v = tx.Variable(0.0)
    p = tx.placeholder(tx.bool, shape=[])
    r = tx.cond(p, lambda: v.assign_add(1.0), lambda: tx.identity(v))
    assert r.op.type == "If"
    sess.run(v.initializer)
    sess.run(r, {p: False})
    sess.run(r, {p: True})
    sess.run(r, {p: True})
    assert sess.run(r, {p: False}) == 2.0


def test_cond_nested_and_capture_through_two_levels(sess):
    p = tx.placeholder(tx.bool, shape=[])
    q = tx.placeholder(tx.bool, shape=[])
    x = tx.constant(10.0)
    y = tx.constant(1.0)
    r = tx.cond(p, lambda: tx.cond(q, lambda: x + y, lambda: x - y), lambda: y)
    for pv, qv, want in ((True, True, 11.0), (True, False, 9.0), (False, True, 1.0)):
        assert sess.run(r, {p: pv, q: qv}) == want


def test_cond_branch_control_dependency_on_outer_op(sess):
    v = tx.Variable(1.0)
    p = tx.placeholder(tx.bool, shape=[])
    upd = v.assign(5.0, read_value=False)

    def true_fn():
        with tx.control_dependencies([upd]):
            return v.read_value() + 0.0

    r = tx.cond(p, true_fn, lambda: tx.constant(0.0))
    assert upd in r.op.control_inputs
    sess.run(v.initializer)
    assert sess.run(r, {p: True}) == 5.0


def test_cond_predicate_of_one_element_is_squeezed(sess):
    p = tx.placeholder(tx.bool, shape=[1, 1])
    r = tx.cond(p, lambda: tx.constant(1), lambda: tx.constant(2))
    assert sess.run(r, {p: [[False]]}) == 2


def test_cond_errors_at_construction(sess):
    p = tx.placeholder(tx.bool, shape=[])
    with pytest.raises(TypeError, match=r"\[cond\] true_fn and false_fn .*different structures"):
        tx.cond(p, lambda: (tx.constant(1.0), tx.constant(2.0)), lambda: tx.constant(1.0))
    with pytest.raises(TypeError, match=r"different structures"):
        tx.cond(p, lambda: [tx.constant(1.0)], lambda: (tx.constant(1.0),))
    with pytest.raises(TypeError, match=r"\[cond_2\] .*value 0 has type float32 in true_fn but int32 in false_fn"):
        tx.cond(p, lambda: tx.constant(1.0), lambda: tx.constant(1))
    with pytest.raises(TypeError, match="pred must be a bool tensor, got a int32 tensor"):
        tx.cond(tx.constant(1), lambda: 1.0, lambda: 2.0)
    with pytest.raises(ValueError, match=r"pred must be a scalar, got shape \(2,\)"):
        tx.cond(tx.constant([True, False]), lambda: 1.0, lambda: 2.0)
    with pytest.raises(TypeError, match="must not be a Python bool"):
        tx.cond(True, lambda: 1.0, lambda: 2.0)
    with pytest.raises(TypeError, match="'true_fn' argument required"):
        tx.cond(p, false_fn=lambda: 1.0)
    with pytest.raises(TypeError, match="'false_fn' must be callable"):
        tx.cond(p, lambda: 1.0, 2.0)
    # The graph and the session still work.
    r = tx.cond(p, lambda: tx.constant(3.0), lambda: tx.constant(4.0))
    assert sess.run(r, {p: True}) == 3.0


def test_cond_non_scalar_predicate_of_unknown_shape_fails_at_run_time(sess):
    p = tx.placeholder(tx.bool)
    r = tx.cond(p, lambda: tx.constant(1), lambda: tx.constant(2))
    with pytest.raises(tx.errors.InvalidArgumentError, match=r"cond/pred_must_be_scalar") as info:
        sess.run(r, {p: [True, True]})
    assert info.value.node_name.startswith("cond/")
    assert sess.run(r, {p: True}) == 1


def test_cond_error_in_a_branch_at_run_time_names_the_node(sess):
    p = tx.placeholder(tx.bool, shape=[])
    x = tx.placeholder(tx.float32, shape=[None])
    r = tx.cond(p, lambda: tx.reshape(x, [2, 2]), lambda: tx.zeros([2, 2]))
    with pytest.raises(tx.errors.InvalidArgumentError, match="Reshape"):
        sess.run(r, {p: True, x: [1.0, 2.0, 3.0]})
    np.testing.assert_array_equal(sess.run(r, {p: True, x: [1.0, 2.0, 3.0, 4.0]}), [[1, 2], [3, 4]])


def test_switch_case_forms_default_and_out_of_range(sess):
    i = tx.placeholder(tx.int32, shape=[])
    fns = [lambda: tx.constant(10), lambda: tx.constant(11), lambda: tx.constant(12)]
    r_list = tx.switch_case(i, fns)
    r_dict = tx.switch_case(i, {1: fns[1], 0: fns[0], 2: fns[2]})
    r_pairs = tx.switch_case(i, [(2, fns[2]), (0, fns[0]), (1, fns[1])], default=lambda: tx.constant(-1))
    assert r_list.op.type == "StatelessCase"
    for k, want, want_default in ((0, 10, 10), (1, 11, 11), (2, 12, 12), (3, 12, -1), (-4, 12, -1)):
        assert sess.run([r_list, r_dict, r_pairs], {i: k}) == [want, want, want_default]


def test_switch_case_int64_index_and_structures(sess):
    i = tx.placeholder(tx.int64, shape=[])
    x = tx.constant([1.0, 2.0])
    r = tx.switch_case(i, [lambda: {"v": x, "n": tx.constant(0)}, lambda: {"v": x * 5.0, "n": tx.constant(1)}])
    got = sess.run(r, {i: 1})
    np.testing.assert_array_equal(got["v"], [5.0, 10.0])
    assert got["n"] == 1
    assert sess.run(r, {i: 2**40})["n"] == 1  # out of range: the last branch
    assert sess.run(r, {i: -(2**40)})["n"] == 1
    u = tx.placeholder(tx.uint8, shape=[])
    small = tx.switch_case(u, [lambda: tx.constant(0), lambda: tx.constant(1), lambda: tx.constant(2)])
    assert [sess.run(small, {u: k}) for k in (0, 1, 200)] == [0, 1, 2]


def test_switch_case_errors(sess):
    i = tx.placeholder(tx.int32, shape=[])
    with pytest.raises(ValueError, match=r"contiguous range of \[0 to 2\) but found \{0,2\}"):
        tx.switch_case(i, {0: lambda: 1, 2: lambda: 2})
    with pytest.raises(TypeError, match="integer tensor"):
        tx.switch_case(tx.constant(1.0), [lambda: 1])
    with pytest.raises(ValueError, match=r"branch_index must be a scalar, got shape \(2,\)"):
        tx.switch_case(tx.constant([0, 1]), [lambda: 1])
    with pytest.raises(TypeError, match=r"branches\[0\] and branches\[2\] arguments to tx.switch_case"):
        tx.switch_case(i, [lambda: tx.constant(1), lambda: tx.constant(2), lambda: tx.constant(2.0)])
    with pytest.raises(ValueError, match="at least one"):
        tx.switch_case(i, [])
    dyn = tx.placeholder(tx.int32)
    r = tx.switch_case(dyn, [lambda: tx.constant(1), lambda: tx.constant(2)])
    with pytest.raises(tx.errors.InvalidArgumentError, match="branch_index must be a scalar"):
        sess.run(r, {dyn: [0, 1]})
    assert sess.run(r, {dyn: 0}) == 1


def test_case_first_true_predicate_wins_with_default(sess):
    x = tx.placeholder(tx.int32, shape=[])
    r = tx.case([(x < 0, lambda: tx.constant(-1)), (x < 10, lambda: tx.constant(1)),
                 (x < 100, lambda: tx.constant(2))], default=lambda: tx.constant(3))
    assert [sess.run(r, {x: v}) for v in (-5, 5, 50, 500)] == [-1, 1, 2, 3]


def test_case_without_default_fails_when_no_predicate_holds(sess):
    x = tx.placeholder(tx.int32, shape=[])
    r = tx.case([(x < 0, lambda: tx.constant(-1)), (x > 0, lambda: tx.constant(1))])
    assert sess.run(r, {x: 3}) == 1 and sess.run(r, {x: -3}) == -1
    with pytest.raises(tx.errors.InvalidArgumentError, match=r"\[case/none_true\] assertion failed: \[0 0\]"):
        sess.run(r, {x: 0})
    assert sess.run(r, {x: 2}) == 1


def test_case_exclusive_checks_at_run_time(sess):
    x = tx.placeholder(tx.int32, shape=[])
    r = tx.case({x < 10: lambda: tx.constant(1), x > 5: lambda: tx.constant(2)}, default=lambda: tx.constant(0),
                exclusive=True)
    assert sess.run(r, {x: 3}) == 1 and sess.run(r, {x: 30}) == 2
    with pytest.raises(tx.errors.InvalidArgumentError,
                       match=r"\[case/more_than_one_true\] assertion failed: \[1 1\]"):
        sess.run(r, {x: 7})


def test_case_errors():
    x = tx.constant(1)
    with pytest.raises(TypeError, match="must be a list, tuple, or dict"):
        tx.case(x < 2)
    with pytest.raises(TypeError, match="2-tuple"):
        tx.case([(x < 2, lambda: 1, 3)])
    with pytest.raises(TypeError, match="type bool"):
        tx.case([(x, lambda: 1)])
    with pytest.raises(TypeError, match="must be a Tensor"):
        tx.case([(True, lambda: 1)])
    with pytest.raises(TypeError, match="must be callable"):
        tx.case([(x < 2, 1)])


@pytest.mark.eager
def test_eager_cond_runs_only_the_chosen_function():
    calls = []
    x = tx.constant(3.0)

    def t():
        calls.append("t")
        return x * 2.0

    def f():
        calls.append("f")
        return x

    assert float(tx.cond(x > 1.0, t, f)) == 6.0
    assert float(tx.cond(False, t, f)) == 3.0
    assert calls == ["t", "f"]
    with pytest.raises(TypeError, match="bool tensor"):
        tx.cond(tx.constant(1), t, f)
    with pytest.raises(ValueError, match="scalar"):
        tx.cond(tx.constant([True, False]), t, f)


@pytest.mark.eager
def test_eager_switch_case_and_case():
    fns = [lambda: tx.constant(0), lambda: tx.constant(1)]
    assert int(tx.switch_case(tx.constant(1), fns)) == 1
    assert int(tx.switch_case(7, fns, default=lambda: tx.constant(9))) == 9
    x = tx.constant(5)
    assert int(tx.case([(x < 3, lambda: tx.constant(0)), (x < 8, lambda: tx.constant(1))])) == 1
    with pytest.raises(tx.errors.InvalidArgumentError, match="None of conditions evaluated as True"):
        tx.case([(x < 3, lambda: tx.constant(0))])
    with pytest.raises(tx.errors.InvalidArgumentError, match="exclusive"):
        tx.case([(x < 8, lambda: tx.constant(0)), (x > 1, lambda: tx.constant(1))], exclusive=True)


@pytest.mark.eager
def test_cond_and_switch_case_inside_function_build_ops():
    v = tx.Variable(1.0)

    @tx.function
    def f(x, k):
        a = tx.cond(x > 0.0, lambda: x * v, lambda: -x)
        b = tx.switch_case(k, [lambda: a, lambda: a * 10.0, lambda: a + v])
        return b

    assert float(f(tx.constant(2.0), tx.constant(0))) == 2.0
    assert float(f(tx.constant(-2.0), tx.constant(1))) == 20.0
    v.assign(3.0)
    assert float(f(tx.constant(2.0), tx.constant(2))) == 9.0
    types = _types(f.get_concrete_function(tx.constant(2.0), tx.constant(0)).graph)
    # Reading the captured variable is stateful: If/Case, as TensorFlow picks.
    assert "If" in types and "Case" in types


@pytest.mark.eager
def test_stateless_cond_inside_function_and_variable_update_in_branch():
    v = tx.Variable(0.0)

    @tx.function
    def pure(x):
        return tx.cond(x > 0.0, lambda: x, lambda: x * x)

    @tx.function
    def bump(x):
        tx.cond(x > 0.0, lambda: v.assign_add(x), lambda: tx.identity(v))
        return v.read_value()

    assert float(pure(tx.constant(-3.0))) == 9.0
    assert "StatelessIf" in _types(pure.get_concrete_function(tx.constant(1.0)).graph)
    bump(tx.constant(2.0))
    bump(tx.constant(-5.0))
    assert float(bump(tx.constant(0.5))) == 2.5


def test_assert_condition_of_unknown_shape_checked_at_run_time(sess):
    from tensorflux._src.generated import gen_ops

    c = tx.placeholder(tx.bool)
    op = gen_ops.assert_(c, [tx.constant([1, 2])])
    with tx.control_dependencies([op]):
        out = tx.identity(c)
    with pytest.raises(tx.errors.InvalidArgumentError, match=r"\[Assert\] condition must be a bool scalar"):
        sess.run(out, {c: [True, True]})
    with pytest.raises(tx.errors.InvalidArgumentError, match=r"\[Assert\] assertion failed: \[1 2\]"):
        sess.run(out, {c: False})
    assert sess.run(out, {c: True})


@pytest.mark.eager
def test_assert_executing_eagerly():
    from tensorflux._src.generated import gen_ops

    assert gen_ops.assert_(tx.constant(True), [tx.constant(1.5)]) is None
    with pytest.raises(tx.errors.InvalidArgumentError, match=r"assertion failed: \[0 1 2\.\.\.\] \[1\.5\]"):
        gen_ops.assert_(tx.constant(False), [tx.constant(np.arange(10)), tx.constant(1.5)])
