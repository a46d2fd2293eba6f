"""tx.train.Checkpoint / CheckpointManager: round trips of variables, optimizer slots and step
counters through safetensors files; mismatches and corrupt files are clear errors that assign
nothing."""

import os

import numpy as np
import pytest

import tensorflux as tx


def _model(seed=0):
    w = tx.Variable(tx.initializers.glorot_uniform(seed=seed)([4, 3]), name="dense/kernel")
    b = tx.Variable(tx.zeros([3]), name="dense/bias")
    x = tx.constant(np.random.default_rng(1).standard_normal((8, 4)).astype(np.float32))
    loss = tx.reduce_mean(tx.square(tx.matmul(x, w) + b))
    return w, b, loss


def test_round_trip_with_optimizer_slots(tmp_path):
    with tx.Graph().as_default():
        w, b, loss = _model()
        opt = tx.optimizers.Adam(0.1)
        train = opt.minimize(loss, [w, b])
        ckpt = tx.train.Checkpoint(model=[w, b], optimizer=opt)
        with tx.Session() as s:
            s.run(tx.global_variables_initializer())
            for _ in range(3):
                s.run(train)
            path = ckpt.save(str(tmp_path / "ckpt"), session=s)
            saved = s.run([w, b] + opt.variables())
            s.run(train)  # move on, then go back
            ckpt.restore(path, session=s)
            restored = s.run([w, b] + opt.variables())
            for a, c in zip(saved, restored):
                np.testing.assert_array_equal(a, c)
            assert s.run(opt.iterations) == 3
    keys = tx.train.load_safetensors(path)
    assert "model/dense/kernel" in keys and "optimizer/dense/kernel/Adam/0_scale_by_adam_m" in keys
    assert tx.train.load_safetensors_metadata(path)["format"] == "tensorflux-checkpoint-v1"


def test_restore_in_a_new_graph_continues_identically(tmp_path):
    def run(restore_from=None, save_to=None, steps=2):
        with tx.Graph().as_default():
            w, b, loss = _model(seed=5 if restore_from else 0)
            opt = tx.optimizers.SGD(0.1, momentum=0.9)
            train = opt.minimize(loss, [w, b])
            ckpt = tx.train.Checkpoint(model=[w, b], optimizer=opt)
            with tx.Session() as s:
                s.run(tx.global_variables_initializer())
                if restore_from:
                    ckpt.restore(restore_from, session=s)
                for _ in range(steps):
                    s.run(train)
                if save_to:
                    ckpt.write(save_to, session=s)
                return s.run([w, b])

    path = str(tmp_path / "a.safetensors")
    run(save_to=path, steps=2)
    continued = run(restore_from=path, steps=2)
    straight = run(steps=4)
    for a, c in zip(continued, straight):
        np.testing.assert_allclose(a, c, rtol=1e-6)


def test_mismatches_are_reported_and_nothing_is_assigned(tmp_path):
    path = str(tmp_path / "bad.safetensors")
    tx.train.save_safetensors({"model/dense/kernel": np.zeros((3, 3), np.float32),
                               "model/dense/bias": np.zeros(2, np.float64), "extra": np.zeros(2, np.float32)}, path)
    with tx.Graph().as_default():
        w, b, _ = _model()
        ckpt = tx.train.Checkpoint(model=[w, b])
        with tx.Session() as s:
            s.run(tx.global_variables_initializer())
            before = s.run(w)
            with pytest.raises(ValueError) as info:
                ckpt.restore(path, session=s)
            msg = str(info.value)
            assert "model/dense/kernel: file has shape [3, 3]" in msg
            assert "model/dense/bias: file has dtype float64" in msg
            np.testing.assert_array_equal(s.run(w), before)


