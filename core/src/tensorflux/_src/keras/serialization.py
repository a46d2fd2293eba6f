"""Keras 3's object configs: ``{"module", "class_name", "config", "registered_name"}`` dicts for
layers, initializers, regularizers, constraints, losses, metrics, optimizers and activations, and
the registry that turns them back into objects (Note [Keras configs]).

Note [Keras configs]
A config written by tx.keras has Keras 3's shape, and one written by Keras 3 reads here: objects
are looked up by ``class_name`` among the classes registered under a kind ("layers",
"initializers", ...), then in ``custom_objects`` and the classes registered with
`register_keras_serializable` (by their ``registered_name`` "package>Name"). Keras-only keys whose
value is Keras's default (``quantization_config: None``, ...) are dropped by the class
(``Layer._KERAS_DEFAULTS``); any other unknown key is an error naming the class and the key.
"""

import inspect
import threading

_registry = {}            # kind -> {class name: class or function}
_custom = {}              # "package>Name" -> class (register_keras_serializable)
_scope = threading.local()  # custom_object_scope stack


def register(kind, *names):
    """Class decorator: registers the class under ``kind`` by its name (and ``names``)."""
    def deco(cls):
        table = _registry.setdefault(kind, {})
        table[cls.__name__] = cls
        for n in names:
            table[n] = cls
        return cls
    return deco


def register_keras_serializable(package="Custom", name=None):
    """Registers a custom class (or function) under ``"package>name"`` so that a saved model
    using it loads without ``custom_objects``, as Keras's decorator.

    >>> @tx.keras.saving.register_keras_serializable(package="doc")
    ... class Twice(tx.keras.layers.Layer):
    ...     def call(self, x):
    ...         return 2.0 * x
    >>> tx.keras.saving.get_registered_name(Twice)
    'doc>Twice'
    """
    def deco(obj):
        key = "%s>%s" % (package, name or obj.__name__)
        _custom[key] = obj
        obj._registered_name = key
        return obj
    return deco


def get_registered_name(obj):
    """The name a class is registered under ("package>Name"), or its own name."""
    return getattr(obj, "_registered_name", None) or getattr(obj, "__name__", type(obj).__name__)


class custom_object_scope:  # noqa: N801 (Keras's name)
    """``with custom_object_scope({"MyLayer": MyLayer}):`` makes the names known to loading."""

    def __init__(self, custom_objects):
        self._objects = dict(custom_objects or {})

    def __enter__(self):
        stack = getattr(_scope, "stack", None)
        if stack is None:
            stack = _scope.stack = []
        stack.append(self._objects)
        return self

    def __exit__(self, *exc):
        _scope.stack.pop()


def _scoped(name):
    for objects in reversed(getattr(_scope, "stack", None) or []):
        if name in objects:
            return objects[name]
    return None


def lookup(kind, class_name, registered_name=None, custom_objects=None):
    """The class (or function) a config names, or ValueError listing what is known."""
    for source in (custom_objects or {}, ):
        if registered_name and registered_name in source:
            return source[registered_name]
        if class_name in source:
            return source[class_name]
    for key in (registered_name, class_name):
        if key:
            hit = _scoped(key) or _custom.get(key)
            if hit is not None:
                return hit
    table = _registry.get(kind, {})
    if class_name in table:
        return table[class_name]
    raise ValueError("Could not locate %s class %r (registered name %r). tx.keras knows: %s. Pass custom classes "
                     "with custom_objects={...} or register them with "
                     "@tx.keras.saving.register_keras_serializable()."
                     % (kind.rstrip("s"), class_name, registered_name, ", ".join(sorted(table)) or "none"))


_MODULES = {"layers": "keras.layers", "initializers": "keras.initializers", "regularizers": "keras.regularizers",
            "constraints": "keras.constraints", "losses": "keras.losses", "metrics": "keras.metrics",
            "optimizers": "keras.optimizers", "models": "keras", "activations": "keras.activations"}


def serialize(obj, kind):
    """Keras 3's dict for ``obj`` (a class instance with get_config); None stays None."""
    if obj is None:
        return None
    cls = type(obj)
    class_name = getattr(obj, "_keras_class_name", None) or cls.__name__
    registered = getattr(cls, "_registered_name", None)
    out = {"module": _MODULES.get(kind, "keras"), "class_name": class_name, "config": obj.get_config(),
           "registered_name": registered}
    return out


def deserialize(config, kind, custom_objects=None):
    """The object a Keras config dict describes (strings go through the kind's ``get``)."""
    if config is None or not isinstance(config, dict):
        return config
    if kind == "layers" and str(config.get("module", "")).startswith("keras.src.ops"):
        kind = "ops"  # a keras.ops operation recorded in a functional graph (layers/ops_layers.py)
    cls = lookup(kind, config["class_name"], config.get("registered_name"), custom_objects)
    inner = dict(config.get("config") or {})
    if hasattr(cls, "from_config"):
        try:
            params = inspect.signature(cls.from_config).parameters
        except (TypeError, ValueError):
            params = {}
        if "custom_objects" in params:
            return cls.from_config(inner, custom_objects=custom_objects)
        return cls.from_config(inner)
    return cls(**inner)


def drop_keras_defaults(cls_name, config, defaults):
    """Removes keys Keras writes whose value is the one tx.keras implements (``defaults``:
    key -> Keras's default); a different value is a NotImplementedError naming the key."""
    for key, default in defaults.items():
        if key in config:
            value = config.pop(key)
            if value != default and not (isinstance(default, tuple) and value in default):
                raise NotImplementedError("%s: argument %s=%r is not supported by tx.keras (only %r)"
                                          % (cls_name, key, value, default))
    return config
