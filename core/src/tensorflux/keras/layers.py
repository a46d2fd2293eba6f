"""``tx.keras.layers``: the layers (one family per file under tensorflux/_src/keras/layers/)."""

from tensorflux._src.keras.input_spec import InputSpec
from tensorflux._src.keras.keras_tensor import Input, InputLayer
from tensorflux._src.keras.layer import Layer
from tensorflux._src.keras.layers.activation_layers import ELU, LeakyReLU, PReLU, ReLU, Softmax
from tensorflux._src.keras.layers.attention import AdditiveAttention, Attention, MultiHeadAttention
from tensorflux._src.keras.layers.conv import (Conv1D, Conv1DTranspose, Conv2D, Conv2DTranspose, Conv3D,
                                               Conv3DTranspose, DepthwiseConv2D, SeparableConv2D)
from tensorflux._src.keras.layers.core import (Activation, ActivityRegularization, Dense, Dropout, EinsumDense,
                                               Embedding, Identity, Lambda, Masking)
from tensorflux._src.keras.layers.merging import (Add, Average, Concatenate, Dot, Maximum, Minimum, Multiply,
                                                  Subtract, add, average, concatenate, dot, maximum, minimum,
                                                  multiply, subtract)
from tensorflux._src.keras.layers import ops_layers as _ops_layers  # noqa: F401 (registers Keras's graph ops)
from tensorflux._src.keras.layers.normalization import (BatchNormalization, GroupNormalization, LayerNormalization,
                                                        RMSNormalization, UnitNormalization)
from tensorflux._src.keras.layers.pooling import (AveragePooling1D, AveragePooling2D, AveragePooling3D,
                                                  GlobalAveragePooling1D, GlobalAveragePooling2D,
                                                  GlobalAveragePooling3D, GlobalMaxPooling1D, GlobalMaxPooling2D,
                                                  GlobalMaxPooling3D, MaxPooling1D, MaxPooling2D, MaxPooling3D)
from tensorflux._src.keras.layers.category_encoding import CategoryEncoding
from tensorflux._src.keras.layers.hashing import Hashing
from tensorflux._src.keras.layers.image_preprocessing import Resizing
from tensorflux._src.keras.layers.lookup import IntegerLookup, StringLookup
from tensorflux._src.keras.layers.preprocessing import Normalization, Rescaling
from tensorflux._src.keras.layers.text_vectorization import TextVectorization
from tensorflux._src.keras.layers.reshaping import (Cropping1D, Cropping2D, Cropping3D, Flatten, Permute,
                                                    RepeatVector, Reshape, UpSampling1D, UpSampling2D, UpSampling3D,
                                                    ZeroPadding1D, ZeroPadding2D, ZeroPadding3D)
from tensorflux._src.keras.layers.rnn import GRU, LSTM, RNN, SimpleRNN
from tensorflux._src.keras.layers.rnn_cells import GRUCell, LSTMCell, SimpleRNNCell, StackedRNNCells
from tensorflux._src.keras.layers.regularization import (AlphaDropout, GaussianDropout, GaussianNoise,
                                                         SpatialDropout1D, SpatialDropout2D, SpatialDropout3D)
from tensorflux._src.keras.layers.wrappers import Bidirectional, TimeDistributed, Wrapper
from tensorflux._src.module_getattr import module_getattr as _module_getattr

# Keras's short aliases.
MaxPool1D, MaxPool2D, MaxPool3D = MaxPooling1D, MaxPooling2D, MaxPooling3D
AvgPool1D, AvgPool2D, AvgPool3D = AveragePooling1D, AveragePooling2D, AveragePooling3D
GlobalAvgPool1D, GlobalAvgPool2D = GlobalAveragePooling1D, GlobalAveragePooling2D
GlobalAvgPool3D = GlobalAveragePooling3D
GlobalMaxPool1D, GlobalMaxPool2D, GlobalMaxPool3D = GlobalMaxPooling1D, GlobalMaxPooling2D, GlobalMaxPooling3D
Convolution1D, Convolution2D, Convolution3D = Conv1D, Conv2D, Conv3D
Convolution1DTranspose, Convolution2DTranspose, Convolution3DTranspose = (Conv1DTranspose, Conv2DTranspose,
                                                                          Conv3DTranspose)
SeparableConvolution2D = SeparableConv2D



def serialize(layer):
    """Keras 3's config dict of a layer."""
    from tensorflux._src.keras.functional import serialize_layer
    return serialize_layer(layer)


def deserialize(config, custom_objects=None):
    """The layer a Keras config dict describes."""
    from tensorflux._src.keras.functional import deserialize_layer
    return deserialize_layer(config, custom_objects)


__all__ = ["Activation", "ActivityRegularization", "Add", "AdditiveAttention", "AlphaDropout", "Attention", "Average",
           "AveragePooling1D", "AveragePooling2D", "AveragePooling3D", "AvgPool1D", "AvgPool2D", "AvgPool3D",
           "BatchNormalization", "Bidirectional", "CategoryEncoding", "Concatenate", "Conv1D", "Conv1DTranspose",
           "Conv2D", "Conv2DTranspose", "Conv3D", "Conv3DTranspose", "Convolution1D", "Convolution1DTranspose",
           "Convolution2D", "Convolution2DTranspose", "Convolution3D", "Convolution3DTranspose", "Cropping1D",
           "Cropping2D", "Cropping3D", "Dense", "DepthwiseConv2D", "Dot", "Dropout", "ELU", "EinsumDense", "Embedding",
           "Flatten", "GRU", "GRUCell", "GaussianDropout", "GaussianNoise", "GlobalAveragePooling1D",
           "GlobalAveragePooling2D", "GlobalAveragePooling3D", "GlobalAvgPool1D", "GlobalAvgPool2D", "GlobalAvgPool3D",
           "GlobalMaxPool1D", "GlobalMaxPool2D", "GlobalMaxPool3D", "GlobalMaxPooling1D", "GlobalMaxPooling2D",
           "GlobalMaxPooling3D", "GroupNormalization", "Hashing", "Identity", "Input", "InputLayer", "InputSpec",
           "IntegerLookup", "LSTM", "LSTMCell", "Lambda", "Layer", "LayerNormalization", "LeakyReLU", "Masking",
           "MaxPool1D", "MaxPool2D", "MaxPool3D", "MaxPooling1D", "MaxPooling2D", "MaxPooling3D", "Maximum", "Minimum",
           "MultiHeadAttention", "Multiply", "Normalization", "PReLU", "Permute", "RMSNormalization", "RNN", "ReLU",
           "RepeatVector", "Rescaling", "Reshape", "Resizing", "SeparableConv2D", "SeparableConvolution2D", "SimpleRNN",
           "SimpleRNNCell", "Softmax", "SpatialDropout1D", "SpatialDropout2D", "SpatialDropout3D", "StackedRNNCells",
           "StringLookup", "Subtract", "TextVectorization", "TimeDistributed", "UnitNormalization", "UpSampling1D",
           "UpSampling2D", "UpSampling3D", "Wrapper", "ZeroPadding1D", "ZeroPadding2D", "ZeroPadding3D", "add",
           "average", "concatenate", "deserialize", "dot", "maximum", "minimum", "multiply", "serialize", "subtract"]

__getattr__ = _module_getattr(__name__)