def test_partial_restore_reports_through_its_status(tmp_path):
    path = str(tmp_path / "partial.safetensors")
    tx.train.save_safetensors({"model/dense/kernel": np.full((4, 3), 2.0, np.float32),
                               "extra": np.zeros(2, np.float32)}, path)
    with tx.Graph().as_default():
        w, b, _ = _model()
        ckpt = tx.train.Checkpoint(model=[w, b])
        with tx.Session() as s:
            s.run(tx.global_variables_initializer())
            status = ckpt.restore(path, session=s)
            np.testing.assert_array_equal(s.run(w), np.full((4, 3), 2.0, np.float32))
            with pytest.raises(AssertionError) as info:
                status.assert_consumed()
            assert "tracked but not in the file: model/dense/bias" in str(info.value)
            assert "in the file but not tracked: extra" in str(info.value)
            with pytest.raises(AssertionError, match="model/dense/bias"):
                status.assert_existing_objects_matched()
            assert status.expect_partial() is status and status.assert_nontrivial_match() is status


def test_corrupt_file_is_data_loss(tmp_path):
    path = str(tmp_path / "c.safetensors")
    with tx.Graph().as_default():
        w, b, _ = _model()
        ckpt = tx.train.Checkpoint(model=[w, b])
        with tx.Session() as s:
            s.run(tx.global_variables_initializer())
            ckpt.write(path, session=s)
            data = open(path, "rb").read()
            open(path, "wb").write(data[: len(data) // 2])
            with pytest.raises(tx.errors.DataLossError, match="c.safetensors"):
                ckpt.restore(path, session=s)


def test_manager_keeps_the_newest(tmp_path):
    with tx.Graph().as_default():
        step = tx.Variable(tx.constant(0, dtype=tx.int64), trainable=False, name="step")
        inc = step.assign_add(tx.constant(1, dtype=tx.int64))
        manager = tx.train.CheckpointManager(tx.train.Checkpoint(step=step), tmp_path / "run", max_to_keep=2)
        with tx.Session() as s:
            s.run(step.initializer)
            for _ in range(4):
                s.run(inc)
                manager.save(session=s)
        names = [os.path.basename(p) for p in manager.checkpoints]
        assert names == ["ckpt-3.safetensors", "ckpt-4.safetensors"]
        assert tx.train.latest_checkpoint(tmp_path / "run") == manager.latest_checkpoint
        assert tx.train.load_safetensors(manager.latest_checkpoint)["step"] == 4
    assert tx.train.latest_checkpoint(tmp_path / "missing") is None


class _Position:
    """A state object that is not made of Variables (a tensorflux-data iterator is one)."""

    def __init__(self, offset):
        self.offset = offset

    def _serialize_to_tensors(self):
        return {"offset": np.array([self.offset], np.int64), "tag": np.frombuffer(b"abc", np.uint8)}

    def _restore_from_tensors(self, tensors):
        assert bytes(tensors["tag"]) == b"abc"
        self.offset = int(tensors["offset"][0])


@pytest.mark.eager
def test_objects_with_serialize_to_tensors_are_saved_and_restored(tmp_path):
    # Note [Checkpointed state objects]: saved under their path, handed back everything under it.
    v = tx.Variable([1.0, 2.0])
    pos = _Position(7)
    path = tx.train.Checkpoint(v=v, data={"pos": pos}).save(str(tmp_path / "ckpt"))
    pos.offset, other = 0, _Position(0)
    v.assign([0.0, 0.0])
    status = tx.train.Checkpoint(v=v, data={"pos": other}).restore(path)
    status.assert_consumed()
    assert other.offset == 7
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])
    missing = tx.train.Checkpoint(v=v, data={"pos": other, "new": _Position(3)}).restore(path)
    with pytest.raises(AssertionError, match="data/new"):
        missing.assert_consumed()


def test_tx_data_names_the_package_to_install_when_it_is_missing():
    import subprocess
    import sys
    code = ("import sys; sys.modules['tensorflux_data'] = None; import tensorflux as tx\n"
            "try:\n    tx.data\nexcept ImportError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert "tensorflux-data" in out.stdout and "pip install" in out.stdout, out.stderr
