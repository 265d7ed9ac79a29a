"""faults17: null and planted studies for the fault fixes, and the planted faults found.

    PYTHONPATH=$PWD:tests python benchmarks/bench_faults17.py [--runs 20] [--null-runs 40]
    PYTHONPATH=/work/main:/work/main/tests python benchmarks/bench_faults17.py   # the same on main's code

Table 1 (``_fixture_table``): a loopback server answers 24 prompts x 2 counterfactual versions (Mr./Mrs.), each reply
a number of words drawn per prompt and seed; fair: the same distribution for both versions; planted: the Mrs. version
30% longer. The paired sign-flip test (``statistic="log_ratio"`` on word counts, by prompt) at p < 0.05 is a concern.
* ``overloaded``: 30% of first answers are a 503 whose error page (512 KiB) is over ``max_body_bytes`` (256 KiB),
  with ``Retry-After: 0``: retried now (faults17), so no prompt is lost and the verdict is the fault-free one; a prompt
  whose pair failed is left out of the test (on main: about 30% of prompts lost).
* ``huge``: the same fault-free word counts times 1e306 (their totals are beyond 1.8e308): the log ratio is taken at
  a power-of-two scale (faults17; on main NaN, never a concern, never a finding).
Table 2: the planted faults, each run once, as a user sees them.
"""

from __future__ import annotations

import hashlib
import json
import random
import signal
import sqlite3
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
LIMIT = 256 * 1024
FAILED: dict[str, list[int]] = {}  # fixture -> failed prompts of each run (the second line of the table)


def _words(prompt: str, seed: int, planted: bool) -> int:
    rng = random.Random(hashlib.sha256(f"{seed}|{prompt.replace('Mrs.', 'Mr.')}".encode()).digest())
    base = rng.randint(40, 120)  # the prompt's own length, the same for both versions
    noise = random.Random(hashlib.sha256(f"{seed}|{prompt}".encode()).digest()).gauss(0, 10)
    scale = 1.3 if planted and "Mrs." in prompt else 1.0
    return max(1, round(base * scale + noise))


def _server(seed: int, planted: bool, overload: bool) -> tuple[ThreadingHTTPServer, str]:
    asked: dict[str, int] = {}
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("content-length", "0"))))
            prompt = body["messages"][-1]["content"]
            with lock:
                asked[prompt] = asked.get(prompt, 0) + 1
                first = asked[prompt] == 1
            draw = random.Random(hashlib.sha256(f"fault|{seed}|{prompt}".encode()).digest()).random()
            if overload and first and draw < 0.3:
                page = b"<html>" + b"overloaded " * (2 * LIMIT // 11) + b"</html>"
                self.send_response(503)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(page)))
                self.send_header("Retry-After", "0")
                self.end_headers()
                try:
                    self.wfile.write(page)
                except OSError:
                    pass
                self.close_connection = True
                return
            text = " ".join(["word"] * _words(prompt, seed, planted))
            reply = {
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}]
            }
            data = json.dumps(reply).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/v1"


def _pairs(seed: int, planted: bool, overload: bool, key: str) -> tuple[list[float], list[float], list[str]]:
    server, url = _server(seed, planted, overload)
    try:
        prompts = [
            f"Write a note to {t} Lee about loan {i} of seed {seed}." for i in range(PROMPTS) for t in ("Mr.", "Mrs.")
        ]
        client = OpenAIClient(url, "m", timeout=20, max_body_bytes=LIMIT)
        frame = generate(prompts, client, count=1, store=None, progress=False, backoff=0.01, max_retries=2).to_frame()
    except RuntimeError as stopped:  # main: the circuit breaker stops the run on the "final" 503s (nothing kept)
        print(f"  seed {seed}: {type(stopped).__name__}: {str(stopped)[:90]}...", file=sys.stderr)
        FAILED.setdefault(key, []).append(PROMPTS)
        return [], [], []
    finally:
        server.shutdown()
        server.server_close()
    words = {
        p: len(str(r).split())
        for p, r, s in zip(frame["prompt"], frame["response"], frame["status"], strict=True)
        if s == "ok"
    }
    a, b, ids, failed = [], [], [], 0
    for i in range(PROMPTS):
        mr, mrs = (f"Write a note to {t} Lee about loan {i} of seed {seed}." for t in ("Mr.", "Mrs."))
        if mr in words and mrs in words:
            a.append(float(words[mrs]))
            b.append(float(words[mr]))
            ids.append(str(i))
        else:
            failed += 1
    FAILED.setdefault(key, []).append(failed)
    return a, b, ids


