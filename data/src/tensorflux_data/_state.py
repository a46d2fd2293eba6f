"""Iterator state: a flat mapping of names to NumPy arrays, written by each pipeline node under its
own path, serialised as an ``.npz`` archive without pickles (Note [Iterator state])."""

# Note [Iterator state]: every node iterator saves only what resuming needs: a source its offset or
# index, a shuffle its buffer and its RNG state, a batch its partial batch, a map its element
# counter and (parallel) its finished but not yet returned results, a Python source (generator) the
# number of elements it yielded (resuming recomputes them: the function must be pure). Buffers hold
# elements, never whole epochs; a random-access source saves an index, not data. The archive also
# holds the pipeline's fingerprint so restoring into another pipeline is refused.

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
