"""`Session`: runs parts of a graph in the engine, feeding and fetching NumPy values.

Note [Fetch plans]: the fetch structure of each distinct ``fetches`` argument is resolved once
(names to Tensors, duplicates removed, Operations made targets) into a plan that the session
caches; a run then only resolves feed keys (also cached) and calls the binding, which converts
feeds and fetched tensors in C++ without copying (see src/pywrap/session.cc).
"""

import collections.abc
import operator
import threading

from tensorflux._src import errors
from tensorflux._src import graph as _graph
from tensorflux._src import lib
from tensorflux._src.operation import Operation, Tensor, TensorLike, install_default_session

_c = lib.c
_LEAVES = (Tensor, Operation, str, TensorLike)
_MAX_PLANS = 4096


class _DefaultSessionStack(threading.local):
    def __init__(self):
        self.stack = []


_default_sessions = _DefaultSessionStack()


def get_default_session():
    """The innermost session entered with ``with sess:`` in this thread, or None."""
    stack = _default_sessions.stack
    return stack[-1] if stack else None


install_default_session(get_default_session)


def _none(results):
    return None


def _leaf_key(f):
    """The cache key of one fetch or feed: a name by value, a tensor, operation or variable by
    identity (tensors of function graphs are unhashable, Note [Tensor equality]); the caches keep
    the objects alive, so an identity is never reused while its entry exists."""
    return f if type(f) is str else id(f)


def _structure_key(fetches):
    """A hashable key equal for fetch arguments of the same structure and elements."""
    t = type(fetches)
    if t in _LEAVES or isinstance(fetches, _LEAVES):
        return _leaf_key(fetches)
    if t is list:
        return (list,) + tuple(_structure_key(f) for f in fetches)
    if isinstance(fetches, tuple):
        return (t,) + tuple(_structure_key(f) for f in fetches)
    if isinstance(fetches, collections.abc.Mapping):
        return (t,) + tuple((k, _structure_key(v)) for k, v in fetches.items())
    raise TypeError("Fetch argument %r has invalid type %r, must be a string, Tensor or Operation, or a "
                    "list, tuple, namedtuple or dict of them." % (fetches, t))


def _run_options_bytes(options):
    """A serialized RunOptions from a RunOptions message (ours or TensorFlow's) or bytes."""
    if isinstance(options, bytes):
        return options
    serialize = getattr(options, "SerializeToString", None)
    if serialize is None:
        raise TypeError("options must be a RunOptions or its serialized bytes, not %r" % (type(options).__name__,))
    return serialize()


class _FetchPlan:
    __slots__ = ("fetches", "targets", "build", "leaves")

    def __init__(self, graph, fetches):
        self.fetches = []
        self.targets = []
        self.leaves = []  # the fetched objects, alive while the plan is cached (its key holds their ids)
        index = {}

        def leaf(f):
            self.leaves.append(f)
            try:
                el = graph.as_graph_element(f, allow_tensor=True, allow_operation=True)
            except TypeError as e:
                raise TypeError("Fetch argument %r has invalid type %r. (%s)" % (f, type(f), e)) from None
            except (ValueError, KeyError) as e:
                raise ValueError("Fetch argument %r cannot be interpreted as a Tensor. (%s)"
                                 % (f, e.args[0] if e.args else e)) from None
            if isinstance(el, Operation):
                if el._h not in self.targets:
                    self.targets.append(el._h)
                return _none
            i = index.get(el._pair)
            if i is None:
                i = index[el._pair] = len(self.fetches)
                self.fetches.append(el._pair)
            return operator.itemgetter(i)

        def build(f):
            if isinstance(f, _LEAVES):
                return leaf(f)
            if isinstance(f, list):
                subs = [build(x) for x in f]
                return lambda r: [s(r) for s in subs]
            if isinstance(f, tuple):
                subs = [build(x) for x in f]
                cls = type(f)
                if hasattr(f, "_fields"):
                    return lambda r: cls(*[s(r) for s in subs])
                if cls is tuple:
                    return lambda r: tuple([s(r) for s in subs])
                return lambda r: cls([s(r) for s in subs])
            if isinstance(f, collections.abc.Mapping):
                keys = list(f.keys())
                subs = [build(f[k]) for k in keys]
                cls = type(f) if type(f) in (dict, collections.OrderedDict) else dict
                return lambda r: cls(zip(keys, [s(r) for s in subs]))
            raise TypeError("Fetch argument %r has invalid type %r, must be a string, Tensor or Operation."
                            % (f, type(f)))

        self.build = build(fetches)


