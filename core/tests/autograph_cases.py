"""Python control-flow snippets for the AutoGraph tests: each is run eagerly (plain Python on
eager tensors), through tx.function (converted) and, where installed, through tf.function with the
same code (`tx` bound to tensorflow); `CASES` lists (function, arguments, graph ops expected)."""

import collections

import numpy as np

import tensorflux as tx

Pair = collections.namedtuple("Pair", ["a", "b"])


def if_else_tensor(x):
    if x > 0:
        y = x * 2.0
    else:
        y = -x
    return y


def if_elif_else_tensor(x):
    if x > 10.0:
        y = x - 10.0
    elif x > 0.0:
        y = x + 100.0
    else:
        y = x * 0.0
    return y


def if_python_bool(x, flag):
    if flag:
        x = x + 1.0
    else:
        x = x - 1.0
    return x


def if_temporaries_in_one_branch(x):
    if x > 0:
        t = x * 3.0
        y = t + 1.0
    else:
        y = x
    return y


def if_and_or_not(x):
    if x > 0 and not x > 5:
        y = x
    elif x < -3 or x > 100:
        y = -x
    else:
        y = x * 0.5
    return y


def early_return(x):
    if x > 0:
        return x * 10.0
    return x - 1.0


def early_return_nested(x):
    if x > 0:
        if x > 5:
            return x * 2.0
        return x + 1.0
    y = x * x
    return y


def while_tensor(n):
    i = 0
    total = 0
    while i < n:
        total += i * i
        i += 1
    return i, total


def while_break_continue(n):
    i = 0
    s = 0.0
    while i < n:
        i += 1
        if i == 3:
            continue
        if i > 6:
            break
        s += tx.cast(i, tx.float32)
    return s


def for_over_tensor(xs):
    s = tx.constant(0.0)
    for v in xs:
        s = s + v * v
    return s


def for_over_tensor_rows(m):
    acc = tx.zeros([3])
    for row in m:
        acc = acc + row
    return acc


def for_over_range(n):
    acc = 0
    for i in tx.range(n):
        acc += i
    return acc


def for_tensor_break(xs):
    s = 0.0
    for v in xs:
        if v < 0:
            break
        s += v
    return s


def nested_loops(n):
    total = 0
    i = 0
    while i < n:
        j = 0
        while j < i:
            total += j
            j += 1
        i += 1
    return total


def loop_inside_cond(x, n):
    if x > 0:
        i = 0
        while i < n:
            x = x * 2.0
            i += 1
    else:
        x = -x
    return x


def cond_inside_loop(n):
    i = 0
    evens = 0
    while i < n:
        if i % 2 == 0:
            evens += 1
        i += 1
    return evens


def python_for_list(x):
    for w in [1.0, 2.0, 3.0]:
        x = x * w
    return x


def python_for_return(x):
    for k in range(5):
        if k == 3:
            return x * k
    return x


def python_while(x):
    i = 0
    while i < 3:
        x = x + 1.0
        i += 1
    return x


def nested_loop_vars(n):
    state = {"count": tx.constant(0), "pair": Pair(a=tx.constant(1.0), b=[tx.constant(2.0), tx.constant(0)])}
    i = 0
    while i < n:
        state = {"count": state["count"] + 1,
                 "pair": Pair(a=state["pair"].a * 2.0, b=[state["pair"].b[0] + 1.0, state["pair"].b[1] + i])}
        i += 1
    return state["count"], state["pair"].a, state["pair"].b[0], state["pair"].b[1]


def both_branches_create(x):
    if tx.reduce_sum(x) > 0:
        a = x + 1.0
        b = tx.reduce_max(x)
    else:
        a = x - 1.0
        b = tx.reduce_min(x)
    return a, b


def called_helper(x):
    return _helper(x) + 1.0


def _helper(x):
    if x > 0:
        x = x * 3.0
    return x


def ternary(x):
    return x * 2.0 if x > 0 else -x


def builtin_range_of_tensor(n):
    s = 0
    for j in range(n):
        s += j * 2
    return s


def range_len_static(x):
    s = 0.0
    for i in range(len(x)):
        s += x[i] * float(i + 1)
    return s


def nested_def(x):
    def inner(y):
        if y > 0:
            y = y * 2.0
        return y

    return inner(x) + 1.0


