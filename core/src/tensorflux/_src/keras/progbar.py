"""A Keras-style progress bar: ``12/60 ━━━━━━━━━━━━━━━━━━━━ 1s 21ms/step - accuracy: 0.91 - loss: 0.32``.

On a terminal it redraws one line (at most every 50 ms, and always at the end); otherwise it writes
only the final line of each epoch. verbose=2 writes one line per epoch without the bar.
"""

import os
import sys
import time


def _interactive(stream):
    if os.environ.get("TX_KERAS_PROGBAR_INTERACTIVE") is not None:
        return os.environ["TX_KERAS_PROGBAR_INTERACTIVE"] == "1"
    return hasattr(stream, "isatty") and stream.isatty()


def _format_value(v):
    if isinstance(v, float):
        a = abs(v)
        return ("%.4f" % v) if a == 0 or 1e-3 <= a < 1e4 else ("%.4e" % v)
    return str(v)


def _format_time(seconds):
    if seconds >= 3600:
        return "%d:%02d:%02d" % (seconds // 3600, (seconds % 3600) // 60, seconds % 60)
    if seconds >= 60:
        return "%d:%02d" % (seconds // 60, seconds % 60)
    return "%ds" % int(round(seconds))


def _per_step(seconds):
    if seconds >= 1:
        return "%ds/step" % round(seconds)
    if seconds >= 1e-3:
        return "%dms/step" % round(seconds * 1e3)
    return "%dus/step" % round(seconds * 1e6)


class Progbar:
    """Progress of ``target`` steps (None when unknown); ``update(step, values)`` with ``values`` a
    list of (name, float)."""

    WIDTH = 20

    def __init__(self, target, verbose=1, stream=None, unit="step"):
        self.target = target
        self.verbose = verbose
        self.stream = stream or sys.stdout
        self.interactive = _interactive(self.stream)
        self._start = time.perf_counter()
        self._last_draw = 0.0
        self._last_len = 0
        self._seen = 0

    def update(self, current, values=None, finalize=None):
        if finalize is None:
            finalize = self.target is not None and current >= self.target
        self._seen = current
        if self.verbose == 0:
            return
        now = time.perf_counter()
        elapsed = now - self._start
        if self.verbose == 2 or not self.interactive:
            if finalize:
                line = self._line(current, values, elapsed, bar=self.verbose == 1, done=True)
                self.stream.write(line + "\n")
                self.stream.flush()
            return
        if not finalize and now - self._last_draw < 0.05:
            return
        self._last_draw = now
        line = self._line(current, values, elapsed, bar=True, done=finalize)
        pad = max(0, self._last_len - len(line))
        self.stream.write("\r" + line + " " * pad + ("\n" if finalize else ""))
        self.stream.flush()
        self._last_len = len(line)

    def _line(self, current, values, elapsed, bar, done):
        parts = []
        if self.target is not None:
            width = len(str(self.target))
            count = "%*d/%d" % (width, current, self.target)
        else:
            count = "%d" % current
        if bar and self.target:
            filled = int(self.WIDTH * min(current, self.target) / self.target)
            count += " " + "\u2501" * filled + "\u2500" * (self.WIDTH - filled) if filled < self.WIDTH else \
                " " + "\u2501" * self.WIDTH
        parts.append(count)
        per_step = elapsed / max(current, 1)
        if done or self.target is None:
            parts.append("%s %s" % (_format_time(elapsed), _per_step(per_step)))
        else:
            parts.append("%s %s" % (_format_time(per_step * (self.target - current)), _per_step(per_step)))
        line = " ".join(parts) if self.verbose == 1 else " - ".join(parts)
        for name, value in values or []:
            line += " - %s: %s" % (name, _format_value(value))
        return line