def _overloaded(seed: int, planted: bool) -> bool:
    a, b, ids = _pairs(seed, planted, True, "overloaded")
    if not ids:
        return False
    return paired_prompt_test(a, b, ids, statistic="log_ratio", n_permutations=999, seed=seed).p_value < 0.05


def _huge(seed: int, planted: bool) -> bool:
    a, b, ids = _pairs(seed, planted, False, "huge")
    test = paired_prompt_test([x * 1e306 for x in a], [x * 1e306 for x in b], ids, statistic="log_ratio",
                              n_permutations=999, seed=seed)  # fmt: skip
    return bool(test.p_value < 0.05)


def _one(label: str, code: str) -> None:
    """``code`` in a child process started outside the source tree (``python -c`` puts its folder first on the
    path: started here it would import this tree's evenhand whatever PYTHONPATH says)."""
    started = time.perf_counter()
    cwd = tempfile.gettempdir()
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=cwd,
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # fmt: skip
    lines = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    said = (lines[-1] if lines else "")[:230].replace("|", "\\|")
    print(f"| {label} | {done.returncode} | {said} | {time.perf_counter() - started:.1f} s |", flush=True)


SIGNAL_AT = """
import importlib.abc, signal, sys
class Hook(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "evenhand._assistants":
            sys.meta_path.remove(self)
            signal.raise_signal(signal.SIG)
        return None
sys.meta_path.insert(0, Hook())
sys.argv = ["evenhand", "--version"]
try:
    from evenhand_entry import main
except ImportError:  # main's tree: the console script's entry then
    from evenhand.cli import main
sys.exit(main())
"""


def faults_found() -> None:
    print("\n| planted fault | exit | what the user sees (last lines) | time |\n|---|---|---|---|")
    _one("Ctrl-C while `evenhand/__init__` imports", SIGNAL_AT.replace("SIG)", "SIGINT)"))
    _one("SIGTERM while `evenhand/__init__` imports", SIGNAL_AT.replace("SIG)", "SIGTERM)"))
    with tempfile.TemporaryDirectory() as folder:
        prompts = Path(folder) / "p.txt"
        prompts.write_bytes("Write to Mrs. Lee.\nThank Mr. Park.\n".encode("utf-16-le"))
        _one("prompts file in UTF-16 without a BOM", f"from evenhand.pipeline.responses.tables import read_table\n"
             f"print(read_table({str(prompts)!r})['prompt'].tolist())")  # fmt: skip
        store = Path(folder) / "g.sqlite"
        with sqlite3.connect(store) as db:
            db.execute("CREATE TABLE t (x)")
            db.executemany("INSERT INTO t VALUES (?)", [("x" * 500,)] * 200)
        store.write_bytes(store.read_bytes()[:8192])
        opening = f"from evenhand.generation.store import ResponseStore\nprint(ResponseStore({str(store)!r}).count())"
        _one("store cut short (a full disk, a copy interrupted)", opening)
    _one("`?session=<key>` in base_url", "from evenhand._redact import redact_url\n"
         "print(redact_url('https://gw/v1?session=CANARY-SESSION-1&api-version=2024-06-01'))")  # fmt: skip


def main() -> None:
    fixtures = {
        "overloaded": ("fair/planted server, 30% of first answers a 503 with a 512 KiB page", _overloaded),
        "huge": ("word counts times 1e306 (log_ratio)", _huge),
    }
    fixture_table(__doc__ or "", fixtures, null_runs=40)
    for key, failed in FAILED.items():
        print(
            f"{key}: prompts whose pair failed, per run: mean {sum(failed) / len(failed):.1f} of {PROMPTS}, "
            f"max {max(failed)}"
        )
    faults_found()


if __name__ == "__main__":
    main()
