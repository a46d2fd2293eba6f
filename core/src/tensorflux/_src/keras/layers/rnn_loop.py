"""The time loop of recurrent layers: `run` steps a cell over [batch, time, ...] inputs with
Keras's masking, in Python when executing eagerly (or ``unroll``) and as one tx.while_loop in a
graph or tx.function (Note [RNN accumulators]).

Note [RNN accumulators]
In a graph the loop carries a preallocated [T, batch, units] output tensor and writes step t's
output into it with TensorScatterUpdate; the While kernel hands its loop variables to the body
(Note [Loop variables move into the body] in kernels/cpu/control_flow.cc), so the write reuses the
buffer: O(batch * units) per step, not a copy of the whole accumulator. The inputs are read the
same way in reverse: `_read_step` passes the [T, batch, features] inputs through as a loop
variable and takes step t's slice, with a gradient that adds step t's gradient into that slice of
the incoming gradient (TensorScatterAdd, in place) instead of a dense [T, batch, features] tensor
per step. Forward and backward are then O(T). Both are behind this one function, which can move to
TensorArray (tx.TensorArray, once it lands) without touching the layers.
"""

from tensorflux._src import array_ops, math_ops
from tensorflux._src import context as _context
from tensorflux._src.array_ext import tensor_scatter_nd_add, tensor_scatter_nd_update
from tensorflux._src.backprop import custom_gradient
from tensorflux._src.generated import gen_ops
from tensorflux._src.while_loop import while_loop


@custom_gradient
def _read_step(xs, t):
    """(xs, xs[t]) with an O(size of xs[t]) gradient (Note [RNN accumulators])."""
    x_t = gen_ops.gather_v2(xs, t, 0)

    def grad(dxs, dx_t):
        index = gen_ops.reshape(t, [1, 1])
        return tensor_scatter_nd_add(dxs, index, gen_ops.expand_dims(dx_t, 0)), None
    return (gen_ops.identity(xs), x_t), grad


def _where(mask_t, new, old):
    """new where the batch row's mask is on, else old (mask_t: [batch] bool)."""
    m = mask_t
    for _ in range((new.shape.rank or 2) - 1):
        m = gen_ops.expand_dims(m, -1)
    return gen_ops.select_v2(m, new, old)


def known_shape(t, dims):
    """``t`` with its static shape refined to ``dims`` (graph tensors; eager ones know theirs)."""
    if hasattr(t, "set_shape"):
        t.set_shape(dims)
    return t


def _time_major(x):
    rank = x.shape.rank
    return gen_ops.transpose(x, [1, 0] + list(range(2, rank)))


def run(step, inputs, initial_states, output_size, mask=None, go_backwards=False, zero_output_for_mask=False,
        return_sequences=True, unroll=False):
    """Steps ``step(x_t, states) -> (output_t, new_states)`` over the time axis (1) of ``inputs``.

    Returns (last output [batch, output_size], outputs [batch, time, output_size] or None when
    ``return_sequences`` is False, final states). A ``mask`` [batch, time] (bool) keeps each row's
    states through masked steps and repeats its previous output there (zeros with
    ``zero_output_for_mask``); ``go_backwards`` runs from the last step (outputs stay in that order).
    """
    xs = _time_major(inputs)
    ms = _time_major(mask) if mask is not None else None
    if go_backwards:
        xs = array_ops.reverse(xs, [0])
        ms = array_ops.reverse(ms, [0]) if ms is not None else None
    states = list(initial_states)
    if _context.executing_eagerly() or unroll:
        return _python_loop(step, xs, ms, states, zero_output_for_mask, return_sequences)
    return _graph_loop(step, xs, ms, states, output_size, zero_output_for_mask, return_sequences)


def _python_loop(step, xs, ms, states, zero_output_for_mask, return_sequences):
    steps = xs.shape.as_list()[0]
    if steps is None:
        raise ValueError("Unrolling an RNN needs a known number of timesteps; got inputs of shape %s" % xs.shape)
    x_list = array_ops.unstack(xs, num=steps)
    m_list = array_ops.unstack(ms, num=steps) if ms is not None else [None] * steps
    outputs, prev = [], None
    for x_t, m_t in zip(x_list, m_list):
        out, new_states = step(x_t, states)
        if m_t is not None:
            fallback = prev if prev is not None and not zero_output_for_mask else gen_ops.zeros_like(out)
            out = _where(m_t, out, fallback)
            new_states = [_where(m_t, n, s) for n, s in zip(new_states, states)]
        states = list(new_states)
        outputs.append(out)
        prev = out
    if not outputs:
        raise ValueError("An RNN needs at least one timestep")
    seq = array_ops.stack(outputs, axis=1) if return_sequences else None
    return outputs[-1], seq, states


def _graph_loop(step, xs, ms, states, output_size, zero_output_for_mask, return_sequences):
    shape = gen_ops.shape(xs)
    steps, batch = shape[0], shape[1]
    dtype = xs.dtype if xs.dtype.is_floating else states[0].dtype
    static_batch = xs.shape.as_list()[1] if xs.shape.rank else None
    prev0 = known_shape(gen_ops.fill(gen_ops.pack([batch, output_size], axis=0), math_ops.cast(0, dtype)),
                        [static_batch, output_size])
    acc0 = gen_ops.fill(gen_ops.pack([steps, batch, output_size], axis=0) if return_sequences else [0],
                        math_ops.cast(0, dtype))
    if return_sequences:
        known_shape(acc0, [xs.shape.as_list()[0], static_batch, output_size])
    states = [known_shape(s, [static_batch] + s.shape.as_list()[1:]) if s.shape.rank else s for s in states]

    def cond(t, *_):
        return gen_ops.less(t, steps)

    def body(t, x_all, acc, prev, *st):
        x_all, x_t = _read_step(x_all, t)
        out, new_states = step(x_t, list(st))
        new_states = list(new_states)
        if ms is not None:
            m_t = gen_ops.gather_v2(ms, t, 0)
            out = _where(m_t, out, gen_ops.zeros_like(out) if zero_output_for_mask else prev)
            new_states = [_where(m_t, n, s) for n, s in zip(new_states, st)]
        if return_sequences:
            acc = tensor_scatter_nd_update(acc, gen_ops.reshape(t, [1, 1]), gen_ops.expand_dims(out, 0))
        return [t + 1, x_all, acc, out] + new_states

    result = while_loop(cond, body, [math_ops.cast(0, "int32"), xs, acc0, prev0] + states)
    acc, last, final = result[2], result[3], list(result[4:])
    seq = gen_ops.transpose(acc, [1, 0, 2]) if return_sequences else None
    return last, seq, final
