"""`tx.train.Checkpoint`: the variables of the objects it tracks (Variables, optimizers, modules and
other objects holding them, lists and dicts) saved by key to one safetensors file, written and read
by the engine's C API so any front end can restore it; a tmp file renamed into place, so a crash
never corrupts the last good checkpoint. TensorFlow 2's idioms: attribute access to tracked
objects, numbered `save` shared with `CheckpointManager`, and `restore` returning a status."""

import os

import numpy as np

from tensorflux._src import checkpoint_management as _management
from tensorflux._src import context as _context
from tensorflux._src import safetensors_io
from tensorflux._src.session import get_default_session
from tensorflux._src.variables import Variable
from tensorflux._src.array_ops import placeholder

FORMAT = "tensorflux-checkpoint-v1"
_COUNTER_KEY = "save_counter"  # metadata entry: the number of the last numbered save


def _var_name(v):
    """A variable's name without the output index (graph: its op name)."""
    return v.name[:-2] if v._eager else v.op.name


def _collect(prefix, obj, out, seen):
    """Adds {key: Variable} for everything ``obj`` holds (Note [Checkpoint keys])."""
    # Note [Checkpoint keys]: a Variable is saved under the path of attribute names, dict keys and
    # list indices that leads to it from the checkpoint (``model/layers/0/kernel``); a tx.keras layer
    # or model contributes its weights under Keras's weight paths (``model/layers/dense/vars/0``,
    # Note [Weight paths] in _src/keras/weight_paths.py). Two shapes keep the keys of earlier
    # releases: an optimizer's variables are keyed by their names (``optimizer/<variable name>``),
    # and so are the elements of a list holding only Variables.
    if isinstance(obj, Variable):
        out.setdefault(prefix, obj)
        return
    if id(obj) in seen:
        return
    seen.add(id(obj))
    if callable(getattr(obj, "_serialize_to_tensors", None)):  # Note [Checkpointed state objects]
        out.setdefault(prefix, obj)
        return
    if isinstance(obj, dict):
        for k in sorted(obj, key=str):
            _collect("%s/%s" % (prefix, k), obj[k], out, seen)
    elif isinstance(obj, (list, tuple)):
        by_name = bool(obj) and all(isinstance(v, Variable) for v in obj)
        for i, v in enumerate(obj):
            _collect("%s/%s" % (prefix, _var_name(v) if by_name else i), v, out, seen)
    elif callable(getattr(obj, "_checkpoint_variables", None)):  # a tx.keras layer or model: Keras's weight paths
        for path, v in obj._checkpoint_variables().items():
            out.setdefault("%s/%s" % (prefix, path), v)
    elif callable(getattr(obj, "variables", None)):  # an optimizer: variables() holds its slots
        for v in obj.variables():
            out.setdefault("%s/%s" % (prefix, _var_name(v)), v)
    elif hasattr(obj, "__dict__") and not isinstance(obj, type):
        for k in sorted(vars(obj)):
            v = vars(obj)[k]
            if _holds_variables(v):
                _collect("%s/%s" % (prefix, k), v, out, seen)
    else:
        raise TypeError("Checkpoint: cannot track %s of type %s (a Variable, an optimizer, an object holding "
                        "them, or a list or dict of those)" % (prefix, type(obj).__name__))


# Note [Checkpointed state objects]: an object that is not made of Variables but has state to save
# (a tensorflux-data iterator: its pipeline position) defines ``_serialize_to_tensors()``, returning
# {name: array}, and ``_restore_from_tensors({name: array})`` (TensorFlow's Trackable method names).
# Its arrays are saved under ``<path>/<name>``; restore hands it back every entry under its path.


def _split_states(tracked):
    """({key: Variable}, {key: state object}) of what _collect found."""
    variables = {k: v for k, v in tracked.items() if isinstance(v, Variable)}
    return variables, {k: v for k, v in tracked.items() if not isinstance(v, Variable)}


def _holds_variables(obj, depth=0):
    """Whether an attribute value is worth walking: a Variable or a container or object that may
    hold one (callables, modules of code and plain values are not)."""
    if isinstance(obj, Variable):
        return True
    if isinstance(obj, (dict, list, tuple)):
        return depth < 8 and any(_holds_variables(v, depth + 1) for v in (obj.values() if isinstance(obj, dict)
                                                                           else obj))
    if isinstance(obj, (str, bytes, int, float, complex, bool, np.ndarray, type)) or obj is None or callable(obj):
        return False
    return hasattr(obj, "__dict__") or callable(getattr(obj, "variables", None)) or \
        callable(getattr(obj, "_serialize_to_tensors", None))


