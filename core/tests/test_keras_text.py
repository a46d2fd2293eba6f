"""String preprocessing layers (StringLookup, IntegerLookup's options, TextVectorization, Hashing)
against Keras 3 on TensorFlow: same inputs, same outputs, same vocabulary order from `adapt`,
same configs; and their errors."""

import numpy as np
import pytest

import tensorflux as tx
from keras_parity import keras3

pytestmark = pytest.mark.eager

L = tx.keras.layers


def _config(layer):
    """A layer's config as JSON values, without its (generated) name."""
    import json
    return {k: v for k, v in json.loads(json.dumps(layer.get_config())).items() if k != "name"}
TEXT = np.array(["The cat sat on the mat.", "the dog, ran!  Fast", "A cat and a dog", "", "Ünïcode wörds, ça va?",
                 "the the the cat"])
WORDS = np.array([["a", "b", "zz", "c"], ["", "c", "c", "q"], ["b", "", "a", "a"]])


def _same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    if want.dtype.kind in "OSU":
        want = np.vectorize(lambda v: v.encode() if isinstance(v, str) else v, otypes=[object])(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    if want.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    else:
        assert got.tolist() == want.tolist()


def _vocab(v):
    return [x.decode() if isinstance(x, bytes) else (x.item() if hasattr(x, "item") else x) for x in v]


STRING_LOOKUP = {
    "int": dict(vocabulary=["a", "b", "c"]),
    "mask": dict(vocabulary=["a", "b", "c"], mask_token=""),
    "oov3": dict(vocabulary=["a", "b", "c"], num_oov_indices=3),
    "oov3_salt": dict(vocabulary=["a", "b", "c"], num_oov_indices=3, salt=[7, 11]),
    "oov3_mask": dict(vocabulary=["a", "b", "c"], num_oov_indices=3, mask_token=""),
    "specials_in_vocab": dict(vocabulary=["", "[UNK]", "a", "b"], mask_token=""),
    "one_hot": dict(vocabulary=["a", "b", "c"], output_mode="one_hot"),
    "multi_hot_mask": dict(vocabulary=["a", "b", "c"], output_mode="multi_hot", mask_token=""),
    "count": dict(vocabulary=["a", "b", "c"], output_mode="count"),
    "count_padded": dict(vocabulary=["a", "b", "c"], output_mode="count", max_tokens=7, pad_to_max_tokens=True),
    "tf_idf": dict(vocabulary=["a", "b", "c"], output_mode="tf_idf", idf_weights=[0.5, 1.5, 2.5]),
    "tf_idf_with_specials": dict(vocabulary=["[UNK]", "a", "b", "c"], output_mode="tf_idf",
                                 idf_weights=[0.1, 0.5, 1.5, 2.5]),
}


@pytest.mark.parametrize("name", sorted(STRING_LOOKUP))
@pytest.mark.parametrize("rank", [1, 2])
def test_string_lookup_matches_keras(name, rank):
    K = keras3()
    kwargs = STRING_LOOKUP[name]
    x = WORDS if rank == 2 else WORDS[1]
    ours, theirs = L.StringLookup(**kwargs), K.layers.StringLookup(**kwargs)
    _same(ours(x).numpy(), theirs(x))
    assert ours.get_vocabulary() == _vocab(theirs.get_vocabulary())
    assert ours.vocabulary_size() == theirs.vocabulary_size()
    assert _config(ours) == _config(theirs)


def test_string_lookup_invert_and_adapt_match_keras():
    K = keras3()
    for kwargs in (dict(), dict(mask_token="m"), dict(num_oov_indices=2)):
        ours = L.StringLookup(vocabulary=["a", "b", "c"], invert=True, **kwargs)
        theirs = K.layers.StringLookup(vocabulary=["a", "b", "c"], invert=True, **kwargs)
        ids = np.array([[0, 1, 2, 3], [4, 5, 9, -1]])
        _same(ours(ids).numpy(), theirs(ids))
    data = np.array([["b", "a", "c", "b"], ["d", "a", "b", "e"], ["a", "", "[UNK]", "é"]])
    for kwargs in (dict(), dict(max_tokens=4), dict(mask_token=""), dict(output_mode="tf_idf"),
                   dict(output_mode="tf_idf", max_tokens=5, pad_to_max_tokens=True)):
        ours, theirs = L.StringLookup(**kwargs), K.layers.StringLookup(**kwargs)
        ours.adapt(data)
        theirs.adapt(data)
        assert ours.get_vocabulary() == _vocab(theirs.get_vocabulary()), kwargs
        _same(ours(data).numpy(), theirs(data))
        assert _config(ours) == _config(theirs)
    batches = [data[:2], data[2:]]  # an iterable of batches: each batch's rows are documents
    ours, theirs = L.StringLookup(output_mode="tf_idf"), K.layers.StringLookup(output_mode="tf_idf")
    ours.adapt(iter(batches))
    theirs.adapt(iter(batches))
    _same(ours(data).numpy(), theirs(data))


INTEGER_LOOKUP = {
    "oov0": dict(vocabulary=[3, 7, 1], num_oov_indices=0),
    "oov3_floormod": dict(vocabulary=[3, 7, 1], num_oov_indices=3),
    "oov3_farmhash": dict(vocabulary=[3, 7, 1], num_oov_indices=3, oov_method="farmhash"),
    "oov3_farmhash_salt": dict(vocabulary=[3, 7, 1], num_oov_indices=3, oov_method="farmhash", salt=5),
    "mask_count": dict(vocabulary=[3, 7, 1], mask_token=0, output_mode="count"),
    "tf_idf": dict(vocabulary=[3, 7, 1], output_mode="tf_idf", idf_weights=[1.0, 2.0, 3.0]),
    "invert_mask": dict(vocabulary=[3, 7, 1], invert=True, mask_token=0),
}


@pytest.mark.parametrize("name", sorted(INTEGER_LOOKUP))
def test_integer_lookup_options_match_keras(name):
    K = keras3()
    kwargs = INTEGER_LOOKUP[name]
    x = np.array([[3, 7, 1, 3], [1, 1, 7, 3]]) if name == "oov0" else np.array([[3, 9, 0, 12], [-4, 1, 7, 100]])
    if kwargs.get("invert"):
        x = np.array([[0, 1, 2, 3], [4, 5, -1, 2]])
    ours, theirs = L.IntegerLookup(**kwargs), K.layers.IntegerLookup(**kwargs)
    _same(ours(x).numpy(), theirs(x))
    assert _config(ours) == _config(theirs)
    again = L.IntegerLookup.from_config(ours.get_config())
    _same(again(x).numpy(), theirs(x))


TEXT_VECTORIZATION = {
    "default": dict(),
    "max_tokens_seq": dict(max_tokens=8, output_sequence_length=4),
    "long_seq": dict(output_sequence_length=9),
    "lower": dict(standardize="lower"),
    "strip": dict(standardize="strip_punctuation"),
    "no_standardize": dict(standardize=None),
    "character": dict(split="character", max_tokens=20),
    "ngrams2": dict(ngrams=2),
    "ngrams_tuple": dict(ngrams=(1, 3), output_sequence_length=12),
    "multi_hot": dict(output_mode="multi_hot", max_tokens=10),
    "count_ngrams": dict(output_mode="count", ngrams=2),
    "tf_idf": dict(output_mode="tf_idf"),
    "tf_idf_padded": dict(output_mode="tf_idf", max_tokens=30, pad_to_max_tokens=True),
    "split_none": dict(split=None, output_sequence_length=2),
    "split_none_count": dict(split=None, output_mode="count"),
}


@pytest.mark.parametrize("name", sorted(TEXT_VECTORIZATION))
def test_text_vectorization_adapt_matches_keras(name):
    K = keras3()
    kwargs = TEXT_VECTORIZATION[name]
    ours, theirs = L.TextVectorization(**kwargs), K.layers.TextVectorization(**kwargs)
    ours.adapt(TEXT)
    theirs.adapt(TEXT)
    assert ours.get_vocabulary() == _vocab(theirs.get_vocabulary())
    probe = np.array(["the cat ran", "Fast fast dog!", "", "zzz ça"])
    for x in (TEXT, probe, probe[:, None]):
        _same(ours(x).numpy(), theirs(x))
    assert _config(ours) == _config(theirs)
    again = L.TextVectorization.from_config(ours.get_config())
    again.set_vocabulary(ours.get_vocabulary(), **({"idf_weights": ours._lookup_layer._idf[:ours.vocabulary_size()]}
                                                 if kwargs.get("output_mode") == "tf_idf" else {}))
    _same(again(probe).numpy(), theirs(probe))


def test_text_vectorization_given_vocabulary_callables_and_batches_match_keras():
    K = keras3()
    vocab = ["the", "cat", "dog", "the cat"]
    for kwargs in (dict(vocabulary=vocab, ngrams=2), dict(vocabulary=vocab, output_mode="multi_hot"),
                   dict(vocabulary=vocab, output_mode="tf_idf", idf_weights=[0.5, 1.0, 1.5, 2.0])):
        ours, theirs = L.TextVectorization(**kwargs), K.layers.TextVectorization(**kwargs)
        _same(ours(TEXT).numpy(), theirs(TEXT))
        assert _config(ours) == _config(theirs)
    import tensorflow as tf
    ours = L.TextVectorization(standardize=lambda s: tx.strings.regex_replace(s, "[aeiou]", ""),
                               split=lambda s: tx.strings.split(s, sep="t"))
    theirs = K.layers.TextVectorization(standardize=lambda s: tf.strings.regex_replace(s, "[aeiou]", ""),
                                        split=lambda s: tf.strings.split(s, sep="t"))
    ours.adapt(TEXT)
    theirs.adapt(TEXT)
    assert ours.get_vocabulary() == _vocab(theirs.get_vocabulary())
    _same(ours(TEXT).numpy(), theirs(TEXT))
    batches = [TEXT[:3], TEXT[3:]]
    ours, theirs = L.TextVectorization(output_mode="tf_idf"), K.layers.TextVectorization(output_mode="tf_idf")
    ours.adapt(iter(batches))
    theirs.adapt(iter(batches))
    _same(ours(TEXT).numpy(), theirs(TEXT))


HASHING = {
    "strings": (dict(num_bins=7), np.array([["a"], ["b"], ["hello world"], [""]])),
    "ints": (dict(num_bins=11), np.array([[1, 2], [-3, 123456789]])),
    "floats": (dict(num_bins=5), np.array([[1.5, -2.7], [3.0, 1e6]], np.float32)),
    "salt": (dict(num_bins=9, salt=133), np.array(["a", "b", "c", "d"])),
    "salt_pair": (dict(num_bins=9, salt=[1, 2]), np.array([[10, 20, 30]])),
    "mask_string": (dict(num_bins=4, mask_value=""), np.array([["", "x", "y", ""]])),
    "mask_int": (dict(num_bins=4, mask_value=0), np.array([[0, 5, 6, 0]])),
    "one_hot": (dict(num_bins=4, output_mode="one_hot"), np.array([["a"], ["b"], ["c"]])),
    "multi_hot": (dict(num_bins=6, output_mode="multi_hot"), np.array([["a", "b"], ["c", "c"]])),
    "count": (dict(num_bins=6, output_mode="count"), np.array([["a", "b", "a"], ["c", "c", "d"]])),
    "int32_out": (dict(num_bins=6, dtype="int32"), np.array(["a", "b"])),
    "python_list": (dict(num_bins=5), [["a"], ["bc"]]),
}


@pytest.mark.parametrize("name", sorted(HASHING))
def test_hashing_matches_keras(name):
    K = keras3()
    kwargs, x = HASHING[name]
    ours, theirs = L.Hashing(**kwargs), K.layers.Hashing(**kwargs)
    got, want = ours(x), theirs(x)
    _same(got.numpy(), want)
    assert got.dtype.name == want.dtype.name
    assert _config(ours) == _config(theirs)


def test_lookup_errors():
    lookup = L.StringLookup(vocabulary=["a", "b"], num_oov_indices=0)
    with pytest.raises(tx.errors.InvalidArgumentError, match="When `num_oov_indices=0` all inputs should be in "
                                                             "vocabulary, found OOV values"):
        lookup(tx.constant(["a", "zebra"]))
    assert lookup(tx.constant(["b", "a"])).numpy().tolist() == [1, 0]  # still usable
    with pytest.raises(ValueError, match="has no vocabulary: pass `vocabulary=` or call `adapt\\(\\)` first"):
        L.StringLookup()(tx.constant(["a"]))
    with pytest.raises(ValueError, match="repeated term.*\\['a'\\]"):
        L.StringLookup(vocabulary=["a", "b", "a"])
    with pytest.raises(ValueError, match="Found reserved mask token at unexpected location"):
        L.StringLookup(vocabulary=["a", ""], mask_token="")
    with pytest.raises(ValueError, match="larger than the maximum vocab size"):
        L.StringLookup(vocabulary=["a", "b", "c"], max_tokens=3)
    with pytest.raises(ValueError, match="`output_mode` must be `'int'` when `invert` is true"):
        L.StringLookup(invert=True, output_mode="count")
    with pytest.raises(ValueError, match="the `idf_weights` argument must also be provided"):
        L.StringLookup(vocabulary=["a"], output_mode="tf_idf")
    with pytest.raises(ValueError, match="`salt` can only be used when `oov_method='farmhash'`"):
        L.IntegerLookup(salt=3)
    with pytest.raises(ValueError, match="Cannot adapt layer"):
        L.StringLookup(vocabulary=["a"]).adapt(np.array(["a"]))
    with pytest.raises(ValueError, match="`output_sequence_length` must not be set"):
        L.TextVectorization(output_mode="count", output_sequence_length=3)
    with pytest.raises(ValueError, match="the last shape dimension must be 1"):
        L.TextVectorization(vocabulary=["a"])(tx.constant([["a", "b"]]))
    with pytest.raises(ValueError, match="The `num_bins` for `Hashing` cannot be"):
        L.Hashing(0)
    with pytest.raises(NotImplementedError, match="RaggedTensor"):
        L.TextVectorization(ragged=True)
    counted = L.StringLookup(vocabulary=["a"], output_mode="count")
    counted(tx.constant([["a"]]))
    with pytest.raises(RuntimeError, match="the vocabulary size cannot be changed after the layer is called"):
        counted.set_vocabulary(["a", "b"])


def test_lookups_in_traced_functions_and_graphs():
    tv = L.TextVectorization(vocabulary=["the", "cat"], output_sequence_length=3)
    f = tx.function(lambda s: tv(s))
    assert f(tx.constant(["the cat", "a cat sat"])).numpy().tolist() == [[2, 3, 0], [1, 3, 1]]
    g = tx.Graph()
    with g.as_default():
        s = tx.placeholder(tx.string, [None])
        ids = L.StringLookup(vocabulary=["x", "y"])(s)
        hashed = L.Hashing(5)(s)
    with tx.Session(graph=g) as sess:
        got, bins = sess.run([ids, hashed], {s: np.array(["y", "q", "x"])})
    assert got.tolist() == [2, 0, 1]
    assert bins.tolist() == tx.strings.to_hash_bucket_fast(["y", "q", "x"], 5).numpy().tolist()


def test_keras_made_files_with_text_layers_load(tmp_path):
    K = keras3()
    tv_tfidf = K.layers.TextVectorization(max_tokens=20, output_mode="tf_idf", ngrams=2)
    tv_tfidf.adapt(TEXT)
    tv_int = K.layers.TextVectorization(output_sequence_length=5)
    tv_int.adapt(TEXT)
    lookup = K.layers.StringLookup(output_mode="multi_hot", mask_token="")
    lookup.adapt(WORDS)
    ints = K.layers.IntegerLookup(num_oov_indices=2)
    ints.adapt(np.array([[4, 4, 9], [1, 4, 9]]))
    text = K.Input(shape=(), dtype="string")  # (Keras infers a wrong static shape for tf_idf of shape (1,))
    words = K.Input(shape=(4,), dtype="string")
    numbers = K.Input(shape=(3,), dtype="int64")
    hashed = K.layers.Hashing(8, salt=3, output_mode="count")(words)
    seq = K.layers.GlobalAveragePooling1D()(K.layers.Embedding(tv_int.vocabulary_size(), 3)(tv_int(text)))
    dense = K.layers.concatenate([tv_tfidf(text), seq, K.ops.cast(lookup(words), "float32"), hashed,
                                  K.ops.cast(ints(numbers), "float32")])
    model = K.Model([text, words, numbers], K.layers.Dense(2)(dense))
    path = str(tmp_path / "text.keras")
    model.save(path)
    ours = tx.keras.models.load_model(path)
    x = [TEXT[:3], WORDS, np.array([[4, 1, 7], [9, 9, 2], [0, 4, 4]])]
    import tensorflow as tf
    want = np.asarray(model([tf.constant(v) for v in x]))  # (Keras's predict takes no NumPy strings)
    np.testing.assert_allclose(ours.predict(x, verbose=0), want, rtol=1e-5, atol=1e-5)
    again = tmp_path / "again.keras"
    ours.save(again)  # and tx.keras writes the vocabularies where Keras does
    import zipfile
    names = set(zipfile.ZipFile(again).namelist())
    assert {n for n in zipfile.ZipFile(path).namelist() if n.startswith("assets/")} <= names
    reloaded = tx.keras.models.load_model(again)
    np.testing.assert_allclose(reloaded.predict(x, verbose=0), want, rtol=1e-5, atol=1e-5)


def test_adapted_layers_save_and_load(tmp_path):
    tv = L.TextVectorization(max_tokens=12, output_mode="tf_idf")
    tv.adapt(TEXT)
    inputs = tx.keras.Input((1,), dtype="string")
    model = tx.keras.Model(inputs, L.Dense(1)(tv(inputs)))
    model.save(tmp_path / "m.keras")
    again = tx.keras.models.load_model(tmp_path / "m.keras")
    assert again.layers[1].get_vocabulary() == tv.get_vocabulary()
    np.testing.assert_allclose(again.predict(TEXT[:, None], verbose=0), model.predict(TEXT[:, None], verbose=0),
                               rtol=1e-6)
    model.save_weights(tmp_path / "w.weights.safetensors")  # the idf weights are saved with the weights
    again.layers[1]._lookup_layer._idf = np.zeros_like(tv._lookup_layer._idf)
    again.load_weights(tmp_path / "w.weights.safetensors")
    np.testing.assert_allclose(again.layers[1]._lookup_layer._idf, tv._lookup_layer._idf)


def test_vocabulary_file_matches_keras(tmp_path):
    K = keras3()
    path = tmp_path / "vocab.txt"
    path.write_text("earth\nwind\nfire\n", encoding="utf-8")
    ours, theirs = L.StringLookup(vocabulary=str(path)), K.layers.StringLookup(vocabulary=str(path))
    x = np.array([["fire", "water"], ["earth", "wind"]])
    _same(ours(x).numpy(), theirs(x))
    assert ours.get_vocabulary() == _vocab(theirs.get_vocabulary())
    assert ours.get_config()["vocabulary"] is None and theirs.get_config()["vocabulary"] is None
    inputs = tx.keras.Input((2,), dtype="string")
    model = tx.keras.Model(inputs, ours(inputs))
    model.save(tmp_path / "m.keras")  # the file's vocabulary is saved as an asset, as Keras does
    np.testing.assert_array_equal(tx.keras.models.load_model(tmp_path / "m.keras").predict(x, verbose=0),
                                  np.asarray(theirs(x)))
