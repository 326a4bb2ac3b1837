"""Torch tensors to NumPy arrays, whatever device, dtype or autograd state they come in.

``tensor.numpy()`` fails on a GPU tensor (CUDA memory is not host memory), on a bfloat16
tensor (NumPy has no bfloat16) and on a tensor that requires grad; every conversion in mtlib
goes through :func:`to_numpy`, so the same code runs on CPU and GPU, in fp32 and bf16.
"""

from __future__ import annotations

import numpy as np

__all__ = ["to_numpy"]


def to_numpy(tensor) -> np.ndarray:
    """A float32 NumPy copy of ``tensor`` on the host.

    Detaches it from autograd, casts it to float32 (NumPy has no bfloat16, and float16 values
    are exact in float32) and moves it to the CPU, in that order: the cast runs on the
    tensor's own device, before the copy.

    Args:
        tensor: a floating-point ``torch.Tensor`` on any device.

    Returns:
        A ``float32`` array of the tensor's shape.

    Raises:
        TypeError: ``tensor`` is not a torch tensor, or not floating-point (an integer tensor
            of ids would silently become floats).
    """
    import torch

    if not isinstance(tensor, torch.Tensor):
        raise TypeError(f"to_numpy expects a torch.Tensor, got {type(tensor).__name__}")
    if not tensor.is_floating_point():
        raise TypeError(f"to_numpy converts floating-point tensors to float32, got dtype {tensor.dtype}")
    return tensor.detach().to(torch.float32).cpu().numpy()
