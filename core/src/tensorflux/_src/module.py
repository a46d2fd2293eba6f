"""``tx.Module``: a named container of variables and submodules (TensorFlow 2's tf.Module).

Variables and submodules are found by walking the module's attributes (sorted by name) and the
lists, tuples, dicts and namedtuples they hold, as TensorFlow does: first the module's own
values, then each submodule's, each value reported once.
"""

import functools
import re

from tensorflux._src import context as _context
from tensorflux._src import graph as _graph
from tensorflux._src import nest as _nest
from tensorflux._src.variables import Variable

__all__ = ["Module"]

# Attributes the walk skips (the ones TensorFlow's checkpointing machinery adds).
_IGNORED_PROPERTIES = frozenset(("_self_unconditional_checkpoint_dependencies",
                                 "_self_unconditional_dependency_names"))
_VALID_IDENTIFIER = re.compile(r"^[a-zA-Z_]([a-zA-Z0-9_])*$")
_CAMEL_TO_SNAKE = re.compile(r"((?<=[a-z0-9])[A-Z]|(?!^)[A-Z](?=[a-z]))")


def _camel_to_snake(name):
    return _CAMEL_TO_SNAKE.sub(r"_\1", name).lower()


def _is_variable(obj):
    return isinstance(obj, Variable)


def _is_trainable_variable(obj):
    return _is_variable(obj) and getattr(obj, "trainable", False)


def _is_non_trainable_variable(obj):
    return _is_variable(obj) and not getattr(obj, "trainable", False)


def _is_module(obj):
    return isinstance(obj, Module)


class _ModuleNameScope:
    """Re-enters a module's name scope (exactly, never uniquified again); yields its string."""

    def __init__(self, scope_name):
        self._scope_name = scope_name
        self._cm = None

    def __enter__(self):
        self._cm = _graph.get_default_graph().name_scope(self._scope_name or None)
        return self._cm.__enter__()

    def __exit__(self, *exc):
        cm, self._cm = self._cm, None
        return cm.__exit__(*exc)


class Module:
    """Base class of named containers of variables, submodules and functions (tf.Module).

    ``name`` defaults to the class name in snake_case and must be a Python identifier. The module
    opens its name scope at construction (uniquified in graph mode, as TensorFlow); ``name_scope``
    re-enters it, and methods decorated with ``Module.with_name_scope`` run inside it.
    """

    def __init__(self, name=None):
        if name is None:
            name = _camel_to_snake(type(self).__name__)
        elif not _VALID_IDENTIFIER.match(name):
            raise ValueError("'%s' is not a valid module name. Module names must be valid Python 3 identifiers."
                             % name)
        self._name = name
        if _context.executing_eagerly():
            outer = _graph.get_default_graph().get_name_scope()
            self._scope_name = (outer + "/" if outer else "") + name + "/"
        else:
            with _graph.get_default_graph().name_scope(name) as scope_name:
                self._scope_name = scope_name

    @property
    def name(self):
        """The module's name (without its enclosing scopes)."""
        return self._name

    @property
    def name_scope(self):
        """A context manager re-entering the module's name scope (e.g. ``"outer/dense/"``)."""
        return _ModuleNameScope(self._scope_name)

    @property
    def variables(self):
        """Every Variable in this module and its submodules (a tuple, each variable once)."""
        return tuple(self._flatten(predicate=_is_variable))

    @property
    def trainable_variables(self):
        """The trainable Variables of this module and its submodules."""
        return tuple(self._flatten(predicate=_is_trainable_variable))

    @property
    def non_trainable_variables(self):
        """The non-trainable Variables of this module and its submodules."""
        return tuple(self._flatten(predicate=_is_non_trainable_variable))

    @property
    def submodules(self):
        """Every Module reachable from this one (not itself), breadth-first by nesting level."""
        return tuple(self._flatten(predicate=_is_module))

    def _flatten(self, recursive=True, predicate=None, attribute_traversal_key=None, with_path=False,
                 expand_composites=False):
        """The values in this module's attributes (and, when ``recursive``, its submodules') for
        which ``predicate`` holds; with ``with_path``, ``(path, value)`` pairs where the path is the
        tuple of attribute names, keys and indices leading to the value."""
        del expand_composites
        if predicate is None:
            predicate = lambda _: True  # noqa: E731
        return _flatten_module(self, recursive, predicate, attribute_traversal_key, _IGNORED_PROPERTIES,
                               with_path, (), {id(self)}, [])

    @classmethod
    def with_name_scope(cls, method):
        """Decorator: ``method`` runs inside its module's name scope."""

        @functools.wraps(method)
        def method_with_name_scope(self, *args, **kwargs):
            with self.name_scope:
                return method(self, *args, **kwargs)

        return method_with_name_scope

    def __repr__(self):
        return "<%s.%s object named %r>" % (type(self).__module__, type(self).__name__, self._name)


def _flatten_module(module, recursive, predicate, traversal_key, ignored, with_path, module_path, seen, stack):
    module_id = id(module)
    if module_id in stack:
        recursive = False  # a cycle back to a module being walked
    submodules = []
    attrs = vars(module)
    for key in sorted(attrs, key=traversal_key):
        if key in ignored:
            continue
        try:
            leaves = _nest.flatten_with_paths(attrs[key])
        except Exception as cause:
            raise ValueError("Error processing property {!r} of {!r}".format(key, module)) from cause
        for leaf_path, leaf in leaves:
            path = module_path + (key,) + leaf_path
            if not with_path:
                if id(leaf) in seen:
                    continue
                seen.add(id(leaf))
            if predicate(leaf):
                yield (path, leaf) if with_path else leaf
            if recursive and _is_module(leaf):
                submodules.append((path, leaf))
    stack.append(module_id)
    for path, sub in submodules:
        yield from _flatten_module(sub, recursive, predicate, traversal_key, ignored, with_path, path, seen, stack)
    stack.pop()