class Session:
    """Runs operations of ``graph`` (the default graph when None) in the engine.

    ``config`` is a ``tensorflux.proto.config_pb2.ConfigProto`` (``tx.ConfigProto``), its
    serialized bytes, or a dict of its fields; ``inter_op_parallelism_threads`` /
    ``intra_op_parallelism_threads`` override its thread counts (0 = one per core). Many threads
    may call ``run`` at once.

    >>> with tx.Graph().as_default() as g:
    ...     x = tx.placeholder(tx.float32, [None], name="x")
    ...     y = x * 2.0
    ...
    >>> with tx.Session(graph=g) as sess:
    ...     print(sess.run(y, feed_dict={x: [1.0, 2.0]}))
    ...     y_value, total = sess.run([y, tx.reduce_sum(y)], feed_dict={x: [3.0, 4.0]})
    ...     print(y_value, float(total))
    ...
    [2. 4.]
    [6. 8.] 14.0
    """

    def __init__(self, target="", graph=None, config=None, *, inter_op_parallelism_threads=None,
                 intra_op_parallelism_threads=None):
        if target:
            raise ValueError("Only in-process sessions are supported (target=''), not %r" % (target,))
        if graph is None:
            graph = _graph.get_default_graph()
        if not isinstance(graph, _graph.Graph):
            raise TypeError("graph must be a tx.Graph, not %r" % (graph,))
        config_bytes = None
        if isinstance(config, collections.abc.Mapping):
            config = dict(config)
            if inter_op_parallelism_threads is None:
                inter_op_parallelism_threads = config.pop("inter_op_parallelism_threads", None)
            if intra_op_parallelism_threads is None:
                intra_op_parallelism_threads = config.pop("intra_op_parallelism_threads", None)
            if config:  # other ConfigProto fields: let the message check their names and types
                from tensorflux.proto import config_pb2

                config_bytes = config_pb2.ConfigProto(**config).SerializeToString()
        elif isinstance(config, bytes):
            config_bytes = config
        elif hasattr(config, "SerializeToString"):
            config_bytes = config.SerializeToString()
        elif config is not None:
            raise TypeError("config must be a ConfigProto, its serialized bytes or a dict of its fields, not %r"
                            % (config,))
        inter = -1 if inter_op_parallelism_threads is None else int(inter_op_parallelism_threads)
        intra = -1 if intra_op_parallelism_threads is None else int(intra_op_parallelism_threads)
        self._graph = graph
        self._h = _c.Session(graph._h, config_bytes, inter, intra)
        self._closed = False
        self._plans = {}
        self._feeds = {}
        self._default_graph_cm = None

    @property
    def graph(self):
        """The graph this session runs."""
        return self._graph

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """Runs the graph and returns the values of ``fetches``.

        ``fetches``: a Tensor, an Operation, a name ("x:0" for a tensor, "x" for an operation), or
        a list, tuple, namedtuple or dict nesting them; the result has the same structure, with
        NumPy arrays for tensors and None for operations. ``feed_dict`` maps Tensors (or "x:0"
        names) to values (arrays, scalars, nested lists) converted to the tensor's dtype; fed
        arrays of that dtype are used without copying. ``options`` is a ``tx.RunOptions`` (or
        TensorFlow's, or its serialized bytes): with ``timeout_in_ms`` > 0 a run still going after
        that long stops at its next kernel or loop iteration with DeadlineExceededError, and the
        session stays usable. ``close()`` from another thread stops a run the same way with
        CancelledError, and Ctrl-C (on the main thread) with KeyboardInterrupt. With
        ``trace_level`` other than NO_TRACE in ``options``, ``run_metadata`` (a ``tx.RunMetadata``
        or TensorFlow's) receives the run's ``step_stats``: one NodeExecStats per kernel run, with
        TensorFlow's fields (node name, timeline label, start, duration, thread, outputs)."""
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        key = _leaf_key(fetches) if type(fetches) in _LEAVES else _structure_key(fetches)
        plan = self._plans.get(key)
        if plan is None:
            plan = self._plan(fetches, key)
        if feed_dict:
            feeds, values = [], []
            cache = self._feeds
            for k, v in feed_dict.items():
                hit = cache.get(_leaf_key(k))
                pair = hit[1] if hit is not None else self._feed_pair(k)
                feeds.append(pair)
                values.append(v)
        else:
            feeds = values = ()
        traced = False
        if options is not None:
            traced = run_metadata is not None and getattr(options, "trace_level", 0) != 0
            options = _run_options_bytes(options)
        try:
            results = _c.session_run(self._h, feeds, values, plan.fetches, plan.targets, options, traced)
        except errors.OpError as e:
            errors.attach_op(e, self._graph)
            raise
        if traced:
            results, metadata = results
            run_metadata.ParseFromString(metadata)
        return plan.build(results)

    def _plan(self, fetches, key):
        plan = _FetchPlan(self._graph, fetches)
        if len(self._plans) >= _MAX_PLANS:
            self._plans.clear()
        self._plans[key] = plan
        return plan

    def _feed_pair(self, key):
        try:
            t = self._graph.as_graph_element(key, allow_tensor=True, allow_operation=False)
        except (TypeError, ValueError, KeyError) as e:
            raise TypeError("Cannot interpret feed_dict key as Tensor: %s" % (e.args[0] if e.args else e)) from None
        self._feeds[_leaf_key(key)] = (key, t._pair)
        return t._pair

    def close(self):
        """Closes the session; later ``run`` calls raise RuntimeError. Runs in flight in other
        threads stop at their next kernel or loop iteration with CancelledError; ``close`` returns
        once they have ended."""
        if not self._closed:
            self._closed = True
            self._h.close()

    def __enter__(self):
        """Makes this session the default one (for ``Tensor.eval``) and its graph the default
        graph, until the block ends; the session is then closed."""
        self._default_graph_cm = self._graph.as_default()
        self._default_graph_cm.__enter__()
        _default_sessions.stack.append(self)
        return self

    def __exit__(self, exc_type, exc, tb):
        stack = _default_sessions.stack
        if stack and stack[-1] is self:
            stack.pop()
        cm, self._default_graph_cm = self._default_graph_cm, None
        if cm is not None:
            cm.__exit__(exc_type, exc, tb)
        self.close()
        return False

    def __repr__(self):
        return "<tx.Session%s on %r>" % (" (closed)" if self._closed else "", self._graph)
