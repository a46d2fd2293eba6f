"""`Dataset`: tf.data's API over the pipeline model of _base.py. Each method returns a new node;
the node classes live in the modules named by the lazy imports."""

import numpy as np

import tensorflux as tx

from tensorflux_data import _in_graph, _options
from tensorflux_data._base import DatasetNode, check_int

AUTOTUNE = _options.AUTOTUNE
INFINITE = _options.INFINITE_CARDINALITY
UNKNOWN = _options.UNKNOWN_CARDINALITY


class Dataset(DatasetNode):
    """A sequence of elements (each a structure of tensors) described as a pipeline of sources and
    transformations; iterating it runs the pipeline.

    >>> import tensorflux_data as txd
    >>> ds = txd.Dataset.range(10).filter(lambda x: x % 2 == 0).map(lambda x: x * 10).batch(2)
    >>> [b.numpy().tolist() for b in ds]
    [[0, 20], [40, 60], [80]]
    """

    # -- sources --------------------------------------------------------------------------------
    @staticmethod
    def from_tensor_slices(tensors, name=None):
        """One element per slice of ``tensors`` along their first dimension."""
        from tensorflux_data import _symbolic
        from tensorflux_data._sources import TensorSlicesDataset
        return _symbolic.tensor_slices(tensors) if _symbolic.is_symbolic(tensors) else TensorSlicesDataset(tensors)

    @staticmethod
    def from_tensors(tensors, name=None):
        """A single element: ``tensors``."""
        from tensorflux_data import _symbolic
        from tensorflux_data._sources import TensorsDataset
        return _symbolic.tensors_source(tensors) if _symbolic.is_symbolic(tensors) else TensorsDataset(tensors)

    @staticmethod
    def range(*args, output_type=tx.int64, name=None):
        """``start, stop, step`` as Python's range, as scalars of ``output_type``."""
        from tensorflux_data import _symbolic
        from tensorflux_data._sources import RangeDataset
        if _symbolic.is_symbolic(list(args)):
            return _symbolic.range_source(args, output_type)
        return RangeDataset(*args, dtype=output_type)

    @staticmethod
    def from_generator(generator, output_types=None, output_shapes=None, args=None, output_signature=None,
                       name=None):
        """Elements yielded by ``generator()`` (Python, under the GIL: the slow path), checked
        against ``output_signature``."""
        from tensorflux_data._sources import GeneratorDataset
        if output_signature is None:
            if output_types is None:
                raise TypeError("from_generator needs output_signature (or output_types)")
            shapes = output_shapes if output_shapes is not None else tx.nest.map_structure(lambda _: None,
                                                                                           output_types)
            output_signature = tx.nest.map_structure(lambda t, s: tx.TensorSpec(s, t), output_types, shapes)
        return GeneratorDataset(generator, output_signature, args)

    @staticmethod
    def list_files(file_pattern, shuffle=None, seed=None, name=None):
        """The files matching ``file_pattern`` (see `tensorflux_data.list_files`)."""
        from tensorflux_data._files import list_files
        return list_files(file_pattern, shuffle, seed)

    @staticmethod
    def zip(*datasets, name=None):
        """Elements of ``datasets`` side by side (a tuple, or the structure passed), until the
        shortest ends."""
        from tensorflux_data._combine import ZipDataset
        if len(datasets) == 1 and not isinstance(datasets[0], Dataset):
            datasets = datasets[0]
        return ZipDataset(datasets)

    @staticmethod
    def counter(start=0, step=1, dtype=tx.int64, name=None):
        """``start, start + step, ...`` without end, as scalars of ``dtype``."""
        kind = tx.as_dtype(dtype).as_numpy_dtype
        first, delta = np.array(start, kind), np.array(step, kind)
        return Dataset.from_tensors(np.array(0, np.int64)).repeat().scan(first, lambda s, _: (s + delta, s))

    @staticmethod
    def random(seed=None, rerandomize_each_iteration=None, name=None):
        """TensorFlow's pseudorandom int64 scalars in [0, 2**32), without end, bit for bit (Note
        [Random source]); with ``rerandomize_each_iteration`` each iteration and repeat epoch differs."""
        from tensorflux_data._sources import RandomDataset
        return RandomDataset(seed, rerandomize_each_iteration)

    @staticmethod
    def sample_from_datasets(datasets, weights=None, seed=None, stop_on_empty_dataset=False,
                             rerandomize_each_iteration=None):
        """Elements of ``datasets`` drawn at random with probabilities ``weights`` (a list, a tensor or
        a dataset of them; uniform when None): tf.data's choices for the same seed."""
        from tensorflux_data._combine import sample_from_datasets
        return sample_from_datasets(datasets, weights, seed, stop_on_empty_dataset, rerandomize_each_iteration)

    @staticmethod
    def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=True):
        """The element of ``datasets[i]`` for each ``i`` of ``choice_dataset`` (scalar int64); an
        ended dataset ends the output (``stop_on_empty_dataset``) or has its choices skipped."""
        from tensorflux_data._combine import ChooseDataset
        return ChooseDataset(datasets, choice_dataset, stop_on_empty_dataset)

    # -- transformations ------------------------------------------------------------------------
    def map(self, map_func, num_parallel_calls=None, deterministic=None, name=None):
        """``map_func`` applied to every element (traced once; ``num_parallel_calls`` workers)."""
        from tensorflux_data._map import MapDataset
        return MapDataset(self, map_func, num_parallel_calls, deterministic)

    def filter(self, predicate, name=None):
        """The elements for which ``predicate`` (a scalar bool function) is true."""
        from tensorflux_data._map import FilterDataset
        return FilterDataset(self, predicate)

    def take_while(self, predicate, name=None):
        """Elements up to (not including) the first for which ``predicate`` is false."""
        from tensorflux_data._map import TakeWhileDataset
        return TakeWhileDataset(self, predicate)

    def scan(self, initial_state, scan_func, name=None):
        """``scan_func(state, element) -> (state, output)`` carried along the elements."""
        from tensorflux_data._map import ScanDataset
        return ScanDataset(self, initial_state, scan_func)

    def batch(self, batch_size, drop_remainder=False, num_parallel_calls=None, deterministic=None, name=None):
        """Consecutive elements stacked ``batch_size`` at a time (the last batch may be smaller
        unless ``drop_remainder``); an error inside a batch drops the batch (Note [Batch errors])."""
        from tensorflux_data._batch import BatchDataset
        return BatchDataset(self, batch_size, drop_remainder, num_parallel_calls)

    def padded_batch(self, batch_size, padded_shapes=None, padding_values=None, drop_remainder=False, name=None):
        """Batches whose components are padded to ``padded_shapes`` (unknown dims: the batch's
        longest) with ``padding_values`` (0, or b"" for strings)."""
        from tensorflux_data._batch import PaddedBatchDataset
        return PaddedBatchDataset(self, batch_size, padded_shapes, padding_values, drop_remainder)

    def unbatch(self, name=None):
        """Each element split along its first dimension."""
        from tensorflux_data._batch import UnbatchDataset
        return UnbatchDataset(self)

    def rebatch(self, batch_size, drop_remainder=False, name=None):
        """The batched elements batched anew: ``unbatch().batch(n)`` with ``n`` cycling through
        ``batch_size`` (an int or a list of them), as tf.data's rebatch."""
        from tensorflux_data._batch import RebatchDataset
        return RebatchDataset(self, batch_size, drop_remainder)

    def unique(self, name=None):
        """The elements (one int32, int64 or string tensor each) not seen before, in order."""
        from tensorflux_data._select import UniqueDataset
        return UniqueDataset(self)

    def window(self, size, shift=None, stride=1, drop_remainder=False, name=None):
        """Elements grouped into windows, each a structure of datasets of ``size`` elements."""
        from tensorflux_data._batch import WindowDataset
        return WindowDataset(self, size, shift, stride, drop_remainder)

    def group_by_window(self, key_func, reduce_func, window_size=None, window_size_func=None, name=None):
        """Elements grouped by ``key_func`` (an int64 scalar); each window of ``window_size`` (or
        ``window_size_func(key)``) elements of a key, and each partial window at the end, becomes
        the dataset ``reduce_func(key, window)``, whose elements are emitted."""
        from tensorflux_data._grouping import GroupByWindowDataset
        return GroupByWindowDataset(self, key_func, reduce_func, window_size, window_size_func)

    def bucket_by_sequence_length(self, element_length_func, bucket_boundaries, bucket_batch_sizes,
                                  padded_shapes=None, padding_values=None, pad_to_bucket_boundary=False,
                                  no_padding=False, drop_remainder=False, name=None):
        """Batches of elements of similar length (buckets split at ``bucket_boundaries``), padded."""
        from tensorflux_data._grouping import bucket_by_sequence_length
        return bucket_by_sequence_length(self, element_length_func, bucket_boundaries, bucket_batch_sizes,
                                         padded_shapes, padding_values, pad_to_bucket_boundary, no_padding,
                                         drop_remainder)

    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=True, name=None):
        """Elements in random order drawn from a buffer of ``buffer_size`` (tf.data's algorithm)."""
        from tensorflux_data._shuffle import ShuffleDataset
        return ShuffleDataset(self, buffer_size, seed, reshuffle_each_iteration)

    def global_shuffle(self, seed=None, reshuffle_each_iteration=True, name=None):
        """All elements of a random-access source in a uniformly random order (no buffer; the
        iterator state is one position)."""
        from tensorflux_data._global_shuffle import GlobalShuffleDataset
        return GlobalShuffleDataset(self, seed, reshuffle_each_iteration)

    def repeat(self, count=None, name=None):
        """The elements ``count`` times (None or -1: forever)."""
        from tensorflux_data._select import RepeatDataset
        return RepeatDataset(self, -1 if count is None else check_int(count, "repeat count", -1))

    def take(self, count, name=None):
        """The first ``count`` elements (-1: all)."""
        from tensorflux_data._select import TakeDataset
        return TakeDataset(self, check_int(count, "take count", -1))

    def skip(self, count, name=None):
        """All but the first ``count`` elements (-1: skip all)."""
        from tensorflux_data._select import SkipDataset
        return SkipDataset(self, check_int(count, "skip count", -1))

    def shard(self, num_shards, index, name=None):
        """Every ``num_shards``-th element, starting at ``index``."""
        from tensorflux_data._select import ShardDataset
        return ShardDataset(self, num_shards, index)

    def enumerate(self, start=0, name=None):
        """``(index, element)`` pairs, the index an int64 counting from ``start``."""
        from tensorflux_data._select import EnumerateDataset
        return EnumerateDataset(self, check_int(start, "enumerate start"))

    def concatenate(self, dataset, name=None):
        """This dataset's elements, then ``dataset``'s (the structures and dtypes must match)."""
        from tensorflux_data._combine import ConcatenateDataset
        return ConcatenateDataset(self, dataset)

    def interleave(self, map_func, cycle_length=None, block_length=None, num_parallel_calls=None,
                   deterministic=None, name=None):
        """``map_func`` maps each element to a dataset; ``cycle_length`` of them are read
        round-robin, ``block_length`` elements at a time; with ``num_parallel_calls`` (an int or
        AUTOTUNE) they are read ahead on worker threads, in the same order unless ``deterministic``
        is False (Note [Parallel interleave] in _interleave.py).

        >>> import tensorflux_data as txd
        >>> ds = txd.Dataset.range(1, 4).interleave(lambda x: txd.Dataset.range(x * 10, x * 10 + 2),
        ...                                         cycle_length=2, num_parallel_calls=2)
        >>> [int(v) for v in ds]
        [10, 20, 11, 21, 30, 31]
        """
        from tensorflux_data._interleave import InterleaveDataset
        return InterleaveDataset(self, map_func, cycle_length, block_length, num_parallel_calls, deterministic)

    def flat_map(self, map_func, name=None):
        """``map_func`` maps each element to a dataset; their elements in order."""
        from tensorflux_data._interleave import InterleaveDataset
        return InterleaveDataset(self, map_func, 1, 1, None)

    def prefetch(self, buffer_size, name=None):
        """Elements produced ahead, up to ``buffer_size`` (AUTOTUNE: sized by the pipeline), on a
        background thread."""
        from tensorflux_data._shuffle import PrefetchDataset
        return PrefetchDataset(self, check_int(buffer_size, "prefetch buffer_size", 0, allow=(AUTOTUNE,)))

    def cache(self, filename="", name=None):
        """The elements kept after the first complete iteration, which later iterations read: in
        memory, or with ``filename`` in the file ``filename + ".txd-cache"`` that later pipelines
        and processes read too (a partial iteration writes nothing; Note [File cache])."""
        if hasattr(filename, "numpy"):
            filename = filename.numpy()
        if filename:
            from tensorflux_data._file_cache import FileCacheDataset
            return FileCacheDataset(self, filename)
        from tensorflux_data._shuffle import CacheDataset
        return CacheDataset(self)

    def ignore_errors(self, log_warning=False, name=None):
        """The elements whose production did not raise an error (those are dropped)."""
        from tensorflux_data._select import IgnoreErrorsDataset
        return IgnoreErrorsDataset(self, log_warning)

    def apply(self, transformation_func):
        """``transformation_func(self)``, which must return a dataset."""
        out = transformation_func(self)
        if not isinstance(out, Dataset):
            raise TypeError("apply: `transformation_func` must return a Dataset, got %r" % (out,))
        return out

    def with_options(self, options, name=None):
        """This dataset with ``options`` merged into its pipeline's options."""
        from tensorflux_data._select import OptionsDataset
        return OptionsDataset(self, options)

    def options(self):
        """The pipeline's merged `Options`."""
        return self._options_value

    # -- consuming ------------------------------------------------------------------------------
    def reduce(self, initial_state, reduce_func, name=None):
        """``reduce_func(state, element)`` folded over the elements from ``initial_state``."""
        from tensorflux_data._map import reduce_dataset
        return reduce_dataset(self, initial_state, reduce_func)

    def get_single_element(self, name=None):
        """The dataset's only element (InvalidArgumentError when it has none or more, as tf.data)."""
        return _in_graph.single_element(self)

    def cardinality(self):
        """The number of elements as an int64 scalar tensor; INFINITE (-1) or UNKNOWN (-2)."""
        return tx.constant(self._cardinality(), tx.int64)

    def __iter__(self):
        if _in_graph.in_graph():  # inside a tx.function: each run reads a fresh iterator
            return _in_graph.GraphIterator(self)
        from tensorflux_data._iterator import Iterator
        return Iterator(self)

    def __tx_graph_iter__(self):
        """`for x in dataset` inside a tx.function: one loop of the graph over a fresh iterator (Note
        [Iteration in graphs] in _in_graph.py)."""
        return _in_graph.GraphIterator(self)

    def __len__(self):
        n = self._cardinality()
        if n == INFINITE:
            raise TypeError("The dataset is infinite.")
        if n == UNKNOWN:
            raise TypeError("The dataset length is unknown.")
        return n

    def __bool__(self):
        return True

    def as_numpy_iterator(self):
        """The elements as NumPy values (same structure)."""
        for element in self:
            yield tx.nest.map_structure(lambda t: t.numpy(), element)

    def __repr__(self):
        return "<%s element_spec=%s>" % (type(self).__name__, self._element_spec)
