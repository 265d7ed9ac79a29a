"""A server that answers with a huge or endless body (faults14): the OpenAI-compatible client read it whole into
memory. Now it reads at most ``max_body_bytes`` (16 MiB by default; ``model.options.max_body_bytes``) and fails that
request with a message naming the limit; the run goes on, and what was received before is kept. The servers are
loopback ``http.server`` threads whose bodies are bounded (a few times the limit), so every test ends."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from _loopback import JsonHandler, serving

from evenhand.config import ConfigError, parse_config
from evenhand.generation import OpenAIClient, generate
from evenhand.generation.clients.openai import DEFAULT_MAX_BODY_BYTES

FAST = {"progress": False, "backoff": 0.01, "max_retries": 1}
LIMIT = 256 * 1024
MESSAGE = {"role": "assistant", "content": "Dear Mrs. Lee"}
REPLY = {"choices": [{"index": 0, "message": MESSAGE, "finish_reason": "stop"}]}


def _huge_for(marker: str, *, declared: bool, sent: list[int], times: int = 16) -> type[JsonHandler]:
    """Answers a prompt containing ``marker`` with a body of ``times`` x LIMIT bytes (chunked, or with its
    Content-Length),
    written piece by piece until done or the client hangs up; counts the bytes written into ``sent``; other
    prompts get REPLY."""

    class Handler(JsonHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("content-length", "0"))))
            if marker not in body["messages"][-1]["content"]:
                self.reply(200, REPLY)
                return
            piece = b" " * 65536
            total = times * LIMIT
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            if declared:
                self.send_header("Content-Length", str(total))
            else:
                self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            written = 0
            try:
                for _ in range(total // len(piece)):  # bounded: times * 4 pieces
                    data = piece if declared else b"%x\r\n%s\r\n" % (len(piece), piece)
                    self.wfile.write(data)
                    written += len(piece)
                if not declared:
                    self.wfile.write(b"0\r\n\r\n")
            except OSError:  # the client hung up: what it needed was read
                pass
            finally:
                sent.append(written)
                self.close_connection = True

    return Handler


@pytest.mark.parametrize("declared", [False, True], ids=["chunked", "content-length"])
def test_a_body_above_the_limit_fails_its_request_and_the_run_goes_on(declared: bool, tmp_path: Path) -> None:
    sent: list[int] = []
    store = tmp_path / "g.sqlite"
    with serving(_huge_for("HUGE", declared=declared, sent=sent)) as url:
        client = OpenAIClient(url, "m", timeout=20, max_body_bytes=LIMIT)
        prompts = ["Write to Mrs. Lee.", "HUGE answer please", "Thank Mr. Park."]
        frame = generate(prompts, client, count=1, store=store, **FAST).to_frame()
    assert frame["status"].tolist() == ["ok", "error", "ok"], frame["error"].tolist()
    error = frame["error"][1]
    assert "larger than 256 KiB" in error and "max_body_bytes" in error, error
    assert "malformed" not in error
    assert frame["response"][0] == "Dear Mrs. Lee" and frame["response"][2] == "Dear Mrs. Lee"
    # the request was not retried (the same server would send the same body), and the client stopped reading
    assert len(sent) == 1


def test_a_body_within_the_limit_is_read(tmp_path: Path) -> None:
    with serving(_huge_for("never", declared=False, sent=[])) as url:
        frame = generate(["Hi"], OpenAIClient(url, "m", timeout=5, max_body_bytes=1024), count=1, store=None,
                         **FAST).to_frame()  # fmt: skip
    assert frame["status"].tolist() == ["ok"], frame["error"].tolist()


def test_the_default_limit_is_16_mib() -> None:
    assert DEFAULT_MAX_BODY_BYTES == 16 * 2**20
    assert OpenAIClient("http://127.0.0.1:9/v1", "m").max_body_bytes == DEFAULT_MAX_BODY_BYTES


@pytest.mark.parametrize("value", [0, -1, 1.5, "16MiB", True, 2**70])
def test_a_limit_that_is_no_positive_whole_number_is_refused(value: Any) -> None:
    with pytest.raises(ValueError, match="max_body_bytes"):
        OpenAIClient("http://127.0.0.1:9/v1", "m", max_body_bytes=value)
    data = {"use_case": {"task": "text_generation"}, "prompts": {"items": ["Hi."]},
            "model": {"provider": "openai", "base_url": "http://127.0.0.1:9/v1", "model": "m",
                      "options": {"max_body_bytes": value}}}  # fmt: skip
    with pytest.raises(ConfigError, match=r"model\.options\.max_body_bytes"):
        parse_config(data)


def test_the_message_names_no_credential() -> None:
    sent: list[int] = []
    with serving(_huge_for("HUGE", declared=True, sent=sent)) as url:
        secret_url = url.replace("http://", "http://svc:PW-BODYCANARY-1@")
        headers = {"X-Api-Key": "HDR-BODYCANARY"}
        client = OpenAIClient(secret_url, "m", timeout=20, max_body_bytes=LIMIT, headers=headers)
        frame = generate(["HUGE"], client, count=1, store=None, **FAST).to_frame()
    assert frame["status"].tolist() == ["error"] and "BODYCANARY" not in frame["error"][0], frame["error"][0]


def test_an_endless_body_is_cut_at_the_limit_in_bounded_time_and_memory() -> None:
    """A server that would send 256 times the limit (64 MiB): the client stops after about the limit (the server
    sees the connection closed once the socket buffers, a few MiB on loopback, are full), within seconds."""
    sent: list[int] = []
    with serving(_huge_for("HUGE", declared=False, sent=sent, times=256)) as url:
        started = time.perf_counter()
        frame = generate(["HUGE"], OpenAIClient(url, "m", timeout=20, max_body_bytes=LIMIT), count=1, store=None,
                         **FAST).to_frame()  # fmt: skip
        elapsed = time.perf_counter() - started
        deadline = time.monotonic() + 10
        while not sent and time.monotonic() < deadline:  # the handler thread notices the hang-up
            time.sleep(0.05)
    assert frame["status"].tolist() == ["error"]
    assert elapsed < 15 and sent and sent[0] < 256 * LIMIT // 2, (elapsed, sent)
    assert threading.active_count() < 50


def _huge_error_then_reply(status: int, asked: list[int]) -> type[JsonHandler]:
    """Answers its first request with ``status`` and an error page of 4 x LIMIT bytes (Content-Length declared),
    every later one with REPLY; counts the requests in ``asked``."""

    class Handler(JsonHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length", "0")))
            asked.append(1)
            if len(asked) > 1:
                self.reply(200, REPLY)
                return
            page = b"<html>" + b"overloaded " * (4 * LIMIT // 11) + b"</html>"
            self.send_response(status)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(page)))
            self.send_header("Retry-After", "0")
            self.end_headers()
            try:
                self.wfile.write(page)
            except OSError:  # the client hung up after the headers
                pass
            self.close_connection = True

    return Handler


@pytest.mark.parametrize("status", [503, 502, 429, 408])
def test_a_retryable_status_is_retried_whatever_the_size_of_its_error_page(status: int, tmp_path: Path) -> None:
    """faults17: a 503/429 whose error page was over ``max_body_bytes`` failed its prompt at once, not retried (the
    limit's failure is final for a 2xx: the server would send the same). The status decides, as for a small page."""
    asked: list[int] = []
    with serving(_huge_error_then_reply(status, asked)) as url:
        client = OpenAIClient(url, "m", timeout=20, max_body_bytes=LIMIT)
        frame = generate(["Write to Mrs. Lee."], client, count=1, store=tmp_path / "g.sqlite", **FAST).to_frame()
    assert frame["status"].tolist() == ["ok"], frame["error"].tolist()
    assert frame["response"][0] == "Dear Mrs. Lee" and len(asked) == 2


def test_a_final_status_with_a_huge_error_page_is_one_request_naming_the_status(tmp_path: Path) -> None:
    asked: list[int] = []
    with serving(_huge_error_then_reply(400, asked)) as url:
        client = OpenAIClient(url, "m", timeout=20, max_body_bytes=LIMIT)
        frame = generate(["Write to Mrs. Lee."], client, count=1, store=tmp_path / "g.sqlite", **FAST).to_frame()
    assert frame["status"].tolist() == ["error"] and len(asked) == 1
    assert "HTTP 400" in frame["error"][0] and "larger than 256 KiB" in frame["error"][0], frame["error"][0]
