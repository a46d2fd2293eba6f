"""Writing the files the pipeline reads: `TFRecordWriter` and `TFRecordOptions` (tf.io's names).

>>> import tensorflux_data as txd
>>> txd.io.TFRecordOptions("GZIP").compression_type
'GZIP'
"""

from tensorflux_data._tfrecord import TFRecordOptions, TFRecordWriter

__all__ = ["TFRecordOptions", "TFRecordWriter"]
