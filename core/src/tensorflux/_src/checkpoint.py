"""`tx.train.Checkpoint` and `CheckpointManager`: all variables of a model, optimizer slots and
step counters saved to one safetensors file (written and read by the engine's C API, so any
front end can restore it; a tmp file renamed into place, so a crash never corrupts the last good
checkpoint)."""

import os
import re

import numpy as np

from tensorflux._src import safetensors_io
from tensorflux._src.session import get_default_session
from tensorflux._src.variables import Variable

FORMAT = "tensorflux-checkpoint-v1"


def _var_name(v):
    """A variable's name without the output index (graph: its op name)."""
    return v.name[:-2] if v._eager else v.op.name


def _collect(prefix, obj, out):
    """Adds {key: Variable} for ``obj``: a Variable, an optimizer (its variables()), or a
    list/tuple/dict of those."""
    if isinstance(obj, Variable):
        out[prefix] = obj
    elif hasattr(obj, "variables") and callable(obj.variables):
        for v in obj.variables():
            out["%s/%s" % (prefix, _var_name(v))] = v
    elif isinstance(obj, dict):
        for k, v in obj.items():
            _collect("%s/%s" % (prefix, k), v, out)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            if not isinstance(v, Variable):
                raise TypeError("Checkpoint: %s holds %r; lists may hold only Variables" % (prefix, v))
            out["%s/%s" % (prefix, _var_name(v))] = v
    else:
        raise TypeError("Checkpoint: cannot save %s of type %s (a Variable, an optimizer, or a list or dict of "
                        "Variables)" % (prefix, type(obj).__name__))


class Checkpoint:
    """``Checkpoint(model=[w, b], optimizer=opt, step=step_var)``: saves and restores the named
    objects' variables by key (``"model/dense/kernel"``, ``"optimizer/dense/kernel/Adam/..."``).

    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "ckpt.safetensors")
    >>> w = tx.Variable([1.0, 2.0], name="w")
    >>> _ = tx.train.Checkpoint(model=[w]).write(path)
    >>> _ = w.assign([0.0, 0.0])
    >>> _ = tx.train.Checkpoint(model=[w]).restore(path)
    >>> w.numpy()
    array([1., 2.], dtype=float32)
    """

    def __init__(self, **objects):
        if not objects:
            raise ValueError("Checkpoint needs at least one object to track")
        self._objects = objects
        self._restore_ops = {}  # key -> (placeholder, assign op), built on first restore
        self.save_counter = 0

    def _variables(self):
        out = {}
        for name, obj in sorted(self._objects.items()):
            _collect(name, obj, out)
        return out

    @staticmethod
    def _session(session):
        session = session or get_default_session()
        if session is None:
            raise ValueError("Checkpoint needs a session: pass session= or use `with sess.as_default():`")
        return session

    def write(self, path, session=None):
        """Saves every tracked variable's current value to ``path``; returns ``path``. Eager
        variables need no session."""
        variables = self._variables()
        if all(v._eager for v in variables.values()):
            values = {k: np.asarray(v.numpy()) for k, v in variables.items()}
        else:
            values = self._session(session).run({k: v.value() for k, v in variables.items()})
        safetensors_io.save_file(values, path, metadata={"format": FORMAT})
        return path

    def save(self, file_prefix, session=None):
        """Writes ``<file_prefix>-<n>.safetensors`` with n counting saves from 1; returns the path."""
        self.save_counter += 1
        return self.write("%s-%d.safetensors" % (file_prefix, self.save_counter), session)

    def restore(self, path, session=None):
        """Assigns every tracked variable from ``path`` in one step. Nothing is assigned unless
        the file holds exactly the tracked keys with matching shapes and dtypes; the error lists
        every missing, unexpected or mismatched entry. Eager variables need no session."""
        values = safetensors_io.load_file(path)
        variables = self._variables()
        eager = all(v._eager for v in variables.values())
        session = None if eager else self._session(session)
        problems = []
        for key in sorted(set(variables) - set(values)):
            problems.append("missing from the file: %s" % key)
        for key in sorted(set(values) - set(variables)):
            problems.append("not tracked by this checkpoint: %s" % key)
        for key in sorted(set(values) & set(variables)):
            v, a = variables[key], values[key]
            if np.dtype(a.dtype) != np.dtype(v.dtype.as_numpy_dtype):
                problems.append("%s: file has dtype %s, variable %s has %s" % (key, a.dtype, v.name, v.dtype.name))
            elif not v.shape.is_compatible_with(a.shape):
                problems.append("%s: file has shape %s, variable %s has shape %s"
                                % (key, list(a.shape), v.name, v.shape))
        if problems:
            raise ValueError("cannot restore %s:\n  %s" % (path, "\n  ".join(problems)))
        if eager:
            for key, v in variables.items():
                v.assign(values[key], read_value=False)
            return path
        feeds, ops = {}, []
        for key, v in variables.items():
            if key not in self._restore_ops:
                with v.graph.as_default(), v.graph.name_scope("restore"):
                    from tensorflux._src.array_ops import placeholder
                    ph = placeholder(v.dtype, v.shape)
                    self._restore_ops[key] = (ph, v.assign(ph, read_value=False))
            ph, op = self._restore_ops[key]
            feeds[ph] = values[key]
            ops.append(op)
        session.run(ops, feeds)
        return path


