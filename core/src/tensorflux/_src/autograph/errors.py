"""Errors raised while converted code runs point at the user's code: converted functions are
compiled under the user's file name and line numbers, so tracebacks show the user's lines, and
an error leaving a tx.function trace gets a note listing the converted frames it passed through
("in user code: File ..., line N, in f"), as TensorFlow reports it."""

import linecache
import types
import weakref

_user_codes = weakref.WeakSet()


def register(code):
    """Records ``code`` and the code objects nested in it as converted user code."""
    _user_codes.add(code)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            register(c)


def user_frames(exc):
    """(file, line, function) of the converted frames in ``exc``'s traceback, outermost first."""
    out = []
    tb = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if code in _user_codes:
            out.append((code.co_filename, tb.tb_lineno, code.co_name))
        tb = tb.tb_next
    return out


def annotate(exc):
    """Adds the "in user code" note to ``exc`` once (when it passed through converted code)."""
    if getattr(exc, "_tx_autograph_noted", False) or not hasattr(exc, "add_note"):
        return
    frames = user_frames(exc)
    if not frames:
        return
    lines = ["in user code:"]
    for filename, line, name in frames:
        lines.append('    File "%s", line %d, in %s' % (filename, line, _display_name(name)))
        text = linecache.getline(filename, line).strip()
        if text:
            lines.append("        " + text)
    try:
        exc.add_note("\n".join(lines))
        exc._tx_autograph_noted = True
    except (AttributeError, TypeError):
        pass


def _display_name(name):
    """The user's name for a code object (generated branch and loop functions are shown as the
    statement they come from)."""
    for prefix, what in (("ag__if_body", "<if branch>"), ("ag__else_body", "<else branch>"),
                         ("ag__loop_test", "<while test>"), ("ag__loop_body", "<while body>"),
                         ("ag__for_body", "<for body>"), ("ag__extra_test", "<loop test>")):
        if name.startswith(prefix):
            return what
    return name
