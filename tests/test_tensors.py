"""Tensor -> NumPy conversions work whatever the tensor's device, dtype or autograd state."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from mtlib.embeddings.tensors import to_numpy  # noqa: E402


class OnGpu(torch.Tensor):
    """Stands in for a CUDA tensor where there is no GPU: ``.numpy()`` refuses, as torch does
    for device memory, until ``.cpu()`` hands back an ordinary host tensor."""

    def numpy(self, *args, **kwargs):
        raise TypeError("can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor "
                        "to host memory first.")

    def cpu(self, *args, **kwargs):
        return torch.Tensor.cpu(self, *args, **kwargs).as_subclass(torch.Tensor)


def test_to_numpy_takes_bf16_tensors_that_require_grad():
    t = torch.tensor([[1.5, -2.0], [0.25, 3.0]], dtype=torch.bfloat16, requires_grad=True)
    with pytest.raises((RuntimeError, TypeError)):
        t.numpy()  # what a plain conversion does: autograd (and NumPy's lack of bfloat16) refuse
    got = to_numpy(t * 2)  # a result of autograd, not a leaf
    assert got.dtype == np.float32 and got.shape == (2, 2)
    np.testing.assert_array_equal(got, [[3.0, -4.0], [0.5, 6.0]])  # exact in bf16


def test_to_numpy_moves_device_tensors_to_the_host():
    fake = torch.ones(2, 3).as_subclass(OnGpu)
    with pytest.raises(TypeError, match="cuda"):
        fake.detach().float().numpy()  # the old conversion in vectors.py
    np.testing.assert_array_equal(to_numpy(fake), np.ones((2, 3), dtype=np.float32))


def test_to_numpy_refuses_what_it_cannot_convert_faithfully():
    with pytest.raises(TypeError, match="expects a torch.Tensor"):
        to_numpy(np.ones(2))
    with pytest.raises(TypeError, match="floating-point"):
        to_numpy(torch.tensor([1, 2]))


def test_encoder_input_vectors_convert_weights_on_any_device(monkeypatch):
    # The non-English static vectors are the encoder's input embeddings; on a GPU machine the
    # weight lives in device memory, where the old `.detach().float().numpy()` failed.
    import mtlib.embeddings.models as models
    from mtlib.embeddings import vectors

    weight = torch.arange(12, dtype=torch.bfloat16).reshape(4, 3).requires_grad_().as_subclass(OnGpu)

    class Tokenizer:
        all_special_tokens = ["<s>"]

        def convert_ids_to_tokens(self, ids):
            return ["<s>", "▁cat", "▁dog", "▁sat"][:len(ids)]

        def tokenize(self, text):
            return ["<s>", *("▁" + w for w in text.split())]

    loaded = SimpleNamespace(model=SimpleNamespace(get_input_embeddings=lambda: SimpleNamespace(weight=weight)),
                             tokenizer=Tokenizer(), identity="fake-on-gpu@sha256:0123")
    monkeypatch.setattr(models, "load_model", lambda name, *args, **kwargs: loaded)
    vectors._encoder_input.cache_clear()
    try:
        vec = vectors._encoder_input("fake-on-gpu")
    finally:
        vectors._encoder_input.cache_clear()
    np.testing.assert_array_equal(vec.keyed_vectors["▁dog"], [6.0, 7.0, 8.0])  # row 2
    assert vec.tokenize("Cat sat") == ["▁cat", "▁sat"] and vec.name == "fake-on-gpu-input@sha256:0123"


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a GPU")
def test_to_numpy_on_a_real_gpu():
    t = torch.linspace(-1, 1, 7, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    np.testing.assert_array_equal(to_numpy(t), t.detach().float().cpu().numpy())
