"""The README's training demo: digits MLP >= 95% and CNN >= 97% test accuracy in graph mode and in
eager mode with tx.function, and the accuracy after restoring each checkpoint in a fresh process is
the same."""

import pathlib
import re
import subprocess
import sys

import pytest

pytest.importorskip("sklearn")
pytest.importorskip("tqdm")

DEMO = pathlib.Path(__file__).resolve().parents[2] / "tools" / "demo" / "digits.py"


def test_digits_demo_trains_saves_and_restores(tmp_path):
    out = subprocess.run([sys.executable, str(DEMO), "--dir", str(tmp_path)], capture_output=True, text=True,
                         check=True).stdout
    trained = dict(re.findall(r"^(\w+(?: \(eager\))?): test accuracy ([\d.]+) after", out, re.M))
    restored = dict(re.findall(r"^(\w+(?: \(eager\))?): test accuracy ([\d.]+) restored", out, re.M))
    assert sorted(trained) == ["CNN", "CNN (eager)", "MLP", "MLP (eager)"], out
    for mode in ("", " (eager)"):
        assert float(trained["MLP" + mode]) >= 0.95 and float(trained["CNN" + mode]) >= 0.97, out
    assert restored == trained, out
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "digits_cnn_eager.safetensors", "digits_cnn_graph.safetensors", "digits_mlp_eager.safetensors",
        "digits_mlp_graph.safetensors"]


KERAS_DEMO = DEMO.parent / "keras_digits.py"


def test_keras_digits_demo_fits_saves_and_reloads_in_a_fresh_process(tmp_path):
    out = subprocess.run([sys.executable, str(KERAS_DEMO), "--dir", str(tmp_path), "--epochs", "10"],
                         capture_output=True, text=True, check=True).stdout
    trained = re.search(r"^tx.keras CNN: test accuracy ([\d.]+) after (\d+) epochs", out, re.M)
    restored = re.search(r"^tx.keras CNN: test accuracy ([\d.]+) restored from digits_cnn.keras", out, re.M)
    assert trained and restored, out
    assert float(trained.group(1)) >= 0.95 and restored.group(1) == trained.group(1), out
    assert "Epoch 1/10" in out and "val_accuracy" in out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["digits_cnn.keras"]
