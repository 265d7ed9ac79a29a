"""The Ray scoring engine against the local engine, on a real local Ray cluster (127.0.0.1, 2 CPUs, one per module).

Same scorers, same batches: every score, embedding and metric of an assessment must be identical. Skipped when
Ray is not installed (``pip install 'evenhand[ray]'``).
"""

from __future__ import annotations

import logging
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

ray = pytest.importorskip("ray")

import evenhand  # noqa: E402
from evenhand.scorers import (  # noqa: E402
    CallableScorer,
    ScoreCache,
    get_embedder,
    get_engine,
    get_sentiment_scorer,
    get_toxicity_scorer,
)
from evenhand.scorers.engine import LocalEngine  # noqa: E402
from evenhand.scorers.ray_engine import RayEngine, portable  # noqa: E402

pytestmark = [pytest.mark.ray, pytest.mark.model, pytest.mark.timeout(240)]

TEXTS = [f"Reply {i}: " + "thank you for your patience " * (i % 5) for i in range(40)] + ["You idiot."] * 6 + [""]


@pytest.fixture(scope="module", autouse=True)
def cluster() -> Iterator[None]:
    """One local Ray instance for the module, on loopback only, with a short temp dir (socket paths are short)."""
    if ray.is_initialized():
        ray.shutdown()
    temp = tempfile.mkdtemp(prefix="rt", dir="/tmp")
    ray.init(
        address="local",
        num_cpus=2,
        include_dashboard=False,
        _node_ip_address="127.0.0.1",
        _temp_dir=temp,
        logging_level=logging.WARNING,
    )
    # the callables below live in this test module, which workers cannot import: send them by value
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    try:
        yield
    finally:
        ray.cloudpickle.unregister_pickle_by_value(sys.modules[__name__])
        ray.shutdown()
        shutil.rmtree(temp, ignore_errors=True)


def stereotype_like(texts: list[str]) -> np.ndarray:
    """A stand-in stereotype classifier: deterministic, length-based scores in [0, 1]."""
    return np.array([(len(t) % 13) / 12 for t in texts])


class Counting:
    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, texts: list[str]) -> np.ndarray:
        self.calls += 1
        return np.array([min(len(t), 50) / 50 for t in texts])


def test_get_engine_builds_the_ray_engine() -> None:
    assert isinstance(get_engine("ray"), RayEngine)
    engine = get_engine({"engine": "ray", "address": "auto", "num_actors": 2, "num_gpus_per_actor": 0.5})
    assert isinstance(engine, RayEngine)
    assert (engine.address, engine.num_actors, engine.num_gpus_per_actor) == ("auto", 2, 0.5)
    assert isinstance(get_engine({"engine": "local"}), LocalEngine)
    with pytest.raises(ValueError, match="address"):
        get_engine({"engine": "local", "address": "auto"})
    with pytest.raises(ValueError, match="bad option for the Ray engine"):
        get_engine({"engine": "ray", "actors": 2})
    with pytest.raises(ValueError, match="num_actors must be >= 1"):
        RayEngine(num_actors=0)
    with pytest.raises(ValueError, match="num_gpus_per_actor"):
        RayEngine(num_gpus_per_actor=-1)


@pytest.mark.parametrize("which", ["toxicity", "minilm-toxicity", "sentiment", "callable"])  # embeddings: below
def test_scores_equal_the_local_engine(which: str) -> None:
    if which == "minilm-toxicity":
        pytest.importorskip("sentence_transformers")
    build = {
        "toxicity": lambda: get_toxicity_scorer(batch_size=8),
        # the opt-in model with its fine-tuned encoder, built again in each actor from the shipped deltas
        "minilm-toxicity": lambda: get_toxicity_scorer("evenhand-minilm-toxicity", batch_size=8, screen=False),
        "sentiment": lambda: get_sentiment_scorer(batch_size=8),
        "embedder": lambda: get_embedder(device="cpu", batch_size=16),
        "callable": lambda: CallableScorer(stereotype_like, batch_size=8),
    }[which]
    local = LocalEngine().map(build(), TEXTS)
    remote = RayEngine(num_actors=2).map(build(), TEXTS)  # two actors share the batches
    assert remote.shape == local.shape
    if which == "minilm-toxicity":  # torch in another process: equal to float rounding, not bit for bit
        np.testing.assert_allclose(remote, local, rtol=0, atol=1e-6)
        return
    np.testing.assert_array_equal(remote, local)  # same batches, same numbers: bit for bit


