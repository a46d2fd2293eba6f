"""Iterator state: a flat mapping of names to NumPy arrays, written by each pipeline node under its
own path, serialised as an ``.npz`` archive without pickles (Note [Iterator state])."""

# Note [Iterator state]: every node iterator saves only what resuming needs: a source its offset or
# index, a shuffle its buffer and its RNG state, a window its buffer, a map its element
# counter and its finished but not yet returned results (Note [Cross-mode states]), an interleave its open
# sub-iterators with their read-ahead buffers (Note [Parallel interleave]), a Python source
# (generator) the number of elements it yielded (resuming recomputes them: the function must be
# pure). Buffers hold elements, never whole epochs; a random-access source saves an index, not data.
# The archive also holds the pipeline's fingerprint so restoring into another pipeline is refused.
# Buffered results are recorded with their errors (class and message), raised again at their position.

# Note [Cross-mode states]: a transformation saves one layout whichever iterator runs it, so a state
# saved in the fast (threaded) mode restores in debug mode and the other way round. The sequential
# iterators read the threaded ones' buffers and return their items first: a map's state is its
# finished results (the parallel map's in-flight work), the input elements read but not yet mapped
# with their indices (a restored state's, Note [Fused batches]), its input counter
# and whether its input ended; a prefetch's is its queue and the same end flag; a fused
# map-and-batch saves the map's layout, as the unfused pair does (a batch never holds a partial
# batch between two calls, Note [Batch errors]); an interleave saves one layout in every mode
# (Note [Parallel interleave]); shuffle has one iterator.

import builtins
import io
import json

import numpy as np

import tensorflux as tx


def _bad_state(message):
    return tx.errors.InvalidArgumentError(None, None, "cannot restore the iterator: " + message)


class StateWriter:
    """Collects a node's state under ``prefix`` in the shared ``arrays`` dict."""

    def __init__(self, arrays, prefix=""):
        self._arrays, self._prefix = arrays, prefix

    def child(self, name):
        return StateWriter(self._arrays, "%s%s/" % (self._prefix, name))

    def put(self, name, value):
        value = np.asarray(value)
        if value.dtype == object:
            data = [bytes(v) for v in value.reshape(-1)]
            self._arrays[self._prefix + name + "#bytes"] = np.frombuffer(b"".join(data), np.uint8)
            self._arrays[self._prefix + name + "#lengths"] = np.array([len(d) for d in data], np.int64)
            self._arrays[self._prefix + name + "#shape"] = np.array(value.shape, np.int64)
        else:
            self._arrays[self._prefix + name] = value

    def put_json(self, name, obj):
        self.put(name, np.frombuffer(json.dumps(obj).encode(), np.uint8))

    def put_elements(self, name, elements):
        """A list of elements (flat tuples of arrays)."""
        self.put(name + ".count", len(elements))
        for i, element in enumerate(elements):
            self.put_element("%s.%d" % (name, i), element)

    def put_element(self, name, element):
        self.put(name + ".n", len(element))
        for j, a in enumerate(element):
            self.put("%s.%d" % (name, j), a)

    def put_results(self, name, results):
        """A list of finished results, (element, None) or (None, exception): the elements, and each
        error's class name and message (restored as the same class where it is a tx.errors or
        built-in one)."""
        self.put_elements(name, [() if e is not None else x for x, e in results])
        self.put_json(name + ".errors", {str(i): [type(e).__name__, getattr(e, "message", None) or str(e)]
                                         for i, (_, e) in enumerate(results) if e is not None})


class StateReader:
    """Reads what a StateWriter wrote under the same paths."""

    def __init__(self, arrays, prefix=""):
        self._arrays, self._prefix = arrays, prefix

    def child(self, name):
        return StateReader(self._arrays, "%s%s/" % (self._prefix, name))

    def get(self, name):
        key = self._prefix + name
        if key in self._arrays:
            return self._arrays[key]
        if key + "#bytes" in self._arrays:
            data = self._arrays[key + "#bytes"].tobytes()
            lengths, shape = self._arrays[key + "#lengths"], self._arrays[key + "#shape"]
            ends = np.cumsum(lengths)
            out = np.empty(len(lengths), object)
            for i, (s, e) in enumerate(zip(ends - lengths, ends)):
                out[i] = data[s:e]
            return out.reshape(tuple(shape))
        raise _bad_state("the state has no entry %r" % key)

    def get_int(self, name):
        return int(self.get(name))

    def get_json(self, name):
        return json.loads(self.get(name).tobytes().decode())

    def get_elements(self, name):
        return [self.get_element("%s.%d" % (name, i)) for i in range(self.get_int(name + ".count"))]

    def get_element(self, name):
        return tuple(self.get("%s.%d" % (name, j)) for j in range(self.get_int(name + ".n")))

    def get_results(self, name):
        """What put_results wrote: a list of (element, None) or (None, exception)."""
        errors = {int(k): _error(*v) for k, v in self.get_json(name + ".errors").items()}
        return [(None, errors[i]) if i in errors else (x, None) for i, x in enumerate(self.get_elements(name))]


def _error(kind, message):
    """An exception of the class named ``kind`` with ``message`` (InvalidArgumentError naming the class
    when it is neither a tx.errors class nor a built-in exception)."""
    cls = getattr(tx.errors, kind, None)
    if isinstance(cls, type) and issubclass(cls, tx.errors.OpError):
        return cls(None, None, message)
    cls = getattr(builtins, kind, None)
    if isinstance(cls, type) and issubclass(cls, Exception):
        return cls(message)
    return tx.errors.InvalidArgumentError(None, None, "%s: %s" % (kind, message))


def encode(arrays):
    """The bytes of a state mapping (an .npz archive, no pickled objects)."""
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


def decode(data):
    """The state mapping of ``encode``'s bytes; InvalidArgumentError for anything else."""
    try:
        with np.load(io.BytesIO(bytes(data)), allow_pickle=False) as z:
            return {k: z[k] for k in z.files}
    except (ValueError, OSError, EOFError) as e:
        raise _bad_state("the bytes are not a saved iterator state (%s)" % e) from None


bad_state = _bad_state
