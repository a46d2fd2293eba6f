"""Conformance entries: the regex ops (against Python's `re` on patterns where RE2 and Python
agree; core/tests/test_strings_regex.py compares with TensorFlow's RE2 on thousands of cases), the
file ops, and the printing ops Print, PrintV2 and StringFormat."""

import os
import re
import tempfile

import numpy as np

import tensorflux as tx
from tensorflux._src.generated import gen_ops

from conformance.entries_strings import S, scalar
from conformance.harness import ErrorSample, OpEntry, Sample

_TEXTS = S("abc", "xaby", "", "2024-01-31", "aaa", "h\u00e9llo", "A1 b2 C3")
# (pattern, rewrite): patterns whose matches RE2 and Python's `re` agree on (no empty matches).
_REPLACE_CASES = [("a", "-"), ("(a)(b)", r"\2\1"), (r"(\d+)-(\d+)-(\d+)", r"\3/\2/\1"), ("[a-c]+", "<\\0>"),
                  (r"(?i)[a-z]\d", "#"), ("\u00e9", "e"), ("a|x", "")]


def _py(pattern, text, rewrite=None, count=0):
    p, t = pattern.decode() if isinstance(pattern, bytes) else pattern, text.decode()
    if rewrite is None:  # RE2's \d \w \s and \b are ASCII
        return re.fullmatch(p, t, flags=re.ASCII) is not None
    r = (rewrite.decode() if isinstance(rewrite, bytes) else rewrite).replace("\\0", "\\g<0>")
    return re.sub(p, r, t, count=count, flags=re.ASCII).encode()


def _map(x, fn, dtype=object):
    return np.array([fn(v) for v in x.reshape(-1).tolist()], dtype=dtype).reshape(x.shape)


def _replace_samples(static):
    out = []
    for pattern, rewrite in _REPLACE_CASES:
        for glob in (True, False):
            inputs = {"input": _TEXTS}
            attrs = {"replace_global": glob}
            if static:
                attrs.update(pattern=pattern, rewrite=rewrite)
            else:
                inputs.update(pattern=scalar(pattern), rewrite=scalar(rewrite))
            out.append(Sample(inputs, attrs, note=f"{pattern!r} -> {rewrite!r} global={glob}"))
    return out


def _replace_ref(input, pattern, rewrite, replace_global=True):  # noqa: A002
    pattern, rewrite = (v[()] if isinstance(v, np.ndarray) else v for v in (pattern, rewrite))
    return _map(input, lambda t: _py(pattern, t, rewrite, 0 if replace_global else 1))


def _full_samples(static):
    out = []
    for pattern in ["a.c", r"\d+-\d+-\d+", "", "(a|xa)(b|by)?y?", ".*", r"h\w+o", "[^ ]+( [a-z]\\d)*"]:
        out.append(Sample({"input": _TEXTS, **({} if static else {"pattern": scalar(pattern)})},
                          {"pattern": pattern} if static else {}, note=repr(pattern)))
    return out


def _full_ref(input, pattern):  # noqa: A002
    pattern = pattern[()] if isinstance(pattern, np.ndarray) else pattern
    return _map(input, lambda t: _py(pattern, t), np.bool_)


_DIR = tempfile.mkdtemp(prefix="tx-conformance-")
_FILE = os.path.join(_DIR, "data.bin")
with open(_FILE, "wb") as f:
    f.write(b"\x00bytes\xff and text\n")


def _write_build(sample):
    op = gen_ops.write_file(tx.constant(sample.inputs["filename"]), tx.constant(sample.inputs["contents"]))
    with tx.control_dependencies([op]):
        return [tx.identity(tx.constant(sample.inputs["contents"]))], {}


def _written(values, sample):
    path = sample.inputs["filename"][()].decode()
    with open(path, "rb") as f:
        assert f.read() == sample.inputs["contents"][()], path


def _print_v2_build(sample):
    path = sample.attrs["output_stream"][len("file://"):]
    if os.path.exists(path):
        os.remove(path)
    op = gen_ops.print_v2(tx.constant(sample.inputs["input"]), **sample.attrs)
    with tx.control_dependencies([op]):
        return [tx.identity(tx.constant(sample.inputs["input"]))], {}


def _printed(values, sample):
    with open(sample.attrs["output_stream"][len("file://"):], "rb") as f:
        assert f.read() == sample.inputs["input"][()] + sample.attrs.get("end", "\n").encode()


