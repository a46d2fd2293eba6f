"""Thread pool sizes of the eager context (``tx.config.threading``, like ``tf.config.threading``)."""

from tensorflux._src.config import (get_inter_op_parallelism_threads, get_intra_op_parallelism_threads,
                                    set_inter_op_parallelism_threads, set_intra_op_parallelism_threads)

__all__ = ["get_inter_op_parallelism_threads", "get_intra_op_parallelism_threads",
           "set_inter_op_parallelism_threads", "set_intra_op_parallelism_threads"]