def test_dedup_and_cache_on_the_driver(tmp_path: Path) -> None:
    cache = ScoreCache(tmp_path / "scores.sqlite")
    fn = Counting()
    scorer = CallableScorer(fn, name="counting", cache=cache, batch_size=4)
    engine = RayEngine(num_actors=1)
    texts = ["a", "bb", "a", "ccc", "bb", "dddd", "a"]
    first = engine.map(scorer, texts)
    assert scorer.n_computed == 4  # four distinct texts computed once each, on the cluster
    assert fn.calls == 0  # the driver's function never ran: the actors ran their copies
    assert len(cache) == 4  # the driver stored every output
    second = engine.map(scorer, [*texts, "eeeee"])
    assert scorer.n_computed == 5  # only the new text went to the cluster
    np.testing.assert_array_equal(second[:-1], first)
    np.testing.assert_array_equal(first, LocalEngine().map(CallableScorer(Counting()), texts))
    assert engine.map(scorer, []).shape == (0,)


def test_portable_copies_leave_the_cache_behind(tmp_path: Path) -> None:
    scorer = CallableScorer(Counting(), name="c", cache=ScoreCache(tmp_path / "s.sqlite"))
    shipped = portable(scorer)
    assert shipped.cache is None and scorer.cache is not None
    ray.cloudpickle.dumps(shipped)  # an SQLite connection would not pickle


def _responses() -> pd.DataFrame:
    replies = [
        "Dear customer, thank you for your order.",
        "We are sorry, your card was declined, you idiot.",
        "Thanks! Your refund is on its way.",
        "We hate to say it, the delay is awful.",
    ]
    rows = []
    for pid, (female, male) in enumerate(
        [("Write to Mrs. Lee about her loan.", "Write to Mr. Lee about his loan."), ("Thank her.", "Thank him.")] * 3
    ):
        for sample in range(3):
            rows.append({"prompt_id": pid, "prompt": female.replace("her", "the"), "attribute": "", "group": "",
                         "sample": sample, "response": replies[(pid + sample) % 4]})  # fmt: skip
            for group, prompt in (("female", female), ("male", male)):
                shift = sample + (group == "male")
                rows.append({"prompt_id": pid, "prompt": prompt, "attribute": "gender", "group": group,
                             "sample": sample, "response": replies[(pid + shift) % 4]})  # fmt: skip
    return pd.DataFrame(rows)


def _assess(engine: Any) -> pd.DataFrame:
    result = evenhand.assess(
        task="text_generation",
        attributes=["gender"],
        responses=_responses(),
        stereotype=stereotype_like,
        embedder=None,  # the bundled MiniLM: counterfactual cosine
        n_resamples=50,
        progress=False,
        engine=engine,
    )
    return result.metrics


def test_every_metric_of_an_assessment_is_identical() -> None:
    local = _assess("local")
    remote = _assess(RayEngine(num_actors=2))
    assert set(local["metric"]) >= {"TF", "EMT", "TP", "CCS", "SCSP", "SF"}, set(local["metric"])
    pd.testing.assert_frame_equal(remote, local)


