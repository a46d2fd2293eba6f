"""``sample_chain``: burn-in and sampling loops that run inside the engine.

Note [Chains in the engine]: ``sample_chain`` traces the kernel's ``one_step`` into one
``tx.while_loop`` for burn-in and one for the kept draws, inside one ``tx.function`` (when called
eagerly), so the engine runs every transition with no Python between steps. The kept states and
traces go into preallocated ``[num_results, ...]`` tensors written with ``tensor_scatter_nd_update``;
the While kernel hands loop variables to its body, so each write is in place (O(one draw) per
step). The seed is a loop variable split every step (Note [Seeds] in internal/samplers.py), so a
given seed gives the same chain eagerly and in a graph.
"""

import collections

import tensorflux as tx

from tensorflux_probability.internal import samplers

StatesAndTrace = collections.namedtuple("StatesAndTrace", ["all_states", "trace"])
CheckpointableStatesAndTrace = collections.namedtuple("CheckpointableStatesAndTrace",
                                                      ["all_states", "trace", "final_kernel_results"])


def _default_trace_fn(_, kernel_results):
    return kernel_results


def _buffer(num_results, v):
    """Zeros of shape [num_results] + v's shape (static where v's is)."""
    dims = v.shape.as_list() if v.shape.rank is not None else None
    if dims is not None and all(d is not None for d in dims):
        return tx.zeros([num_results] + dims, v.dtype)
    return tx.zeros(tx.concat([[num_results], tx.shape(v)], 0), v.dtype)


def _write(acc, i, value):
    return tx.tensor_scatter_nd_update(acc, tx.reshape(i, [1, 1]), tx.expand_dims(value, 0))


def _run(num_results, state, kernel, results, num_burnin_steps, thin, trace_fn, seed):
    is_list = isinstance(state, (list, tuple))
    state = list(state) if is_list else state
    if results is None:
        results = kernel.bootstrap_results(state)

    def step(s, r, sd):
        sd, step_seed = samplers.split_seed(sd, 2)
        s, r = kernel.one_step(s, r, step_seed)
        return (list(s) if is_list else s), r, sd

    def burn_body(i, s, r, sd):
        s, r, sd = step(s, r, sd)
        return i + 1, s, r, sd

    if num_burnin_steps:
        _, state, results, seed = tx.while_loop(lambda i, *_: i < num_burnin_steps, burn_body,
                                                [tx.constant(0), state, results, seed])

    def advance(s, r, sd):
        if thin == 0:
            return step(s, r, sd)
        def thin_body(j, s, r, sd):
            s, r, sd = step(s, r, sd)
            return j + 1, s, r, sd
        _, s, r, sd = tx.while_loop(lambda j, *_: j < thin + 1, thin_body, [tx.constant(0), s, r, sd])
        return s, r, sd

    traced = trace_fn(state, results) if trace_fn is not None else ()
    flat_state = tx.nest.flatten(state)
    flat_trace = tx.nest.flatten(traced)
    acc = [_buffer(num_results, tx.convert_to_tensor(v)) for v in flat_state + flat_trace]

    def body(i, s, r, sd, acc):
        s, r, sd = advance(s, r, sd)
        values = tx.nest.flatten(s) + (tx.nest.flatten(trace_fn(s, r)) if trace_fn is not None else [])
        return i + 1, s, r, sd, [_write(a, i, tx.convert_to_tensor(v)) for a, v in zip(acc, values)]

    _, state, results, _, acc = tx.while_loop(lambda i, *_: i < num_results, body,
                                              [tx.constant(0), state, results, seed, acc])
    all_states = tx.nest.pack_sequence_as(state, acc[:len(flat_state)])
    trace = tx.nest.pack_sequence_as(traced, acc[len(flat_state):]) if trace_fn is not None else None
    return all_states, trace, results


def sample_chain(num_results, current_state, kernel, previous_kernel_results=None, num_burnin_steps=0,
                 num_steps_between_results=0, trace_fn=_default_trace_fn, return_final_kernel_results=False,
                 seed=None, name=None):
    """``num_results`` states of the Markov chain ``kernel`` after ``num_burnin_steps`` discarded
    ones, keeping every ``num_steps_between_results + 1``-th (TFP's ``tfp.mcmc.sample_chain``;
    the loops run in the engine, Note [Chains in the engine]).

    Returns the stacked states (``[num_results] + state shape``) when ``trace_fn`` is None, else
    ``StatesAndTrace(all_states, trace)`` (or ``CheckpointableStatesAndTrace`` with
    ``return_final_kernel_results``), ``trace`` stacking ``trace_fn(state, kernel_results)``.

    >>> k = txp.mcmc.RandomWalkMetropolis(txp.distributions.Normal(0.0, 1.0).log_prob)
    >>> out = txp.mcmc.sample_chain(50, tx.zeros([3]), k, trace_fn=lambda _, r: r.is_accepted, seed=2)
    >>> out.all_states.shape, out.trace.dtype
    (TensorShape([50, 3]), tx.bool)
    """
    num_results = int(num_results)
    if num_results < 1:
        raise ValueError("num_results must be >= 1, got %d" % num_results)
    num_burnin_steps, thin = int(num_burnin_steps), int(num_steps_between_results)
    if num_burnin_steps < 0 or thin < 0:
        raise ValueError("num_burnin_steps and num_steps_between_results must be >= 0")
    seed = samplers.sanitize_seed(seed)

    def run(state, seed):
        return _run(num_results, state, kernel, previous_kernel_results, num_burnin_steps, thin, trace_fn, seed)

    if tx.executing_eagerly():
        all_states, trace, results = tx.function(run, autograph=False)(current_state, seed)
    else:
        all_states, trace, results = run(current_state, seed)
    if return_final_kernel_results:
        return CheckpointableStatesAndTrace(all_states, trace, results)
    if trace_fn is None:
        return all_states
    return StatesAndTrace(all_states, trace)