_FORMAT_CASES = [  # (template, inputs, summarize, TensorFlow 2.21's result)
    ("x={} y={}", [np.array([1.5, 2, 3, 4, 5, 6, 7], np.float32), scalar("s")], 3, b'x=[1.5 2 3 ... 5 6 7] y="s"'),
    ("{}", [S("a", 'b"\n')], 3, b'["a" "b\\"\\n"]'),
    ("{}", [np.arange(4, dtype=np.int64).reshape(2, 2)], 3, b"[[0 1]\n [2 3]]"),
    ("{}", [np.array([True, False])], 3, b"[1 0]"),
    ("{}", [np.arange(20, dtype=np.int32).reshape(4, 5)], 1, b"[[0 ... 4]\n ...\n [15 ... 19]]"),
    ("{}", [np.array([0.1, 1e10, 1 / 3], np.float32)], 3, b"[0.1 1e+10 0.333333343]"),
    ("{}", [np.array([0.1, 1e10, 1 / 3], np.float64)], 3, b"[0.1 10000000000 0.33333333333333331]"),
    ("{} and {}", [np.zeros((0,), np.float32), np.zeros((2, 0), np.float32)], 3, b"[] and [\n ...]"),
    ("{}", [np.arange(8, dtype=np.int32)], 0, b"[ ...]"),
    ("no inputs", [], 3, b"no inputs"),
]

ENTRIES = [
    OpEntry("StaticRegexReplace", _replace_samples(True), ref=_replace_ref, errors=[
        ErrorSample({"input": _TEXTS}, {"pattern": "(", "rewrite": ""}, match=r"Invalid pattern: \(, error: missing \)",
                    when="runtime")]),
    OpEntry("RegexReplace", _replace_samples(False), ref=_replace_ref, errors=[
        ErrorSample({"input": _TEXTS, "pattern": scalar("a**"), "rewrite": scalar("")},
                    match=r"Invalid pattern: a\*\*, error: bad repetition operator: \*\*", when="runtime"),
        ErrorSample({"input": _TEXTS, "pattern": S("a"), "rewrite": scalar("")}, match="[Pp]attern")]),
    OpEntry("StaticRegexFullMatch", _full_samples(True), ref=_full_ref, errors=[
        ErrorSample({"input": _TEXTS}, {"pattern": "[a"}, match=r"Invalid pattern: \[a, error: missing \]: \[a",
                    when="runtime")]),
    OpEntry("RegexFullMatch", _full_samples(False), ref=_full_ref, errors=[
        ErrorSample({"input": _TEXTS, "pattern": scalar(r"\q")}, match=r"invalid escape sequence: \\q",
                    when="runtime")]),
    OpEntry("ReadFile", [Sample({"filename": scalar(_FILE)})],
            ref=lambda filename: np.array(open(filename[()], "rb").read(), dtype=object), errors=[
                ErrorSample({"filename": scalar(os.path.join(_DIR, "missing"))}, error=tx.errors.NotFoundError,
                            match="No such file", when="runtime"),
                ErrorSample({"filename": S("a", "b")}, match="filename")]),
    OpEntry("WriteFile", [Sample({"filename": scalar(os.path.join(_DIR, "new", "dir", "out.bin")),
                                  "contents": scalar(b"\x00\x01 written")})],
            build=_write_build, check=_written, cross_check=False,
            errors=[ErrorSample({"filename": scalar(_FILE), "contents": S("a", "b")}, match="contents")]),
    OpEntry("PrintV2", [Sample({"input": scalar("to a file")}, {"output_stream": "file://" + os.path.join(_DIR, "p1")}),
                        Sample({"input": scalar(b"bytes \xff")},
                               {"output_stream": "file://" + os.path.join(_DIR, "p2"), "end": "|"}, note="end")],
            build=_print_v2_build, check=_printed, cross_check=False,
            errors=[ErrorSample({"input": scalar("x")}, {"output_stream": "nowhere"}, match="Unknown output stream",
                                when="runtime")]),
    OpEntry("Print", [Sample({"input": np.array([1.5, 2.0], np.float64), "data": [scalar("msg"), np.arange(5)]},
                             {"message": "values: ", "summarize": 2}),
                      Sample({"input": S("passes", "through"), "data": []}, {"first_n": 0}, note="first_n 0")],
            ref=lambda input, data, **attrs: input,
            grad_samples=[Sample({"input": np.array([1.5, -2.0], np.float64), "data": [scalar("m")]})],
            grad_inputs=["input"]),
    OpEntry("StringFormat", [Sample({"inputs": inputs}, {"template": t, "placeholder": "{}", "summarize": n},
                                    note=t) for t, inputs, n, _ in _FORMAT_CASES],
            ref=lambda inputs, template, placeholder, summarize: np.array(
                next(want for t, i, n, want in _FORMAT_CASES if t == template and n == summarize and len(i) == len(
                    inputs) and all(np.shape(a) == np.shape(b) and np.asarray(a).dtype == np.asarray(b).dtype
                                    and np.array_equal(a, b) for a, b in zip(i, inputs))), dtype=object),
            errors=[ErrorSample({"inputs": [np.arange(2)]}, {"template": "{} {}", "placeholder": "{}"},
                                match="num placeholders in template and num inputs must match: 2 vs. 1")]),
]