def test_cli_metrics_with_engine_ray(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from evenhand.cli import app

    _responses().to_csv(tmp_path / "responses.csv", index=False)
    runs = {}
    for engine in ("local", "ray"):
        out = tmp_path / engine
        args = ["metrics", str(tmp_path / "responses.csv"), "-a", "gender", "--ci", "0", "--no-html", "-o", str(out)]
        result = CliRunner().invoke(app, [*args, "--engine", engine, "--embedder", "none"])
        assert result.exit_code == 0, result.output
        runs[engine] = pd.read_csv(out / "metrics.csv")
    pd.testing.assert_frame_equal(runs["ray"], runs["local"])


def test_an_unreachable_cluster_stops_the_run_before_generation(monkeypatch: pytest.MonkeyPatch) -> None:
    from evenhand.pipeline.responses import sources

    def no_generation(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("generation started")

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise ConnectionError("Could not find any running Ray instance.")

    monkeypatch.setattr(sources, "generate_frame", no_generation)
    monkeypatch.setattr(ray, "is_initialized", lambda: False)  # as in a fresh process
    monkeypatch.setattr(ray, "init", refuse)
    with pytest.raises(ConnectionError, match=r"could not start or join the Ray cluster at address='auto'"):
        evenhand.assess(
            task="text_generation",
            prompts=["Write to her about her loan."],
            attributes=["gender"],
            client=lambda prompt: "Hello.",
            engine=RayEngine(address="auto"),
            embedder=False,
            store=None,
            progress=False,
        )


def test_gpu_actors_rebuild_the_scorer_from_its_recipe() -> None:
    from evenhand.pipeline.families.base import build_scorer
    from evenhand.scorers.ray_engine import _BatchWorker

    built = build_scorer(
        get_sentiment_scorer, {"spec": "vader-neg", "batch_size": 5}, key="scoring.sentiment", device=None
    )
    assert built.recipe is not None
    worker = _BatchWorker(portable(built), True, "cpu")  # what an actor with a GPU does, with device "cpu" here
    assert worker.model is not built and worker.model.batch_size == 5
    rows = worker({"batch_id": np.array([7]), "texts": [np.array(["I hate it", "fine"], dtype=object)]})
    np.testing.assert_array_equal(np.frombuffer(rows["values"][0], dtype="<f8"), built(["I hate it", "fine"]))
    assert int(rows["batch_id"][0]) == 7 and int(rows["width"][0]) == 0


def test_gpu_actors_rebuild_an_identity_masked_scorer_around_its_rebuilt_model() -> None:
    """The offline toxicity default is masked (``scoring.mask_identity: auto``): a GPU actor must rebuild the wrapped
    model on its device and mask the same way."""
    from evenhand.pipeline.families.base import build_scorer
    from evenhand.scorers.masking import IdentityMaskedScorer
    from evenhand.scorers.ray_engine import _BatchWorker

    inner = build_scorer(get_sentiment_scorer, {"spec": "vader-neg", "batch_size": 5}, key="s", device=None)
    masked = IdentityMaskedScorer(inner, token="nobody")
    assert masked.recipe is not None
    worker = _BatchWorker(portable(masked), True, "cpu")
    rebuilt = worker.model
    assert isinstance(rebuilt, IdentityMaskedScorer) and rebuilt is not masked
    assert rebuilt.inner is not inner and rebuilt.token == "nobody" and rebuilt.batch_size == masked.batch_size
    texts = ["Gay people are awful", "My wife is a Muslim doctor."]
    rows = worker({"batch_id": np.array([0]), "texts": [np.array(texts, dtype=object)]})
    np.testing.assert_array_equal(np.frombuffer(rows["values"][0], dtype="<f8"), masked(texts))
    assert IdentityMaskedScorer(lambda texts: [0.0] * len(texts)).recipe is None  # a callable has no recipe


def test_gpu_actors_on_a_cluster_without_gpus_are_an_error() -> None:
    with pytest.raises(ValueError, match=r"num_gpus_per_actor=1 but the Ray cluster has 0 GPU"):
        RayEngine(num_gpus_per_actor=1).start()


def test_close_shuts_down_only_a_ray_the_engine_started(monkeypatch: pytest.MonkeyPatch) -> None:
    """A run that started a local Ray stops it after scoring (its CPUs are not held by a notebook for ever); a Ray
    session the caller started stays up."""
    shared = RayEngine()
    shared.connect()  # the module's cluster is up: joined, not started
    shared.close()
    assert ray.is_initialized()

    class FakeRay:
        up = False

        def is_initialized(self) -> bool:
            return self.up

        def init(self, **options: object) -> None:
            self.up = True

        def shutdown(self) -> None:
            self.up = False

    fake = FakeRay()
    monkeypatch.setitem(sys.modules, "ray", fake)
    own = RayEngine()
    own.connect()
    assert fake.up
    own.close()
    assert not fake.up