class CheckpointManager:
    """Saves ``checkpoint`` as ``<directory>/ckpt-<n>.safetensors`` and keeps the newest
    ``max_to_keep`` files.

    >>> import tempfile
    >>> directory = tempfile.mkdtemp()
    >>> w = tx.Variable([1.0])
    >>> manager = tx.train.CheckpointManager(tx.train.Checkpoint(model=[w]), directory, max_to_keep=2)
    >>> for _ in range(3):
    ...     _ = manager.save()
    ...
    >>> len(manager.checkpoints)
    2
    >>> manager.latest_checkpoint == tx.train.latest_checkpoint(directory)
    True
    """

    def __init__(self, checkpoint, directory, max_to_keep=5):
        if max_to_keep is not None and max_to_keep < 1:
            raise ValueError("max_to_keep must be >= 1 or None, got %r" % (max_to_keep,))
        self.checkpoint = checkpoint
        self.directory = os.fspath(directory)
        self.max_to_keep = max_to_keep
        os.makedirs(self.directory, exist_ok=True)

    @property
    def checkpoints(self):
        """Existing checkpoint paths, oldest first."""
        return _checkpoint_paths(self.directory)

    @property
    def latest_checkpoint(self):
        paths = self.checkpoints
        return paths[-1] if paths else None

    def save(self, session=None):
        """Writes the next checkpoint, deletes the oldest beyond max_to_keep; returns the path."""
        paths = self.checkpoints
        n = int(re.search(r"(\d+)\.safetensors$", paths[-1]).group(1)) + 1 if paths else 1
        path = self.checkpoint.write(os.path.join(self.directory, "ckpt-%d.safetensors" % n), session)
        if self.max_to_keep is not None:
            for old in self.checkpoints[:-self.max_to_keep]:
                os.remove(old)
        return path


def _checkpoint_paths(directory):
    """The ``ckpt-<n>.safetensors`` files in ``directory``, by increasing n."""
    found = []
    for name in os.listdir(directory):
        m = re.fullmatch(r"ckpt-(\d+)\.safetensors", name)
        if m:
            found.append((int(m.group(1)), os.path.join(directory, name)))
    return [p for _, p in sorted(found)]


def latest_checkpoint(directory):
    """The newest ``ckpt-<n>.safetensors`` in ``directory``, or None."""
    paths = _checkpoint_paths(directory) if os.path.isdir(directory) else []
    return paths[-1] if paths else None
