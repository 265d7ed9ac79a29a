"""How the OpenAI-compatible client reads the bytes of a 2xx body (faults14): JSON is UTF-8 (RFC 8259), a BOM or
UTF-16/32 is recognised from the first bytes, a declared ``charset`` is honoured, and a body that cannot be decoded
fails its request with a message naming the encoding problem (not "malformed JSON") and no credential."""

from __future__ import annotations

import json
from typing import Any

import pytest
from _loopback import JsonHandler, serving

from evenhand.generation import OpenAIClient, generate

FAST = {"store": None, "progress": False, "backoff": 0.01, "max_retries": 0}
REPLY = "Café für Frau Müller, naïve résumé"
PAYLOAD = {"choices": [{"index": 0, "message": {"role": "assistant", "content": REPLY}, "finish_reason": "stop"}]}
TEXT = json.dumps(PAYLOAD, ensure_ascii=False)


def _answering(data: bytes, content_type: str = "application/json") -> type[JsonHandler]:
    class Handler(JsonHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length", "0")))
            self.send_response(200)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler


def _frame(data: bytes, content_type: str = "application/json", **client: Any) -> Any:
    with serving(_answering(data, content_type)) as url:
        base = url.replace("http://", "http://user:URLCANARY-5150@") if client.pop("url_secret", False) else url
        return generate(["Hello"], OpenAIClient(base, "m", timeout=5, **client), count=1, **FAST).to_frame()


@pytest.mark.parametrize(
    "data",
    [
        TEXT.encode("utf-8"),
        b"\xef\xbb\xbf" + TEXT.encode("utf-8"),
        TEXT.encode("utf-16"),  # with its BOM
        TEXT.encode("utf-16-le"),  # no BOM: told by the zero bytes of its first characters
        TEXT.encode("utf-16-be"),
        TEXT.encode("utf-32"),
        TEXT.encode("utf-32-le"),
    ],
    ids=["utf-8", "utf-8 BOM", "utf-16 BOM", "utf-16-le", "utf-16-be", "utf-32 BOM", "utf-32-le"],
)
def test_an_undeclared_utf_body_is_read_in_the_encoding_its_first_bytes_show(data: bytes) -> None:
    frame = _frame(data)
    assert frame["status"].tolist() == ["ok"], frame["error"].tolist()
    assert frame["response"].tolist() == [REPLY]


def test_a_declared_utf_8_body_with_a_bom_is_read() -> None:
    frame = _frame(b"\xef\xbb\xbf" + TEXT.encode("utf-8"), "application/json; charset=utf-8")
    assert frame["status"].tolist() == ["ok"], frame["error"].tolist()


def test_an_undeclared_latin_1_body_fails_naming_the_encoding_not_as_malformed_json() -> None:
    frame = _frame(TEXT.encode("latin-1"), api_key="sk-KEYCANARY-9090", url_secret=False)
    assert frame["status"].tolist() == ["error"]
    error = frame["error"][0]
    assert "malformed JSON" not in error
    assert "not valid UTF-8" in error and "0xe9" in error and "no charset" in error, error
    assert "KEYCANARY" not in error


def test_a_body_that_is_not_in_its_declared_charset_fails_naming_that_charset() -> None:
    frame = _frame(TEXT.encode("latin-1"), "application/json; charset=utf-8")
    error = frame["error"][0]
    assert frame["status"].tolist() == ["error"] and "malformed JSON" not in error
    assert "not valid UTF-8" in error and "declared" in error, error


def test_the_encoding_message_carries_no_url_credentials() -> None:
    frame = _frame(TEXT.encode("latin-1"), url_secret=True)
    assert frame["status"].tolist() == ["error"]
    assert "URLCANARY" not in frame["error"][0] and "not valid UTF-8" in frame["error"][0]


def test_an_undeclared_latin_1_event_stream_fails_naming_the_encoding() -> None:
    data = f"data: {json.dumps({'choices': [{'index': 0, 'delta': {'content': REPLY}}]}, ensure_ascii=False)}\n\n"
    frame = _frame((data + "data: [DONE]\n\n").encode("latin-1"), "text/event-stream")
    assert frame["status"].tolist() == ["error"] and "not valid UTF-8" in frame["error"][0], frame["error"].tolist()


def test_valid_json_that_is_not_utf_8_text_is_still_malformed_json() -> None:
    frame = _frame(b"{not json")
    assert frame["status"].tolist() == ["error"] and "malformed JSON" in frame["error"][0]
