"""faults18: the null and planted study for the header rule, and the planted faults found.

    PYTHONPATH=$PWD:tests python benchmarks/bench_faults18.py [--runs 20] [--null-runs 40]
    PYTHONPATH=/work/main:/work/main/tests python benchmarks/bench_faults18.py   # the same on main's code

Table 1 (``_fixture_table``): a loopback server answers 24 prompts x 2 counterfactual versions (Mr./Mrs.), each reply
a number of words drawn per prompt and seed, followed by ``(org <the X-Org-Id header it received>)``, a debugging
proxy's echo; the client sends ``X-Org-Id: abc123secret`` (a name that is no credential word). Fair: the same
distribution for both versions; planted: the Mrs. version 30% longer. The paired sign-flip test (``log_ratio`` on word
counts, by prompt) at p < 0.05 is a concern. The masking (faults18: a configured header value is scrubbed from replies
as from errors) replaces the same word in both versions: no verdict changes. The line under the table counts the
runs whose stored replies still hold the header value (main: every run).
Table 2: the planted faults, each run once through the CLI (``python -m evenhand``), as a user sees them.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from _fixture_table import fixture_table

from evenhand.generation import OpenAIClient, generate
from evenhand.stats import paired_prompt_test

PROMPTS = 24
ORG = "abc123secret"
KEY = "sk-BENCHKEY-7c1e9a3f"
PASSWORD = "BENCHPW-5b2d8f0e"
LEAKED: list[bool] = []  # per table-1 run: the header value is still in a reply


def _words(prompt: str, seed: int, planted: bool) -> int:
    rng = random.Random(hashlib.sha256(f"{seed}|{prompt.replace('Mrs.', 'Mr.')}".encode()).digest())
    base = rng.randint(40, 120)  # the prompt's own length, the same for both versions
    noise = random.Random(hashlib.sha256(f"{seed}|{prompt}".encode()).digest()).gauss(0, 10)
    scale = 1.3 if planted and "Mrs." in prompt else 1.0
    return max(1, round(base * scale + noise))


def _serve(seed: int, planted: bool, *, echo_all: bool = False) -> tuple[ThreadingHTTPServer, str]:
    """The echoing server; ``echo_all``: an error or a reply quoting every header and the body (table 2)."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            pass

        def _send(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            self._send(404, {"error": {"message": f"no list at {self.path} (headers {dict(self.headers.items())})"}})

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("content-length", "0")))
            prompt = json.loads(raw)["messages"][-1]["content"]
            if echo_all and "[[500]]" in prompt:
                self._send(400, {"error": {"message": f"rejected {dict(self.headers.items())} {raw.decode()}"}})
                return
            echo = dict(self.headers.items()) if echo_all else self.headers.get("X-Org-Id")
            text = " ".join(["word"] * _words(prompt, seed, planted)) + f" (org {echo})"
            choice = {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
            self._send(200, {"choices": [choice], "usage": {"prompt_tokens": 5, "completion_tokens": 5}})

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/v1"


def _echoed_header(seed: int, planted: bool) -> bool:
    server, url = _serve(seed, planted)
    prompts = [f"Write a note to {t} Lee about loan {i} of seed {seed}." for i in range(PROMPTS)
               for t in ("Mr.", "Mrs.")]  # fmt: skip
    try:
        client = OpenAIClient(url, "m", headers={"X-Org-Id": ORG}, timeout=20)
        frame = generate(prompts, client, count=1, store=None, progress=False, backoff=0.01, max_retries=2).to_frame()
    finally:
        server.shutdown()
        server.server_close()
    LEAKED.append(any(ORG in str(r) for r in frame["response"]))
    words = {p: len(str(r).split()) for p, r, s in zip(frame["prompt"], frame["response"], frame["status"], strict=True)
             if s == "ok"}  # fmt: skip
    a, b, ids = [], [], []
    for i in range(PROMPTS):
        mr, mrs = (f"Write a note to {t} Lee about loan {i} of seed {seed}." for t in ("Mr.", "Mrs."))
        if mr in words and mrs in words:
            a.append(float(words[mrs]))
            b.append(float(words[mr]))
            ids.append(str(i))
    return paired_prompt_test(a, b, ids, statistic="log_ratio", n_permutations=999, seed=seed).p_value < 0.05


# ------------------------------------------------------------------------------------------------ table 2: the CLI


def _cli(args: list[str], cwd: Path, env: dict[str, str] | None = None, timeout: float = 300) -> tuple[int, str, float]:
    start = time.perf_counter()
    run = subprocess.run([sys.executable, "-m", "evenhand", *args], cwd=cwd, capture_output=True, text=True,
                         timeout=timeout, env={**os.environ, **(env or {})})  # fmt: skip
    return run.returncode, (run.stdout + run.stderr).strip(), time.perf_counter() - start


def _config(folder: Path, base_url: str, extra: str = "", prompts: tuple[str, ...] = ()) -> Path:
    lines = prompts or ("Write to Mrs. Lee about her loan.", "Write to Mr. Park about his card.", "Greet Anna.")
    (folder / "p.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    cfg = folder / "c.yaml"
    cfg.write_text(
        "use_case: {task: text_generation, attributes: [gender]}\nprompts: {path: p.txt}\n"
        f"model: {{provider: openai, base_url: '{base_url}', model: m, api_key_env: BENCH_F18_KEY,"
        f" options: {{headers: {{X-Org-Id: {ORG}}}}}}}\n"
        "generation: {count: 1, counterfactual_count: 1, progress: false}\n"
        "scoring: {embedder: false}\nstatistics: {n_resamples: 20}\n"
        "output: {dir: out, include_responses: true, responses: csv}\n" + extra,
        encoding="utf-8",
    )
    return cfg


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _leaks(folder: Path, printed: str) -> list[str]:
    """Which secrets appear in what was printed or in any file written under ``folder``."""
    blobs = [printed.encode()] + [p.read_bytes() for p in folder.rglob("*") if p.is_file() and p.suffix != ".yaml"]
    return [name for name, secret in (("key", KEY), ("header", ORG), ("url password", PASSWORD))
            if any(secret.encode() in b for b in blobs)]  # fmt: skip


def table_2() -> None:
    env = {"BENCH_F18_KEY": KEY}
    print("\n| planted fault | what the user gets |\n|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        # 1. passing and failing runs with a key, a header token and user:password in the URL: any leak?
        server, url = _serve(0, False, echo_all=True)
        try:
            for name, prompts, debug in (("passing run (API key)", (), []),
                                         ("failing run (400s quoting all headers, body; URL user:password), --debug",
                                          ("Write to Mrs. Lee. [[500]]", "Write to Mr. Park. [[500]]",
                                           "Greet Anna. [[500]]"), ["--debug"])):  # fmt: skip
                folder = root / name.split()[0]
                folder.mkdir()
                base_url = url.replace("http://", f"http://svc:{PASSWORD}@") if debug else url
                cfg = _config(folder, base_url, prompts=prompts)
                code, out, _ = _cli([*debug, "assess", str(cfg)], folder, env)
                leaked = _leaks(folder, out) or ["none"]
                print(f"| secrets in every output of a {name} | exit {code}; leaked: {', '.join(leaked)} |")
        finally:
            server.shutdown()
            server.server_close()
        # 2. a dead judge
        server, url = _serve(0, False)
        try:
            folder = root / "judge"
            folder.mkdir()
            dead = f"judge: {{provider: openai, base_url: 'http://127.0.0.1:{_closed_port()}/v1', model: j}}\n"
            code, out, seconds = _cli(["assess", str(_config(folder, url, dead))], folder, env)
            print(f"| judge at a closed port | exit {code} after {seconds:.1f} s: `{out.splitlines()[-1][:110]}` |")
        finally:
            server.shutdown()
            server.server_close()
        # 3. a results.json from before `summary` (or edited by hand)
        folder = root / "old"
        folder.mkdir()
        (folder / "own.csv").write_text("prompt,response\nWrite to Mrs. Lee.,Dear Mrs. Lee.\nHi Mr. Park.,Hi.\n")
        (folder / "c.yaml").write_text(
            "use_case: {task: text_generation, attributes: [gender]}\n"
            "responses: {path: own.csv}\nscoring: {embedder: false}\nstatistics: {ci: null}\n"
        )
        _cli(["assess", "c.yaml", "-o", "out"], folder)
        doc = json.loads((folder / "out" / "results.json").read_text(encoding="utf-8"))
        doc.pop("summary")
        (folder / "old.json").write_text(json.dumps(doc), encoding="utf-8")
        code, out, _ = _cli(["report", "old.json", "-o", "r.html"], folder)
        print(f"| `evenhand report` on a results.json without `summary` | exit {code}: `{out.splitlines()[-1][:90]}` |")
        # 4. ${VAR} in a settings section
        folder = root / "env"
        folder.mkdir()
        _config(folder, "http://127.0.0.1:9/v1")
        (folder / "c.yaml").write_text((folder / "c.yaml").read_text().replace("count: 1,", 'count: "${COUNT}",'))
        code, out, _ = _cli(["assess", "c.yaml"], folder, env)
        said = out.splitlines()[-1].split(": ", 1)[-1][:110]
        print(f'| `generation.count: "${{COUNT}}"` | exit {code}: `{said}` |')


def main() -> None:
    fixture_table(
        __doc__.split("\n\n")[1],
        {"echoed": ("header value echoed in every reply (X-Org-Id)", _echoed_header)},
        null_runs=40,
    )
    print(f"runs whose stored replies hold the header value: {sum(LEAKED)} of {len(LEAKED)}")
    if "--only" not in sys.argv:
        table_2()


if __name__ == "__main__":
    main()
