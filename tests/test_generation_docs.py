"""The examples in docs/generation.md run and show what they say (small16): those that need no model, against a
loopback OpenAI-compatible server the test starts where they name a local one (``localhost:11434``, ``:8000``).
The examples that run the embedded model (``"local"``) are left to the model tests."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path
from typing import Any

import pytest
from _loopback import JsonHandler, serving
from openai_stub import StubServer

DOC = Path(__file__).resolve().parents[1] / "docs" / "generation.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)
LOCAL = re.compile(r"http://localhost:\d+/v1")
KEY = "sk-docs-example-key-1234"


class _Unauthorized(JsonHandler):
    """A server that refuses every request with 401 (the wrong key), as the docs' stopped-run example shows."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        with contextlib.suppress(ConnectionError):  # the client stops early and may close the connection first
            self.reply(401, {"error": {"message": f"Incorrect API key provided: Bearer {KEY}", "type": "auth"}})


def _run(index: int, namespace: dict[str, Any], url: str | None = None) -> str:
    """Run example ``index`` in ``namespace`` (its names stay for the next one), a local server's URL made ``url``;
    what it prints."""
    block = BLOCKS[index] if url is None else LOCAL.sub(url, BLOCKS[index])
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block, f"{DOC.name}[{index}]", "exec"), namespace)
    return out.getvalue()


def _index(start: str) -> int:
    return next(i for i, block in enumerate(BLOCKS) if block.startswith(start))


@pytest.mark.server
def test_the_server_examples_run_against_a_loopback_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # the examples' stores ("runs/...") land here
    for name in ("OLLAMA_API_KEY", "MY_KEY"):
        monkeypatch.setenv(name, KEY)
    ns: dict[str, Any] = {}
    with StubServer(latency=0.0) as stub:
        _run(_index("from evenhand.generation import OpenAIClient, generate"), ns, stub.base_url)
        assert len(ns["result"].responses) == 2 * 25 and ns["result"].non_completion_rate() == 0.0
        printed = _run(_index("from evenhand.generation import OpenAIClient, ResponseStore"), ns, stub.base_url)
        assert "50" in printed and (tmp_path / "runs" / "support-bot.sqlite").exists()
        asked = stub.state.total
        printed = _run(_index("from evenhand.generation import Prices, estimate_generation"), ns)
        assert stub.state.total == asked, "the estimate sends nothing"
        # newcomer17: the estimate asks for the run's settings and 25 more samples a prompt, so it finds the 50 stored
        # answers (before, its max_tokens=96 made it another job than the run's, and it found none)
        assert ns["estimate"].already_stored == 50 and ns["estimate"].samples == 50, printed
        assert printed.startswith("requests: 2, for 50 samples (50 already in the store, not asked again)"), printed
        assert "(50 already in the store" in BLOCKS[_index("from evenhand.generation import Prices")]
    with serving(_Unauthorized) as url:
        printed = _run(_index("from evenhand.generation import GenerationStoppedError"), ns, url)
    assert printed.startswith("generation stopped early") and "401" in printed, printed
    assert KEY not in printed and "[redacted]" in printed  # the key the server echoed never reaches the output
    assert "runs/bot.sqlite" in printed


def test_the_examples_without_a_server_run() -> None:
    ns: dict[str, Any] = {}
    pytest.importorskip("langchain_core")
    _run(_index("from langchain_core"), ns)
    assert ns["result"].responses == ["a", "b"]
    _run(_index("from evenhand.generation import generate\n\ndef my_model"), ns)
    assert ns["result"].responses == ["...", "..."]
    _run(_index("from evenhand._redact"), ns)
    redact = BLOCKS[_index("from evenhand._redact")]
    assert ns["redact_url"]("https://bot:pw@llm.example/v1?api-key=abc&api-version=2") in redact
    shown = ns["redact_mapping"]({"headers": {"X-Tenant": "t-123"}, "extra_body": {"user": "u-9"}, "max_tokens": 96})
    assert repr(shown) in redact


@pytest.mark.model
def test_the_examples_with_the_embedded_model_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """newcomer17: the blocks that run the bundled SmolLM2 ("local") had no test; they run, in order, and the values
    their comments show hold (the default store lands in the working directory: here tmp_path)."""
    monkeypatch.chdir(tmp_path)
    local = [i for i, block in enumerate(BLOCKS) if '"local"' in block]
    assert len(local) >= 3
    ns: dict[str, Any] = {}
    for index in local:
        _run(index, ns)
        if "generate_counterfactual" in BLOCKS[index]:
            assert set(ns["result"].by_group()) == {"male", "female"}
            assert ns["result"].non_completion_rate(by_group=True) == {"male": 0.0, "female": 0.0}
        elif "build_prompts" in BLOCKS[index]:
            assert len(ns["result"].responses) == 2 * 2
        else:
            assert len(ns["frame"]) == 2 * 3 and ns["result"].non_completion_rate() == 0.0
            assert set(ns["result"].token_usage()) == {"prompt_tokens", "completion_tokens", "total_tokens"}
    assert (tmp_path / "evenhand_generations.sqlite").exists()  # "default ./evenhand_generations.sqlite"
