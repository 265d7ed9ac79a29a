"""The Ray scoring engine: scorers run as Ray Data batch inference on an actor pool (this machine or a cluster).

:class:`RayEngine` keeps the local engine's contract and its steps (:mod:`evenhand.scorers.batching`); only the
loop over batches moves to the cluster:

1. on the driver (this process): de-duplicate the texts, look them up in the scorer's cache, sort what is left
   longest first and cut it into batches of ``scorer.batch_size``, exactly as :class:`~evenhand.scorers.LocalEngine`
   does;
2. on the cluster: one Ray Data row per batch (``{"batch_id", "texts"}``), ``map_batches`` with a callable class on
   an actor pool (:class:`ray.data.ActorPoolStrategy`); each actor builds the scorer **once** and runs its pure
   per-batch function on every row it receives, so a batch is the same texts in the same order as locally and the
   outputs are the same numbers;
3. back on the driver: store the outputs in the cache, count them in ``scorer.n_computed`` and scatter them to the
   input order.

What moves: the distinct texts still to compute (there) and their float64 outputs (back), plus the scorer once per
actor: the built scorer pickled (its weights travel through the object store; its cache never does), or, with
``num_gpus_per_actor > 0``, its recipe (factory, spec and options, kept by
:func:`~evenhand.pipeline.families.base.build_scorer`) so that each actor loads the model onto its own GPU. What
stays: the responses table, the score cache, the metrics and the statistics.

>>> engine = RayEngine(address="auto", num_actors=4, num_gpus_per_actor=1)  # doctest: +SKIP
>>> engine.map(get_toxicity_scorer("detoxify"), responses)  # doctest: +SKIP
"""

from __future__ import annotations

import copy
import logging
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from evenhand._optional import require
from evenhand._validation import FloatArray
from evenhand.errors import InputError, InputTypeError, RunFailure
from evenhand.scorers._adapt import as_batched_model
from evenhand.scorers._base import BatchedModel
from evenhand.scorers.batching import Batchable, batched_outputs, finish, run_batch
from evenhand.scorers.ray_join import check_cluster

__all__ = ["RayEngine", "portable"]

_FEATURE = "the Ray scoring engine (scoring.engine: ray)"


def portable(model: BatchedModel) -> BatchedModel:
    """A shallow copy of ``model`` that can travel to a Ray worker: without its score cache (an SQLite connection
    stays on the driver, which stores every output itself), and the same for the scorers it holds (a stereotype
    category's parent, the members of a maximum over scorers)."""
    clone = copy.copy(model)
    clone.cache = None
    for name, value in vars(clone).items():
        if isinstance(value, BatchedModel):
            setattr(clone, name, portable(value))
        elif isinstance(value, list) and value and all(isinstance(v, BatchedModel) for v in value):
            setattr(clone, name, [portable(v) for v in value])
    return clone


def _rebuilt(model: BatchedModel, device: str | None) -> BatchedModel:
    """The scorer built again from its recipe (on a GPU worker: the model loads onto that worker's device)."""
    factory, spec, options = model.recipe  # type: ignore[misc]  # checked by the caller
    options = dict(options)
    if device is not None and "device" not in options:
        options["device"] = device
    rebuilt: BatchedModel = factory(spec, **options)
    rebuilt.batch_size = model.batch_size  # the batches were cut on the driver with this size
    return portable(rebuilt)


class _BatchWorker:
    """The callable class of ``map_batches``: one instance per actor, holding the scorer it builds once."""

    def __init__(self, model: BatchedModel, rebuild: bool, device: str | None) -> None:
        self.model = _rebuilt(model, device) if rebuild else model

    def __call__(self, rows: dict[str, Any]) -> dict[str, Any]:
        ids, blobs, widths = [], [], []
        for batch_id, texts in zip(rows["batch_id"], rows["texts"], strict=True):
            out = run_batch(self.model, [str(t) for t in texts])
            ids.append(int(batch_id))
            # raw little-endian float64 bytes: the driver gets exactly the numbers the scorer returned
            blobs.append(np.ascontiguousarray(out, dtype="<f8").tobytes())
            widths.append(0 if out.ndim == 1 else int(out.shape[1]))
        return {"batch_id": np.asarray(ids, dtype=np.int64), "values": blobs, "width": np.asarray(widths)}


