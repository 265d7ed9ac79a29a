"""preflight17: how long `evenhand assess` takes to fail when it cannot reach its model, and a fair null run.

    PYTHONPATH=$PWD:tests python benchmarks/bench_preflight17.py [--null]
    PYTHONPATH=/work/main:/work/main/tests python benchmarks/bench_preflight17.py [--null]   # main's code

Each case runs ``python -m evenhand assess`` in a subprocess on a small config (the demo's prompts, 4 of them, 2
samples, text generation: the toxicity, sentiment and similarity scorers) and reports the seconds from the start of
the process to its exit, the exit code and the last line on stderr:

* ``refused``: base_url is a loopback port nothing listens on;
* ``dns``: base_url's host is ``evenhand-nowhere.invalid`` (RFC 6761: never resolves);
* ``401``: a loopback server that answers 401 to everything (a bad key);
* ``404 model``: a loopback server that lists one model (``GET /models``) and answers 404 ``model_not_found`` to a
  completion for any other;
* ``null``: (``--null``) the same config on ``tests/openai_stub.py``, a fair server (its reply echoes the prompt, so
  the counterfactual versions differ only by the words the versions change): the verdict's concerns are printed, to
  compare before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PROMPTS = ROOT / "evenhand" / "data" / "demo" / "prompts.jsonl"
KNOWN_MODEL = "served-model"


class _Scripted(BaseHTTPRequestHandler):
    """401 to everything (``mode = "401"``), or a model list and 404 model_not_found (``mode = "404"``)."""

    protocol_version = "HTTP/1.1"
    mode = "401"

    def _reply(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        if self.mode == "401":
            self._reply(401, {"error": {"message": "Incorrect API key provided", "code": "invalid_api_key"}})
        elif self.path.rstrip("/").endswith("/models"):
            self._reply(200, {"object": "list", "data": [{"id": KNOWN_MODEL, "object": "model"}]})
        else:
            self._reply(404, {"error": {"message": "not found"}})

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.mode == "401":
            self._reply(401, {"error": {"message": "Incorrect API key provided", "code": "invalid_api_key"}})
        else:
            message = "The model `no-such-model` does not exist or you do not have access to it."
            self._reply(404, {"error": {"message": message, "code": "model_not_found"}})

    def log_message(self, *args: Any) -> None:
        pass


def _serve(mode: str) -> tuple[ThreadingHTTPServer, str]:
    handler = type(f"Scripted{mode}", (_Scripted,), {"mode": mode})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/v1"


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _config(folder: Path, base_url: str, model: str) -> Path:
    path = folder / "c.yaml"
    path.write_text(
        "version: 1\n"
        "use_case: {name: preflight, task: text_generation, attributes: [gender], counterfactual_invariance: true}\n"
        f"prompts: {{path: {PROMPTS}, column: prompt, limit: 4}}\n"
        f"model: {{provider: openai, base_url: '{base_url}', model: {model}, api_key_env: PREFLIGHT_KEY,"
        " max_tokens: 16}\n"
        "generation: {count: 2, counterfactual_count: 2}\n"
        f"output: {{dir: {folder / 'out'}}}\n"
    )
    return path


def run_case(name: str, base_url: str, model: str = KNOWN_MODEL) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        config = _config(Path(tmp), base_url, model)
        env = {**os.environ, "PREFLIGHT_KEY": "sk-preflight-secret", "HF_HUB_OFFLINE": "1"}
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "evenhand", "assess", str(config), "--no-progress"],
            capture_output=True, text=True, env=env, timeout=600,
        )  # fmt: skip
        seconds = time.perf_counter() - started
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert "sk-preflight-secret" not in done.stderr + done.stdout, "the key reached the output"
    return {"case": name, "seconds": round(seconds, 1), "exit": done.returncode, "last": lines[-1] if lines else "",
            "stdout": done.stdout}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--null", action="store_true", help="also the null run on a fair loopback server")
    parser.add_argument("--only", default=None, help="one case: refused, dns, 401, 404")
    args = parser.parse_args()
    cases: list[tuple[str, Any]] = [
        ("refused", lambda: run_case("refused", f"http://127.0.0.1:{_closed_port()}/v1")),
        ("dns", lambda: run_case("dns", "http://evenhand-nowhere.invalid:8000/v1")),
    ]
    for mode in ("401", "404"):

        def scripted(mode: str = mode) -> dict[str, Any]:
            server, url = _serve(mode)
            try:
                return run_case(mode, url, model="no-such-model" if mode == "404" else KNOWN_MODEL)
            finally:
                server.shutdown()
                server.server_close()

        cases.append((mode, scripted))
    for name, case in cases:
        if args.only is None or args.only == name:
            result = case()
            print(f"{result['case']:8} {result['seconds']:6.1f} s  exit {result['exit']}  {result['last'][:200]}")
    if args.null:
        from openai_stub import StubServer

        with StubServer() as stub:
            result = run_case("null", stub.base_url, model="stub-model")
        verdict = [line for line in result["stdout"].splitlines() if line.strip()][:6]
        print(f"null     {result['seconds']:6.1f} s  exit {result['exit']}")
        print("\n".join(verdict))


if __name__ == "__main__":
    main()
