"""Keras tutorials' code run with ``from tensorflux import keras`` in place of ``from tensorflow
import keras``, unchanged otherwise: the Sequential MNIST MLP (TensorFlow's beginner quickstart),
the MNIST convnet (keras.io "Simple MNIST convnet"), the functional multi-input/multi-output
model (keras.io "The Functional API": ticket ranking) and the bidirectional LSTM text classifier
(keras.io "Bidirectional LSTM on IMDB"). The data are synthetic (nothing is downloaded) and small,
with a learnable signal, so each test also checks that training learned something."""

import numpy as np
import pytest

pytestmark = pytest.mark.eager


def _digits_like(n, rng, shape=(28, 28)):
    """Images whose class is which quarter of the image is bright (learnable in a few steps)."""
    y = rng.integers(0, 10, n)
    x = rng.random((n,) + shape).astype("float32") * 0.2
    h, w = shape
    for i, label in enumerate(y):
        r, c = divmod(int(label), 4)
        x[i, r * h // 3:(r + 1) * h // 3, c * w // 4:(c + 1) * w // 4] += 0.8
    return x, y


def test_beginner_quickstart_mlp():
    from tensorflux import keras

    rng = np.random.default_rng(0)
    x_train, y_train = _digits_like(512, rng)
    x_test, y_test = _digits_like(128, rng)

    # --- tutorial code (tensorflow.org/tutorials/quickstart/beginner), tf.keras -> keras ---
    model = keras.models.Sequential([
        keras.layers.Flatten(input_shape=(28, 28)),
        keras.layers.Dense(128, activation='relu'),
        keras.layers.Dropout(0.2),
        keras.layers.Dense(10)
    ])
    predictions = model(x_train[:1]).numpy()
    keras.activations.softmax(predictions).numpy()
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    loss_fn(y_train[:1], predictions).numpy()
    model.compile(optimizer='adam', loss=loss_fn, metrics=['accuracy'])
    model.fit(x_train, y_train, epochs=5, verbose=0)
    loss, accuracy = model.evaluate(x_test, y_test, verbose=2)
    probability_model = keras.Sequential([model, keras.layers.Softmax()])
    probs = probability_model(x_test[:5])
    # --- end of tutorial code ---

    assert accuracy > 0.9
    np.testing.assert_allclose(np.asarray(probs).sum(-1), 1.0, rtol=1e-5)


def test_mnist_convnet():
    from tensorflux import keras
    from tensorflux.keras import layers

    rng = np.random.default_rng(1)
    x_train, y_train = _digits_like(384, rng)
    x_test, y_test = _digits_like(96, rng)

    # --- tutorial code (keras.io/examples/vision/mnist_convnet) ---
    num_classes = 10
    input_shape = (28, 28, 1)
    x_train = x_train.astype("float32")
    x_test = x_test.astype("float32")
    x_train = np.expand_dims(x_train, -1)
    x_test = np.expand_dims(x_test, -1)
    y_train = keras.utils.to_categorical(y_train, num_classes)
    y_test = keras.utils.to_categorical(y_test, num_classes)
    model = keras.Sequential(
        [
            keras.Input(shape=input_shape),
            layers.Conv2D(32, kernel_size=(3, 3), activation="relu"),
            layers.MaxPooling2D(pool_size=(2, 2)),
            layers.Conv2D(64, kernel_size=(3, 3), activation="relu"),
            layers.MaxPooling2D(pool_size=(2, 2)),
            layers.Flatten(),
            layers.Dropout(0.5),
            layers.Dense(num_classes, activation="softmax"),
        ]
    )
    model.summary()
    batch_size = 128
    epochs = 3
    model.compile(loss="categorical_crossentropy", optimizer="adam", metrics=["accuracy"])
    model.fit(x_train, y_train, batch_size=batch_size, epochs=epochs, validation_split=0.1, verbose=0)
    score = model.evaluate(x_test, y_test, verbose=0)
    print("Test loss:", score[0])
    print("Test accuracy:", score[1])
    # --- end of tutorial code ---

    assert score[1] > 0.5


def test_functional_multi_input_multi_output():
    from tensorflux import keras
    from tensorflux.keras import layers

    # --- tutorial code (keras.io/guides/functional_api, "Models with multiple inputs and outputs") ---
    num_tags = 12  # Number of unique issue tags
    num_words = 10000  # Size of vocabulary obtained when preprocessing text data
    num_departments = 4  # Number of departments for predictions

    title_input = keras.Input(shape=(None,), name="title")  # Variable-length sequence of ints
    body_input = keras.Input(shape=(None,), name="body")  # Variable-length sequence of ints
    tags_input = keras.Input(shape=(num_tags,), name="tags")  # Binary vectors of size `num_tags`

    # Embed each word in the title into a 64-dimensional vector
    title_features = layers.Embedding(num_words, 64)(title_input)
    # Embed each word in the text into a 64-dimensional vector
    body_features = layers.Embedding(num_words, 64)(body_input)

    # Reduce sequence of embedded words in the title into a single 128-dimensional vector
    title_features = layers.LSTM(128)(title_features)
    # Reduce sequence of embedded words in the body into a single 32-dimensional vector
    body_features = layers.LSTM(32)(body_features)

    # Merge all available features into a single large vector via concatenation
    x = layers.concatenate([title_features, body_features, tags_input])

    # Stick a logistic regression for priority prediction on top of the features
    priority_pred = layers.Dense(1, name="priority")(x)
    # Stick a department classifier on top of the features
    department_pred = layers.Dense(num_departments, name="department")(x)

    # Instantiate an end-to-end model predicting both priority and department
    model = keras.Model(
        inputs=[title_input, body_input, tags_input],
        outputs={"priority": priority_pred, "department": department_pred},
    )
    model.compile(
        optimizer=keras.optimizers.RMSprop(1e-3),
        loss={
            "priority": keras.losses.BinaryCrossentropy(from_logits=True),
            "department": keras.losses.CategoricalCrossentropy(from_logits=True),
        },
        loss_weights={"priority": 1.0, "department": 0.2},
    )

    # Dummy input data
    title_data = np.random.randint(num_words, size=(64, 10))
    body_data = np.random.randint(num_words, size=(64, 20))
    tags_data = np.random.randint(2, size=(64, num_tags)).astype("float32")

    # Dummy target data
    priority_targets = np.random.random(size=(64, 1))
    dept_targets = np.random.randint(2, size=(64, num_departments))

    history = model.fit(
        {"title": title_data, "body": body_data, "tags": tags_data},
        {"priority": priority_targets, "department": dept_targets},
        epochs=2,
        batch_size=32,
        verbose=0,
    )
    # --- end of tutorial code ---

    assert len(history.history["loss"]) == 2
    assert history.history["loss"][1] < history.history["loss"][0]
    out = model.predict({"title": title_data[:3], "body": body_data[:3], "tags": tags_data[:3]}, verbose=0)
    assert out["priority"].shape == (3, 1) and out["department"].shape == (3, num_departments)


def test_bidirectional_lstm_text_classifier():
    from tensorflux import keras
    from tensorflux.keras import layers

    rng = np.random.default_rng(2)
    max_features = 200  # Only consider the top 200 words (the tutorial: 20k; synthetic data here)
    maxlen = 16  # Only consider the first 16 words of each review (the tutorial: 200)

    def reviews(n):  # positive reviews use words 100..199, negative ones 1..99
        y = rng.integers(0, 2, n)
        lengths = rng.integers(5, 30, n)
        x = [list(rng.integers(100, 200, k) if label else rng.integers(1, 100, k)) for label, k in zip(y, lengths)]
        return x, y

    (x_train, y_train), (x_val, y_val) = reviews(1024), reviews(64)

    # --- tutorial code (keras.io/examples/nlp/bidirectional_lstm_imdb) ---
    # Input for variable-length sequences of integers
    inputs = keras.Input(shape=(None,), dtype="int32")
    # Embed each integer in a 128-dimensional vector
    x = layers.Embedding(max_features, 128)(inputs)
    # Add 2 bidirectional LSTMs
    x = layers.Bidirectional(layers.LSTM(64, return_sequences=True))(x)
    x = layers.Bidirectional(layers.LSTM(64))(x)
    # Add a classifier
    outputs = layers.Dense(1, activation="sigmoid")(x)
    model = keras.Model(inputs, outputs)
    model.summary()

    # Use pad_sequence to standardize sequence length:
    # this will truncate sequences longer than 200 words and zero-pad sequences shorter than 200 words.
    x_train = keras.utils.pad_sequences(x_train, maxlen=maxlen)
    x_val = keras.utils.pad_sequences(x_val, maxlen=maxlen)

    model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
    model.fit(x_train, y_train, batch_size=32, epochs=2, validation_data=(x_val, y_val), verbose=0)
    # --- end of tutorial code ---

    loss, accuracy = model.evaluate(x_val, y_val, verbose=0)
    assert accuracy > 0.8