# (function, argument makers (called with the tensor module), op types the traced graph must have)
CASES = [
    (if_else_tensor, [lambda t: t.constant(3.0)], {"If"}),
    (if_else_tensor, [lambda t: t.constant(-2.0)], {"If"}),
    (if_elif_else_tensor, [lambda t: t.constant(12.0)], {"If"}),
    (if_elif_else_tensor, [lambda t: t.constant(5.0)], {"If"}),
    (if_elif_else_tensor, [lambda t: t.constant(-5.0)], {"If"}),
    (if_python_bool, [lambda t: t.constant(1.0), lambda t: True], set()),
    (if_python_bool, [lambda t: t.constant(1.0), lambda t: False], set()),
    (if_temporaries_in_one_branch, [lambda t: t.constant(2.0)], {"If"}),
    (if_and_or_not, [lambda t: t.constant(3.0)], {"If"}),
    (if_and_or_not, [lambda t: t.constant(7.0)], {"If"}),
    (if_and_or_not, [lambda t: t.constant(-4.0)], {"If"}),
    (early_return, [lambda t: t.constant(2.0)], {"If"}),
    (early_return, [lambda t: t.constant(-2.0)], {"If"}),
    (early_return_nested, [lambda t: t.constant(7.0)], {"If"}),
    (early_return_nested, [lambda t: t.constant(2.0)], {"If"}),
    (early_return_nested, [lambda t: t.constant(-3.0)], {"If"}),
    (while_tensor, [lambda t: t.constant(6)], {"While"}),
    (while_tensor, [lambda t: t.constant(0)], {"While"}),
    (while_break_continue, [lambda t: t.constant(10)], {"While", "If"}),
    (while_break_continue, [lambda t: t.constant(4)], {"While", "If"}),
    (for_over_tensor, [lambda t: t.constant([1.0, 2.0, 3.0])], {"While"}),
    (for_over_tensor_rows, [lambda t: t.constant(np.arange(12, dtype=np.float32).reshape(4, 3))], {"While"}),
    (for_over_range, [lambda t: t.constant(5)], {"While"}),
    (for_tensor_break, [lambda t: t.constant([1.0, 2.0, -1.0, 5.0])], {"While", "If"}),
    (nested_loops, [lambda t: t.constant(5)], {"While"}),
    (loop_inside_cond, [lambda t: t.constant(1.5), lambda t: t.constant(3)], {"If", "While"}),
    (loop_inside_cond, [lambda t: t.constant(-1.5), lambda t: t.constant(3)], {"If", "While"}),
    (cond_inside_loop, [lambda t: t.constant(7)], {"While", "If"}),
    (python_for_list, [lambda t: t.constant(2.0)], set()),
    (python_for_return, [lambda t: t.constant(2.0)], set()),
    (python_while, [lambda t: t.constant(2.0)], set()),
    (nested_loop_vars, [lambda t: t.constant(3)], {"While"}),
    (both_branches_create, [lambda t: t.constant([1.0, -3.0, 4.0])], {"If"}),
    (both_branches_create, [lambda t: t.constant([-1.0, -3.0, 2.0])], {"If"}),
    (called_helper, [lambda t: t.constant(2.0)], {"If"}),
    (ternary, [lambda t: t.constant(-3.0)], {"If"}),
    (ternary, [lambda t: t.constant(3.0)], {"If"}),
    (builtin_range_of_tensor, [lambda t: t.constant(5)], {"While", "Range"}),
    (range_len_static, [lambda t: t.constant([1.0, 2.0, 4.0])], set()),
    (nested_def, [lambda t: t.constant(2.0)], {"If"}),
]


class _Accumulator:
    def __init__(self):
        self.total = 0.0
        self.steps = 0


def attributes_as_variables(n):
    acc = _Accumulator()
    while acc.steps < n:
        if acc.steps % 2 == 0:
            acc.total += 1.5
        else:
            acc.total -= 0.5
        acc.steps += 1
    return acc.total, acc.steps


CASES += [
    (attributes_as_variables, [lambda t: t.constant(5)], {"While", "If"}),
    (attributes_as_variables, [lambda t: t.constant(0)], {"While", "If"}),
]
