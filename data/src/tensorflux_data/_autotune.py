"""AUTOTUNE: parallelism chosen from measured throughput (Note [Autotune])."""

# Note [Autotune]: a parallel map with num_parallel_calls=AUTOTUNE starts with one worker and, every
# WINDOW elements, compares the elements per second of the last window with the best seen: while
# a step up in workers pays (more than GAIN faster), it keeps stepping up (up to twice the CPU
# count); when a step does not pay, it goes back to the best level and stays there. Prefetch with
# AUTOTUNE grows its buffer (doubling, up to MAX_BUFFER) each time the consumer had to wait on an
# empty buffer. Neither changes which elements come out or in what order (deterministic mode
# keeps input order at any level).

import time

from tensorflux_data import _options

WINDOW = 64
GAIN = 1.05
MAX_BUFFER = 64


class Tuner:
    """A parallelism level climbed on measured throughput; ``value`` is the current level."""

    def __init__(self, high=None):
        self.value, self.high = 1, high or 2 * _options.default_parallelism()
        self._best_rate, self._best_value, self._frozen = 0.0, 1, False
        self._count, self._start = 0, None

    def record(self):
        """Counts one produced element; at the end of a window, moves the level."""
        if self._frozen:
            return
        if self._start is None:
            self._start = time.perf_counter()
            return
        self._count += 1
        if self._count < WINDOW:
            return
        rate = self._count / max(time.perf_counter() - self._start, 1e-9)
        self._count, self._start = 0, time.perf_counter()
        if rate > self._best_rate * GAIN:
            self._best_rate, self._best_value = rate, self.value
            if self.value < self.high:
                self.value += 1
            else:
                self._frozen = True
        else:
            self.value, self._frozen = self._best_value, True
