"""The implementation of ``tx.keras`` (docs/keras.md): layers, models, training, saving."""
