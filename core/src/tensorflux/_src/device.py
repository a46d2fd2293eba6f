"""Device strings: parsing ("/cpu:0", "/job:w/task:1/device:GPU:0"), merging nested scopes
and the canonical form ("/device:CPU:0") that operations record."""

import functools

_FIELDS = ("job", "replica", "task", "device_type", "device_index")


@functools.lru_cache(maxsize=256)
def parse(spec):
    """A dict of the fields ``spec`` sets; ValueError on malformed strings."""
    fields = {}
    for part in spec.split("/"):
        if not part:
            continue
        bits = part.split(":")
        key = bits[0].lower()
        if key in ("job", "replica", "task") and len(bits) == 2:
            fields[key] = bits[1] if key == "job" else _index(bits[1], spec)
        elif key == "device" and len(bits) == 3:
            fields["device_type"] = _type(bits[1])
            fields["device_index"] = _index(bits[2], spec)
        elif key == "device" and len(bits) == 2:
            fields["device_type"] = _type(bits[1])
        elif len(bits) == 2 and key in ("cpu", "gpu", "tpu"):
            fields["device_type"] = key.upper()
            fields["device_index"] = _index(bits[1], spec)
        elif len(bits) == 1 and key in ("cpu", "gpu", "tpu"):
            fields["device_type"] = key.upper()
        else:
            raise ValueError("Unknown device specification %r (part %r)" % (spec, part))
    return fields


def _type(t):
    return t.upper() if t.lower() in ("cpu", "gpu", "tpu") else t


def _index(text, spec):
    if text == "*":
        return None
    try:
        return int(text)
    except ValueError:
        raise ValueError("Malformed device index %r in %r" % (text, spec)) from None


def to_string(fields):
    out = []
    if fields.get("job") is not None:
        out.append("/job:%s" % fields["job"])
    if fields.get("replica") is not None:
        out.append("/replica:%d" % fields["replica"])
    if fields.get("task") is not None:
        out.append("/task:%d" % fields["task"])
    if fields.get("device_type") is not None:
        index = fields.get("device_index")
        out.append("/device:%s:%s" % (fields["device_type"], "*" if index is None else index))
    return "".join(out)


@functools.lru_cache(maxsize=256)
def merge(outer, inner):
    """The device an op gets inside scope ``inner`` nested in ``outer``: fields set by ``inner``
    override those of ``outer``."""
    fields = dict(parse(outer))
    fields.update(parse(inner))
    return to_string(fields)


def canonical(spec):
    """The canonical form of ``spec`` ("" stays "")."""
    return merge("", spec)