class RayEngine:
    """Scores on a Ray cluster with Ray Data and an actor pool; the results equal the local engine's.

    Parameters
    ----------
    address
        ``None``: start a Ray instance on this machine (``ray.init(num_cpus=..., include_dashboard=False)``);
        ``"auto"``: join the cluster this machine belongs to (``ray start --head`` / a KubeRay pod);
        ``"host:port"``: join the cluster whose head is there (its token found as the ``ray`` CLI finds it, see
        :mod:`evenhand.scorers.ray_join`);
        ``"ray://host:10001"``: a remote cluster through Ray Client. Ray is initialised only when it is not
        already (a session you started yourself is used as it is).
    num_actors
        Actors in the pool (each builds the scorer once). Default: as many as the cluster has CPUs (or GPUs, with
        ``num_gpus_per_actor``) for them, and never more than there are batches.
    num_gpus_per_actor
        GPUs requested per actor (fractions share a GPU). Above 0, each actor rebuilds a configured scorer from its
        recipe so that its model loads on the actor's GPU (``device="cuda"`` unless the options name one).
    num_cpus_per_actor
        CPUs requested per actor.
    num_cpus
        CPUs of the local Ray instance started when ``address`` is None (default: all of this machine's).
    init_options
        More keyword arguments for ``ray.init`` (e.g. ``runtime_env`` or ``_temp_dir``).
    """

    def __init__(
        self,
        address: str | None = None,
        *,
        num_actors: int | None = None,
        num_gpus_per_actor: float = 0,
        num_cpus_per_actor: float = 1,
        num_cpus: int | None = None,
        init_options: Mapping[str, Any] | None = None,
    ) -> None:
        require("ray", feature=_FEATURE)  # missing: one clear message now, before any response is generated
        if address is not None and (not isinstance(address, str) or not address.strip()):
            raise InputError(f"address must be 'auto', 'ray://host:port' or None (a local Ray), got {address!r}")
        if num_actors is not None and (isinstance(num_actors, bool) or not isinstance(num_actors, int)):
            raise InputTypeError(f"num_actors must be a positive integer or None, got {num_actors!r}")
        if num_actors is not None and num_actors < 1:
            raise InputError(f"num_actors must be >= 1, got {num_actors}")
        for name, value in (("num_gpus_per_actor", num_gpus_per_actor), ("num_cpus_per_actor", num_cpus_per_actor)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
                raise InputError(f"{name} must be a number >= 0, got {value!r}")
        self.address = address.strip() if isinstance(address, str) else None
        self.num_actors = num_actors
        self.num_gpus_per_actor = float(num_gpus_per_actor)
        self.num_cpus_per_actor = float(num_cpus_per_actor)
        self.num_cpus = num_cpus
        self.init_options = dict(init_options or {})
        self._initialised_here = False  # close() shuts down only a Ray this engine started or joined itself

    # ------------------------------------------------------------------------------------------- the interface
    def map(self, scorer: Any, texts: Sequence[str]) -> FloatArray:
        """``scorer``'s outputs for ``texts`` in input order: scores ``(n,)`` or embeddings ``(n, d)``."""
        model = as_batched_model(scorer)
        return finish(model, self.outputs(model, texts))

    def outputs(self, model: BatchedModel, texts: Any) -> FloatArray:
        """The backend's per-text outputs for ``texts`` in input order (before :func:`finish`): the local engine's
        batching (:func:`~evenhand.scorers.batching.batched_outputs`), with the batches run on the cluster."""

        def on_the_cluster(_: Batchable, batches: list[list[str]]) -> list[FloatArray]:
            return self._remote(model, batches) if batches else []  # all cached: no cluster is joined

        return batched_outputs(model, texts, run=on_the_cluster)

    # ------------------------------------------------------------------------------------------- the cluster
    def connect(self) -> Any:
        """The ``ray`` module, initialised (this engine's address) unless it already was."""
        ray = require("ray", feature=_FEATURE)
        if not ray.is_initialized():
            options: dict[str, Any] = {"include_dashboard": False, "logging_level": logging.WARNING}
            if self.address is None:
                options["num_cpus"] = self.num_cpus
            options |= self.init_options
            try:
                if self.address is not None:  # a running cluster: its token, and an answer within seconds
                    check_cluster(self.address)
                ray.init(address=self.address, **options)
            except ConnectionError as exc:
                where = "a local Ray" if self.address is None else f"the Ray cluster at address={self.address!r}"
                raise ConnectionError(f"could not start or join {where}: {exc}") from None
            self._initialised_here = True
        return ray

    def close(self) -> None:
        """Disconnect from Ray if this engine initialised it (a local Ray it started stops, its CPUs are freed); a
        session the caller started stays. :func:`evenhand.pipeline.run.run` calls this after the scoring."""
        if self._initialised_here:
            ray = require("ray", feature=_FEATURE)
            if ray.is_initialized():
                ray.shutdown()
            self._initialised_here = False

    def start(self) -> None:
        """Join (or start) the cluster now: :func:`evenhand.pipeline.run.run` calls this before generating, so that
        an unreachable cluster, or one without the GPUs asked for, stops the run before the LLM is called."""
        self._check_gpus(self.connect())

    def _check_gpus(self, ray: Any) -> None:
        # Ray Data would wait forever for actors that no node can place
        gpus = float(ray.cluster_resources().get("GPU", 0))
        if self.num_gpus_per_actor > 0 and gpus < self.num_gpus_per_actor:
            raise InputError(
                f"num_gpus_per_actor={self.num_gpus_per_actor:g} but the Ray cluster has {gpus:g} GPU(s); "
                "lower it or use 0 (CPU actors)"
            )

    def _pool_size(self, ray: Any, n_batches: int) -> int:
        if self.num_actors is not None:
            return min(self.num_actors, n_batches)
        resources = ray.cluster_resources()
        if self.num_gpus_per_actor > 0:
            fit = resources.get("GPU", 0) / self.num_gpus_per_actor
        else:
            fit = resources.get("CPU", 1) / max(self.num_cpus_per_actor, 1e-9)
        return max(1, min(int(fit), n_batches))

    def _remote(self, model: BatchedModel, batches: list[list[str]]) -> list[FloatArray]:
        """Run every batch through an actor pool; the outputs in the order of ``batches``."""
        ray = self.connect()
        self._check_gpus(ray)
        context = ray.data.DataContext.get_current()
        if context.enable_progress_bars != bool(model.progress):  # Ray's bars follow the scorer's progress setting
            context.enable_progress_bars = bool(model.progress)
        rebuild = self.num_gpus_per_actor > 0 and getattr(model, "recipe", None) is not None
        device = "cuda" if rebuild else None
        rows = [{"batch_id": k, "texts": texts} for k, texts in enumerate(batches)]
        dataset = ray.data.from_items(rows).map_batches(
            _BatchWorker,
            batch_size=1,  # one row = one scorer batch, cut on the driver: the batches are the local engine's
            batch_format="numpy",
            compute=ray.data.ActorPoolStrategy(size=self._pool_size(ray, len(batches))),
            fn_constructor_args=(portable(model), rebuild, device),
            num_cpus=self.num_cpus_per_actor,
            num_gpus=self.num_gpus_per_actor or None,
        )
        found: dict[int, FloatArray] = {}
        # Ray Data logs every job's start and end at INFO, on the console too: with the scorer's progress off, only
        # its warnings and errors show (for this job; the logger's level is restored after)
        data_logger = logging.getLogger("ray.data")
        previous = data_logger.level
        if not model.progress:
            data_logger.setLevel(max(previous, logging.WARNING))
        try:
            for row in dataset.iter_rows():
                batch_id, width = int(row["batch_id"]), int(row["width"])
                flat = np.frombuffer(row["values"], dtype="<f8").astype(np.float64)
                found[batch_id] = flat if width == 0 else flat.reshape(-1, width)
        finally:
            data_logger.setLevel(previous)
        missing = [k for k in range(len(batches)) if k not in found]
        if missing:
            raise RunFailure(f"the Ray engine lost {len(missing)} of {len(batches)} batches")
        return [found[k] for k in range(len(batches))]

    def __repr__(self) -> str:
        return f"RayEngine(address={self.address!r}, num_actors={self.num_actors!r})"
