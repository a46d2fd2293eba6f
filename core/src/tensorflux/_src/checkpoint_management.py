"""Finding checkpoints: the ``checkpoint`` state file of a directory (TensorFlow's text format,
naming the newest save and those kept), `latest_checkpoint`, and `CheckpointManager`."""

import os
import re

from tensorflux._src import errors

SUFFIX = ".safetensors"
STATE_FILE = "checkpoint"  # TensorFlow's name for a directory's CheckpointState file
_NUMBERED = re.compile(r".+-(\d+)" + re.escape(SUFFIX))


def file_path(path, must_exist=False):
    """The checkpoint file for ``path``: a file path, or a prefix as `save` returns in
    TensorFlow (``.safetensors`` appended). With ``must_exist``, NotFoundError when neither exists."""
    path = os.fspath(path)
    if path.endswith(SUFFIX) or (must_exist and os.path.isfile(path)):
        return path
    if must_exist and not os.path.isfile(path + SUFFIX):
        raise errors.NotFoundError(None, None, "Checkpoint %s not found (no file %s%s)" % (path, path, SUFFIX))
    return path + SUFFIX


def _read_state(directory):
    """(newest, [all kept]) file names recorded in ``directory``'s state file, or (None, [])."""
    try:
        with open(os.path.join(directory, STATE_FILE), encoding="utf-8") as f:
            text = f.read()
    except OSError:
        return None, []
    newest = re.search(r'^model_checkpoint_path:\s*"(.*)"\s*$', text, re.M)
    kept = re.findall(r'^all_model_checkpoint_paths:\s*"(.*)"\s*$', text, re.M)
    return (newest.group(1) if newest else None), kept


def _write_state(directory, newest, kept):
    """Rewrites ``directory``'s state file atomically (names relative to the directory)."""
    lines = ['model_checkpoint_path: "%s"' % newest] + ['all_model_checkpoint_paths: "%s"' % k for k in kept]
    tmp = os.path.join(directory, STATE_FILE + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(tmp, os.path.join(directory, STATE_FILE))


def record_latest(path, max_to_keep=None, keep_previous=True):
    """Records checkpoint file ``path`` as its directory's newest, after the files already kept
    (``keep_previous``; `Checkpoint.save` records only its own, as TensorFlow's); returns the files
    dropped from the kept list when more than ``max_to_keep`` are kept (None: keep all)."""
    directory, name = os.path.split(os.path.abspath(path))
    _, kept = _read_state(directory) if keep_previous else (None, [])
    kept = [k for k in kept if k != name and os.path.isfile(os.path.join(directory, k))] + [name]
    dropped = []
    if max_to_keep is not None and len(kept) > max_to_keep:
        dropped, kept = kept[:-max_to_keep], kept[-max_to_keep:]
    _write_state(directory, name, kept)
    return [os.path.join(directory, d) for d in dropped]


def latest_checkpoint(checkpoint_dir):
    """The newest checkpoint file in ``checkpoint_dir``, whatever prefix saved it: the one its
    state file names, else the numbered ``<prefix>-<n>.safetensors`` with the largest n (the
    newest file among equals); None when there is none."""
    directory = os.fspath(checkpoint_dir)
    if not os.path.isdir(directory):
        return None
    newest, _ = _read_state(directory)
    if newest is not None and os.path.isfile(os.path.join(directory, newest)):
        return os.path.join(directory, newest)
    found = []
    for name in os.listdir(directory):
        m = _NUMBERED.fullmatch(name)
        if m:
            full = os.path.join(directory, name)
            found.append((int(m.group(1)), os.path.getmtime(full), full))
    return max(found)[2] if found else None


class CheckpointManager:
    """Saves ``checkpoint`` as ``<directory>/<checkpoint_name>-<n>.safetensors``, n being the
    checkpoint's `save_counter` (shared with `Checkpoint.save`), and keeps the newest
    ``max_to_keep`` files."""

    def __init__(self, checkpoint, directory, max_to_keep=5, checkpoint_name="ckpt"):
        if max_to_keep is not None and max_to_keep < 1:
            raise ValueError("max_to_keep must be >= 1 or None, got %r" % (max_to_keep,))
        self.checkpoint = checkpoint
        self.directory = os.fspath(directory)
        self.max_to_keep = max_to_keep
        self._prefix = os.path.join(self.directory, checkpoint_name)
        os.makedirs(self.directory, exist_ok=True)

    @property
    def checkpoints(self):
        """The kept checkpoint files, oldest first."""
        _, kept = _read_state(self.directory)
        return [p for p in (os.path.join(self.directory, k) for k in kept) if os.path.isfile(p)]

    @property
    def latest_checkpoint(self):
        """The newest kept checkpoint file, or None (pass it to `Checkpoint.restore`)."""
        paths = self.checkpoints
        return paths[-1] if paths else None

    def save(self, checkpoint_number=None, session=None):
        """Writes the next checkpoint (numbered ``checkpoint_number``, or the incremented save
        counter), deletes the oldest beyond max_to_keep; returns the path."""
        ckpt = self.checkpoint
        n = ckpt._counter + 1 if checkpoint_number is None else int(checkpoint_number)
        ckpt._set_counter(ckpt._counter + 1)
        path = ckpt.write("%s-%d" % (self._prefix, n), session)
        for old in record_latest(path, self.max_to_keep):
            if os.path.isfile(old):
                os.remove(old)
        return path