class CheckpointLoadStatus:
    """What `Checkpoint.restore` returns: which tracked variables the file matched, as
    TensorFlow's load status (assert_consumed, assert_existing_objects_matched, expect_partial)."""

    def __init__(self, path, unmatched_objects, unused_keys, matched_count):
        self.save_path = path
        self._unmatched = sorted(unmatched_objects)
        self._unused = sorted(unused_keys)
        self._matched_count = matched_count

    def assert_consumed(self):
        """Raises AssertionError unless every tracked variable was restored and every value in the
        file was used; returns self."""
        if self._unmatched or self._unused:
            raise AssertionError("Checkpoint %s was not consumed exactly:%s%s" % (
                self.save_path, _listing("tracked but not in the file", self._unmatched),
                _listing("in the file but not tracked", self._unused)))
        return self

    def assert_existing_objects_matched(self):
        """Raises AssertionError if a tracked variable had no value in the file; returns self."""
        if self._unmatched:
            raise AssertionError("Checkpoint %s does not match every tracked object:%s"
                                 % (self.save_path, _listing("tracked but not in the file", self._unmatched)))
        return self

    def assert_nontrivial_match(self):
        """Raises AssertionError if no tracked variable was restored; returns self."""
        if not self._matched_count:
            raise AssertionError("Checkpoint %s matched none of the tracked variables:%s"
                                 % (self.save_path, _listing("tracked", self._unmatched)))
        return self

    def expect_partial(self):
        """Declares that a partial restore is intended (nothing is reported); returns self."""
        return self

    def run_restore_ops(self, session=None):
        """Nothing to run: restoring already assigned the values (TensorFlow's graph-mode API)."""

    def initialize_or_restore(self, session=None):
        """Nothing to run: restoring already assigned the values (TensorFlow's graph-mode API)."""


class InitializationOnlyStatus(CheckpointLoadStatus):
    """What ``restore(None)`` returns: nothing was restored; ``initialize_or_restore`` runs the
    tracked variables' initializers in graph mode."""

    def __init__(self, variables):
        super().__init__(None, [], [], 0)
        self._variables = variables

    def assert_consumed(self):
        raise AssertionError("No checkpoint specified (save_path=None); nothing is being restored.")

    assert_existing_objects_matched = assert_nontrivial_match = assert_consumed

    def initialize_or_restore(self, session=None):
        graph_vars = [v for v in self._variables.values() if not v._eager]
        if graph_vars:
            session = session or get_default_session()
            if session is None:
                raise ValueError("initialize_or_restore needs a session for graph variables: pass session=")
            session.run([v.initializer for v in graph_vars])


def _listing(title, keys):
    return "\n  %s: %s" % (title, ", ".join(keys)) if keys else ""


