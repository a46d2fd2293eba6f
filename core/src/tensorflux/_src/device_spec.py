"""``tx.DeviceSpec``: an immutable device specification (job, replica, task, device type and
index), parsed from and written as TensorFlow's device strings ("/job:w/task:1/device:GPU:0")."""

from tensorflux._src import device as _device

_FIELDS = ("job", "replica", "task", "device_type", "device_index")


class DeviceSpec:
    """A (possibly partial) device: each of ``job``, ``replica``, ``task``, ``device_type`` and
    ``device_index`` may be None (unspecified); ``from_string``/``to_string`` convert, and
    ``make_merged_spec``/``replace`` return new specs (the object itself never changes).

    >>> spec = tx.DeviceSpec.from_string("/job:worker/task:1/device:gpu:0")
    >>> spec.device_type, spec.task, spec.replace(task=3).to_string()
    ('GPU', 1, '/job:worker/task:3/device:GPU:0')
    """

    __slots__ = ("_job", "_replica", "_task", "_device_type", "_device_index", "_string", "_hash")

    def __init__(self, job=None, replica=None, task=None, device_type=None, device_index=None):
        self._job = None if job is None else str(job)
        self._replica = _int_or_none(replica, "replica")
        self._task = _int_or_none(task, "task")
        self._device_type = None if device_type is None else _device._type(str(device_type))
        self._device_index = _int_or_none(device_index, "device_index")
        self._string = self._to_string()
        self._hash = hash(self._string)

    @classmethod
    def from_string(cls, spec):
        """The DeviceSpec that device string ``spec`` describes; ValueError when it is malformed."""
        try:
            fields = _device.parse(spec)
        except ValueError:
            part = next((p for p in spec.split("/") if p and p.split(":")[0].lower() not in
                         ("job", "replica", "task", "device", "cpu", "gpu", "tpu")), None)
            if part is not None:
                raise ValueError("Unknown attribute '%s' is encountered while parsing the device spec: '%s'."
                                 % (part.split(":")[0], spec)) from None
            raise
        return cls(**fields)

    def _to_string(self):
        out = []
        if self._job is not None:
            out.append("/job:%s" % self._job)
        if self._replica is not None:
            out.append("/replica:%d" % self._replica)
        if self._task is not None:
            out.append("/task:%d" % self._task)
        if self._device_type is not None:  # an index without a type is not written (as TensorFlow)
            out.append("/device:%s:%s" % (self._device_type, "*" if self._device_index is None
                                          else self._device_index))
        return "".join(out)

    def to_string(self):
        """The device string: the set fields in job, replica, task, device order ("" when none)."""
        return self._string

    def make_merged_spec(self, dev):
        """A new DeviceSpec with ``dev``'s set fields overriding this one's."""
        return self.__class__(**{f: getattr(dev, f) if getattr(dev, f) is not None else getattr(self, f)
                                 for f in _FIELDS})

    def replace(self, **kwargs):
        """A new DeviceSpec with the fields given as keyword arguments replaced."""
        unknown = set(kwargs) - set(_FIELDS)
        if unknown:
            raise TypeError("DeviceSpec.replace: unknown field(s) %s" % ", ".join(sorted(unknown)))
        fields = {f: getattr(self, f) for f in _FIELDS}
        fields.update(kwargs)
        return self.__class__(**fields)

    job = property(lambda self: self._job)
    replica = property(lambda self: self._replica)
    task = property(lambda self: self._task)
    device_type = property(lambda self: self._device_type)
    device_index = property(lambda self: self._device_index)

    def __eq__(self, other):
        return isinstance(other, DeviceSpec) and self._string == other._string

    def __hash__(self):
        return self._hash

    def __repr__(self):
        return "<DeviceSpec(%s)>" % ", ".join("%s=%s" % (f, getattr(self, f)) for f in _FIELDS)


def _int_or_none(value, what):
    if value is None or value == "*":
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        raise ValueError("DeviceSpec: %s must be an integer, got %r" % (what, value)) from None
