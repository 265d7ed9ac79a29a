"""Callable and LangChain clients, get_client, counterfactual alignment, rate limits, and property tests."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evenhand.generation import (
    CallableClient,
    Completion,
    LangChainClient,
    OpenAIClient,
    RetryableError,
    agenerate,
    generate,
    generate_counterfactual,
    get_client,
)
from evenhand.generation.clients.local import LocalModelClient
from evenhand.generation.limits import RetryPolicy, TokenBucket

FAST: dict[str, Any] = {"store": None, "progress": False, "backoff": 0.0}


def echo(prompt: str) -> str:
    return f"re: {prompt}"


@pytest.mark.subprocess
def test_import_is_light() -> None:
    code = (
        "import sys, evenhand.generation as g; g.generate; g.GenerationResult; "
        "print(','.join(m for m in ('torch', 'transformers', 'aiohttp', 'langchain_core') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_sync_callable_with_optional_arguments() -> None:
    seen: list[tuple[str, str | None, float]] = []

    def fn(prompt: str, system_prompt: str | None = None, temperature: float = 1.0) -> str:
        seen.append((prompt, system_prompt, temperature))
        return prompt.upper()

    result = generate(["ab", "cd"], fn, count=2, system_prompt="sys", temperature=0.3, **FAST)
    assert result.responses == ["AB", "AB", "CD", "CD"]
    assert set(seen) == {("ab", "sys", 0.3), ("cd", "sys", 0.3)} and len(seen) == 4


def test_async_callable_runs_concurrently() -> None:
    async def slow(prompt: str) -> str:
        await asyncio.sleep(0.05)
        return prompt

    t = time.perf_counter()
    result = generate([str(i) for i in range(40)], CallableClient(slow, concurrency=40), count=1, **FAST)
    assert time.perf_counter() - t < 1.0  # 40 x 50 ms sequentially would be 2 s
    assert result.responses == [str(i) for i in range(40)]


def test_agenerate_inside_a_running_loop_and_generate_from_one() -> None:
    async def main() -> tuple[list[str | None], list[str | None]]:
        a = await agenerate(["x"], echo, count=1, **FAST)
        b = generate(["y"], echo, count=1, **FAST)  # sync entry point from inside a loop (Jupyter)
        return a.responses, b.responses

    assert asyncio.run(main()) == (["re: x"], ["re: y"])


def test_callable_outcomes_none_retry_and_bug() -> None:
    calls: dict[str, int] = {}

    def fn(prompt: str) -> str | Completion | None:
        calls[prompt] = calls.get(prompt, 0) + 1
        if prompt == "refuse":
            return None
        if prompt == "flaky" and calls[prompt] < 3:
            raise RetryableError("busy", retry_after=0.0)
        if prompt == "bug":
            raise KeyError("oops")
        if prompt == "rich":
            return Completion("full", finish_reason="length", prompt_tokens=3, completion_tokens=5)
        return "fine"

    result = generate(["refuse", "flaky", "bug", "rich"], fn, count=1, **FAST)
    frame = result.to_frame()
    assert frame["status"].tolist() == ["filtered", "ok", "error", "ok"]
    assert frame["attempts"].tolist() == [1, 3, 1, 1]
    assert calls["bug"] == 1 and "KeyError" in frame["error"].iloc[2]
    assert result.token_usage() == {"prompt_tokens": 3, "completion_tokens": 5, "total_tokens": 8}
    assert frame["finish_reason"].iloc[3] == "length"


def test_counterfactual_alignment_with_dict_and_object() -> None:
    result = generate_counterfactual(
        {"male": ["he sang", "his job"], "female": ["she sang", "her job"]}, echo, count=2, **FAST
    )
    frame = result.to_frame()
    assert frame[["prompt_id", "group", "sample"]].values.tolist() == [
        [0, "male", 0], [0, "male", 1], [0, "female", 0], [0, "female", 1],
        [1, "male", 0], [1, "male", 1], [1, "female", 0], [1, "female", 1],
    ]  # fmt: skip
    assert result.groups == ("male", "female")
    pairs = result.by_group()
    assert pairs["male"] == ["re: he sang", "re: he sang", "re: his job", "re: his job"]
    assert pairs["female"] == ["re: she sang", "re: she sang", "re: her job", "re: her job"]

    class CF:  # the shape of evenhand.text.counterfactual.CounterfactualPrompts
        groups = ("a", "b")
        source_index = (3, 7)

        def __getitem__(self, g: str) -> list[str]:
            return {"a": ["a3", "a7 [bad]"], "b": ["b3", "b7 [bad]"]}[g]

    def picky(prompt: str) -> str:
        if "[bad]" in prompt and prompt.startswith("b"):
            raise ValueError("nope")
        return prompt

    res = generate_counterfactual(CF(), picky, count=1, **FAST)
    assert res.to_frame()["prompt_id"].tolist() == [3, 3, 7, 7]
    assert res.non_completion_rate(by_group=True) == {"a": 0.0, "b": 0.5}


def test_counterfactual_input_errors() -> None:
    with pytest.raises(ValueError, match="same number of prompts"):
        generate_counterfactual({"a": ["x"], "b": ["y", "z"]}, echo, **FAST)
    with pytest.raises(ValueError, match="at least two groups"):
        generate_counterfactual({"a": ["x"]}, echo, **FAST)
    with pytest.raises(TypeError, match="CounterfactualPrompts"):
        generate_counterfactual(["x"], echo, **FAST)


@pytest.mark.slow
def test_langchain_fake_chat_models() -> None:
    from langchain_core.language_models.fake_chat_models import FakeListChatModel, GenericFakeChatModel
    from langchain_core.messages import AIMessage

    fake = FakeListChatModel(responses=["one", "two", "three"])
    result = generate(["p"], fake, count=3, **FAST)  # get_client wraps a BaseChatModel automatically
    assert sorted(r or "" for r in result.responses) == ["one", "three", "two"]
    assert result.client["backend"] == "langchain"

    generic = GenericFakeChatModel(messages=iter([AIMessage(content="hello world")]))
    assert generate(["q"], LangChainClient(generic), count=1, **FAST).responses == ["hello world"]
    with pytest.raises(TypeError, match="BaseChatModel"):
        LangChainClient(echo)


def test_langchain_errors_are_classified() -> None:
    from langchain_core.language_models.fake_chat_models import FakeListChatModel

    class RateLimitError(Exception):
        status_code = 429

    class Failing(FakeListChatModel):
        async def ainvoke(self, *args: Any, **kwargs: Any) -> Any:
            raise RateLimitError("slow down")

    result = generate(["p"], Failing(responses=["x"]), count=1, max_retries=2, **FAST)
    assert result.to_frame()["error"].iloc[0].startswith("gave up after 3 attempts: RateLimitError")


def test_get_client_specs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("K_ENV", "sk-x")
    c = get_client({"provider": "openai", "base_url": "http://h:1/v1", "model": "m", "api_key_env": "K_ENV"})
    assert isinstance(c, OpenAIClient) and c.url == "http://h:1/v1/chat/completions"
    assert c._api_key == "sk-x" and "sk-x" not in str(c.identity)
    local = get_client(None)  # constructing does not load weights
    assert isinstance(local, LocalModelClient) and isinstance(get_client({"provider": "local"}), LocalModelClient)
    assert get_client(local) is local
    assert isinstance(get_client(echo), CallableClient)
    named = {"provider": "callable", "function": "os.path:basename"}
    assert isinstance(get_client(named, allow_code=True), CallableClient)  # a named function needs the opt-in
    with pytest.raises(ValueError, match="api_key_env"):
        get_client({"provider": "openai", "base_url": "http://h", "model": "m", "api_key": "sk-literal"})
    with pytest.raises(ValueError, match="unknown provider"):
        get_client({"provider": "bard"})
    with pytest.raises(ValueError, match="needs 'base_url' and 'model'"):
        get_client({"provider": "openai"})
    with pytest.raises(ValueError, match="bad option"):
        get_client({"provider": "openai", "base_url": "http://h", "model": "m", "temprature": 1})
    with pytest.raises(TypeError):
        get_client(42)


def test_requests_per_minute_limit() -> None:
    t = time.perf_counter()
    generate([str(i) for i in range(60)], echo, count=1, requests_per_minute=1800, **FAST)  # 30/s, burst 30
    assert time.perf_counter() - t >= 0.9


@pytest.mark.server
def test_tokens_per_minute_limit_uses_reported_usage() -> None:
    def costly(prompt: str) -> Completion:
        return Completion("x", prompt_tokens=0, completion_tokens=30)

    t = time.perf_counter()
    # 7,200 tokens/min = 120/s with a 120-token burst; max_tokens=1 keeps the estimate small, the reported 30
    # tokens per call then make the bucket owe tokens: 10 calls x 30 = 300 tokens need ~1.5 s after the burst.
    generate([str(i) for i in range(10)], costly, count=1, max_tokens=1, tokens_per_minute=7200, **FAST)
    assert time.perf_counter() - t >= 1.0


def test_token_bucket_and_retry_policy() -> None:
    with pytest.raises(ValueError, match="positive"):
        TokenBucket(0)
    policy = RetryPolicy(max_retries=5, base_delay=1.0, max_delay=10.0)
    for attempt in range(1, 7):
        d = policy.delay(attempt)
        cap = min(10.0, 2 ** (attempt - 1))
        assert cap / 2 <= d <= cap
    assert 3.0 <= policy.delay(1, retry_after=3.0) <= 3.3
    assert policy.delay(1, retry_after=100.0) <= 11.0


@given(
    prompts=st.lists(st.text(min_size=0, max_size=8), min_size=1, max_size=6),
    count=st.integers(1, 4),
    fail_mod=st.integers(2, 5),
)
def test_property_shape_order_and_rates(prompts: list[str], count: int, fail_mod: int) -> None:
    def fn(prompt: str) -> str | None:
        h = sum(map(ord, prompt))
        if h % fail_mod == 0:
            raise ValueError("deterministic failure")
        return None if h % fail_mod == 1 else f"<{prompt}>"

    result = generate(prompts, fn, count=count, **FAST)
    frame = result.to_frame()
    assert len(frame) == len(prompts) * count
    assert frame["prompt"].tolist() == [p for p in prompts for _ in range(count)]
    assert frame["sample"].tolist() == list(range(count)) * len(prompts)
    assert set(frame["status"]) <= {"ok", "error", "filtered"}
    ok = frame["status"] == "ok"
    assert frame.loc[ok, "response"].tolist() == [f"<{p}>" for p in frame.loc[ok, "prompt"]]
    assert frame.loc[~ok, "response"].isna().all()
    assert result.non_completion_rate() == pytest.approx(1 - ok.mean())


@given(
    attempt=st.integers(1, 30),
    base=st.floats(0.0, 5.0),
    cap=st.floats(0.1, 100.0),
    retry_after=st.none() | st.floats(0.0, 500.0),
)
def test_property_backoff_is_bounded(attempt: int, base: float, cap: float, retry_after: float | None) -> None:
    policy = RetryPolicy(base_delay=base, max_delay=cap)
    delay = policy.delay(attempt, retry_after)
    assert 0.0 <= delay <= cap * 1.1
    if retry_after is None:
        assert delay <= min(cap, base * 2 ** (attempt - 1))
    else:
        assert delay >= min(cap, retry_after)


def test_cancelled_run_keeps_everything_reported(tmp_path: Any) -> None:
    from evenhand.generation import ResponseStore

    path = tmp_path / "c.sqlite"

    async def slow(prompt: str) -> str:
        await asyncio.sleep(0.01 if int(prompt) < 10 else 5)
        return prompt

    async def main() -> None:
        task = asyncio.create_task(
            agenerate([str(i) for i in range(20)], CallableClient(slow, concurrency=20), count=1, store=path,
                      progress=False)
        )  # fmt: skip
        await asyncio.sleep(0.5)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    with ResponseStore(path) as store:
        assert store.count() == 10  # the fast half was stored before the cancellation
    calls: list[str] = []

    def fast(prompt: str) -> str:
        calls.append(prompt)
        return prompt

    again = generate([str(i) for i in range(20)], CallableClient(fast, name=CallableClient(slow).name), count=1,
                     store=path, progress=False)  # fmt: skip
    assert sorted(calls, key=int) == [str(i) for i in range(10, 20)]
    assert again.responses == [str(i) for i in range(20)]