class Checkpoint:
    """``Checkpoint(model=..., optimizer=opt, step=step_var)``: saves and restores the variables of
    the objects given by keyword (Note [Checkpoint keys]); tracked objects are attributes
    (``ckpt.step``), and assigning an attribute tracks a new one.

    >>> import tempfile
    >>> ckpt = tx.train.Checkpoint(step=tx.Variable(1), w=tx.Variable([1.0, 2.0]))
    >>> path = ckpt.save(tempfile.mkdtemp() + "/model")
    >>> _ = ckpt.w.assign([0.0, 0.0])
    >>> ckpt.restore(path).assert_consumed() is not None
    True
    >>> ckpt.w.numpy()
    array([1., 2.], dtype=float32)
    >>> int(ckpt.save_counter)
    1
    """

    def __init__(self, root=None, **objects):
        if root is not None:
            objects["root"] = root
        object.__setattr__(self, "_objects", dict(objects))
        object.__setattr__(self, "_restore_ops", {})  # key -> (placeholder, assign op), built on first restore
        object.__setattr__(self, "_counter", 0)
        object.__setattr__(self, "_counter_var", None)

    def __getattr__(self, name):
        objects = self.__dict__.get("_objects", {})
        if name in objects:
            return objects[name]
        raise AttributeError("'Checkpoint' object has no attribute %r (it tracks %s)" % (name, sorted(objects)))

    def __setattr__(self, name, value):
        if name.startswith("_") or name == "save_counter":
            object.__setattr__(self, name, value)
        else:
            self._objects[name] = value

    @property
    def save_counter(self):
        """The number of the last numbered save (`save`, `CheckpointManager.save`); restored from
        the file. An int64 Variable when executing eagerly, as in TensorFlow; an int otherwise."""
        if not _context.executing_eagerly_outside_functions():
            return self._counter
        if self._counter_var is None:
            with _context.init_scope():
                object.__setattr__(self, "_counter_var", Variable(np.int64(self._counter), trainable=False,
                                                                  name="save_counter"))
        return self._counter_var

    def _set_counter(self, n):
        object.__setattr__(self, "_counter", int(n))
        if self._counter_var is not None:
            with _context.init_scope():
                self._counter_var.assign(np.int64(n), read_value=False)

    def _variables(self):
        out = {}
        seen = set()
        for name in sorted(self._objects):
            _collect(name, self._objects[name], out, seen)
        return out

    @staticmethod
    def _session(session):
        session = session or get_default_session()
        if session is None:
            raise ValueError("Checkpoint needs a session for graph variables: pass session= or use "
                             "`with sess.as_default():`")
        return session

    def write(self, path, session=None):
        """Saves every tracked variable's current value to ``path`` (``.safetensors`` is appended
        when missing); returns the path written. Eager variables need no session."""
        path = _management.file_path(path)
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        variables, states = _split_states(self._variables())
        eager = [k for k, v in variables.items() if v._eager]
        values = {k: np.asarray(variables[k].numpy()) for k in eager}
        for key, obj in states.items():
            values.update(("%s/%s" % (key, name), np.asarray(a)) for name, a in obj._serialize_to_tensors().items())
        graph = {k: v.value() for k, v in variables.items() if not v._eager}
        if graph:
            values.update(self._session(session).run(graph))
        safetensors_io.save_file(values, path, metadata={"format": FORMAT, _COUNTER_KEY: str(self._counter)})
        return path

    def save(self, file_prefix, session=None):
        """Writes ``<file_prefix>-<n>.safetensors``, n being the incremented `save_counter`, and
        records it in the directory's ``checkpoint`` file for `latest_checkpoint`; returns the path."""
        self._set_counter(self._counter + 1)
        path = self.write("%s-%d" % (os.fspath(file_prefix), self._counter), session)
        _management.record_latest(path, keep_previous=False)
        return path

    def read(self, save_path, session=None):
        """Restores from ``save_path`` without touching `save_counter`; returns the load status."""
        return self._restore(save_path, session, restore_counter=False)

    def restore(self, save_path, session=None):
        """Assigns the tracked variables the file holds (and `save_counter`); returns a
        `CheckpointLoadStatus` telling what matched. ``None`` restores nothing (a fresh start).
        A value whose dtype or shape does not fit its variable is a ValueError listing every
        mismatch, and then nothing is assigned. Eager variables need no session."""
        return self._restore(save_path, session, restore_counter=True)

    def _restore(self, save_path, session, restore_counter):
        variables, states = _split_states(self._variables())
        if save_path is None:
            return InitializationOnlyStatus(variables)
        path = _management.file_path(save_path, must_exist=True)
        values = safetensors_io.load_file(path)
        state_values = {k: {f[len(k) + 1:]: values.pop(f) for f in sorted(values) if f.startswith(k + "/")}
                        for k in states}
        matched = sorted(set(variables) & set(values))
        problems = []
        for key in matched:
            v, a = variables[key], values[key]
            if np.dtype(a.dtype) != np.dtype(v.dtype.as_numpy_dtype):
                problems.append("%s: file has dtype %s, variable %s has %s" % (key, a.dtype, v.name, v.dtype.name))
            elif not v.shape.is_compatible_with(a.shape):
                problems.append("%s: file has shape %s, variable %s has shape %s"
                                % (key, list(a.shape), v.name, v.shape))
        if problems:
            raise ValueError("cannot restore %s:\n  %s" % (path, "\n  ".join(problems)))
        self._assign({k: variables[k] for k in matched}, values, session)
        for key, obj in states.items():
            if state_values[key]:
                obj._restore_from_tensors(state_values[key])
        if restore_counter:
            counter = safetensors_io.load_metadata(path).get(_COUNTER_KEY)
            if counter is not None and counter.isdigit():
                self._set_counter(int(counter))
        restored = {k for k in states if state_values[k]}
        return CheckpointLoadStatus(path, (set(variables) - set(values)) | (set(states) - restored),
                                    set(values) - set(variables), len(matched) + len(restored))

    def _assign(self, variables, values, session):
        graph = {}
        for key, v in variables.items():
            if v._eager:
                v.assign(values[key], read_value=False)
            else:
                graph[key] = v
        if not graph:
            return
        session = self._session(session)
        feeds, ops = {}, []
        for key, v in graph.items():
            if key not in self._restore_ops:
                with v.graph.as_default(), v.graph.name_scope("restore"):
                    ph = placeholder(v.dtype, v.shape)
                    self._restore_ops[key] = (ph, v.assign(ph, read_value=False))
            ph, op = self._restore_ops[key]
            feeds[ph] = values[key]
            ops.append(op)
        session.run(ops, feeds)
