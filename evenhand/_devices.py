"""Devices of models (scorers, embedders, the local LLM): validate ``device=``, resolve "auto", size batches.

Shared by the scorers and the generation clients, which are siblings: it sits in the base layer so that neither
imports the other for it. torch is imported only to resolve a device other than "cpu".
"""

from __future__ import annotations

from evenhand.errors import InputError, InputTypeError

__all__ = ["ACCELERATOR_BATCH_FACTOR", "check_device", "device_batch_size", "resolve_device"]

_DEVICES = ("auto", "cpu", "cuda", "mps")


def check_device(device: str) -> str:
    """Validate a ``device=`` argument without importing torch: "auto", "cpu", "cuda", "cuda:N" or "mps"."""
    if not isinstance(device, str):
        raise InputTypeError(
            f"device must be a string such as 'cpu', 'cuda', 'mps' or 'auto', got {type(device).__name__}"
        )
    base = device.split(":", 1)[0]
    if base not in _DEVICES or (":" in device and base != "cuda"):
        raise InputError(f"device must be one of 'auto', 'cpu', 'cuda', 'cuda:N', 'mps'; got {device!r}")
    return device


def resolve_device(device: str) -> str:
    """Turn ``device`` into a concrete torch device string; "auto" picks CUDA, then Apple MPS, then CPU."""
    check_device(device)
    if device == "cpu":
        return device
    from evenhand._optional import require

    torch = require("torch", feature=f"device={device!r}")
    cuda_ok = bool(torch.cuda.is_available())
    mps_ok = bool(getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available())
    if device == "auto":
        return "cuda" if cuda_ok else "mps" if mps_ok else "cpu"
    if device.startswith("cuda") and not cuda_ok:
        raise InputError(f"device={device!r} was requested but torch reports no CUDA device; use 'cpu' or 'auto'")
    if device.startswith("cuda:"):
        count = int(torch.cuda.device_count())
        if not device[5:].isdigit() or int(device[5:]) >= count:
            raise InputError(f"device={device!r} was requested but torch reports {count} CUDA device(s): cuda:0 to "
                             f"cuda:{count - 1}")  # fmt: skip
    if device == "mps" and not mps_ok:
        raise InputError("device='mps' was requested but torch reports MPS is not available; use 'cpu' or 'auto'")
    return device


#: How many times the CPU batch size a model gets on an accelerator when the user sets none: a GPU is idle on
#: CPU-sized batches of 32, while 4x fits comfortably in the memory of any current GPU for classifiers of BERT size.
ACCELERATOR_BATCH_FACTOR = {"cuda": 4, "mps": 2, "cpu": 1}


def device_batch_size(device: str, cpu_batch_size: int) -> int:
    """The batch size for ``device`` (a resolved device such as "cuda:1") when the CPU default is
    ``cpu_batch_size``: ``cpu_batch_size * ACCELERATOR_BATCH_FACTOR[kind]``.

    >>> device_batch_size("cuda:0", 32), device_batch_size("cpu", 32)
    (128, 32)
    """
    return int(cpu_batch_size) * ACCELERATOR_BATCH_FACTOR.get(check_device(device).split(":", 1)[0], 1)
