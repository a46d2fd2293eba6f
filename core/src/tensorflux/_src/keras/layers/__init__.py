"""The layers of ``tx.keras.layers``, one file per family."""
