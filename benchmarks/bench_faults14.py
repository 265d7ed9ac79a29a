"""faults14: what each fault did before and after, measured on one source tree (run it once on main, once on the
branch). A null study is not meaningful for fault fixes (the brief); each case prints what a user sees: the status
and message, the exit code, the time, the memory.

    PYTHONPATH=/work/main python benchmarks/bench_faults14.py            # before
    PYTHONPATH=$PWD python benchmarks/bench_faults14.py                   # after

Every case runs in a child process with the same PYTHONPATH, against loopback servers; about a minute on 2 cores.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

SERVER = """
import json, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
TEXT = json.dumps({"choices": [{"index": 0, "message": {"role": "assistant", "content": "Café für Frau Müller"},
                                "finish_reason": "stop"}]}, ensure_ascii=False)
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def do_POST(self):
        self.rfile.read(int(self.headers.get("content-length", "0")))
        if MODE == "latin1":
            data = TEXT.encode("latin-1")
            self.send_response(200); self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data))); self.end_headers(); self.wfile.write(data)
            return
        piece = b" " * 65536  # MODE == "huge": 256 MiB of blanks before the JSON, chunked
        self.send_response(200); self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked"); self.end_headers()
        try:
            for _ in range(4096):
                self.wfile.write(b"%x\\r\\n%s\\r\\n" % (len(piece), piece))
            data = TEXT.encode()
            self.wfile.write(b"%x\\r\\n%s\\r\\n0\\r\\n\\r\\n" % (len(data), data))
        except OSError:
            pass
        self.close_connection = True
server = ThreadingHTTPServer(("127.0.0.1", 0), H)
threading.Thread(target=server.serve_forever, daemon=True).start()
URL = f"http://127.0.0.1:{server.server_address[1]}/v1"
"""

GENERATE = """
import resource, time
from evenhand.generation import OpenAIClient, generate
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
started = time.perf_counter()
frame = generate(["Hello"], OpenAIClient(URL, "m", timeout=120), count=1, store=None, progress=False, max_retries=0,
                 backoff=0.01).to_frame()
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(f"status {frame['status'][0]}; {time.perf_counter() - started:.1f} s; peak RSS +{(peak - before) / 1024:.0f} MiB")
print("message:", str(frame["error"][0] if frame["error"][0] else frame["response"][0])[:230])
"""

CTRL_C = """
import importlib.abc, signal, sys
class CtrlC(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "typer":
            sys.meta_path.remove(self)
            signal.raise_signal(signal.SIGINT)
        return None
sys.meta_path.insert(0, CtrlC())
sys.argv = ["evenhand", "--version"]
from evenhand.cli import main
sys.exit(main())
"""

HUGE_NUMBERS = """
import warnings
warnings.simplefilter("always")
from evenhand.metrics.estimation import counterfactual_estimate_difference as ced, counterfactual_estimate_ratio as cer
from evenhand.stats import paired_prompt_test
with warnings.catch_warnings(record=True) as caught:
    for label, fn, a, b in [("CED([1.7e308]*3, [1e308]*3)", ced, [1.7e308] * 3, [1e308] * 3),
                            ("CED([1e308]*2, [-1e308]*2)", ced, [1e308] * 2, [-1e308] * 2),
                            ("CER([1e308], [1e-10])", cer, [1e308], [1e-10])]:
        r = fn(a, b)
        print(f"{label}: value {r.value!r}, reason {r.reason!r}")
    t = paired_prompt_test([1.5e308, 1.6e308, 1.7e308, 1.4e308], [1e308] * 4, ["p", "q", "r", "s"], n_permutations=99)
    print(f"sign-flip test on 1.4e308..1.7e308 vs 1e308: statistic {t.statistic!r}, p {t.p_value!r}")
print(f"RuntimeWarnings: {len(caught)}")
"""

SERIES = """
import pandas as pd
from evenhand import metrics as m
frame = pd.DataFrame({"decision": [1, 1, 1, 0, 0, 0], "group": ["a", "a", "a", "b", "b", "b"]},
                     index=[10, 11, 12, 13, 14, 15])
groups = frame["group"].iloc[[3, 0, 4, 1, 5, 2]]  # reordered after both were taken from one frame
print("aligned rows:", m.demographic_parity_difference(frame["decision"], frame["group"]).value)
try:
    print("reordered groups, paired by position:", m.demographic_parity_difference(frame["decision"], groups).value)
except ValueError as exc:
    print("reordered groups: ValueError:", str(exc)[:160])
"""


def _child(code: str, env: dict[str, str], *, timeout: float = 300) -> tuple[int, str, float]:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=timeout)
    return done.returncode, (done.stdout + done.stderr).strip(), time.perf_counter() - started


def main() -> None:
    env = dict(os.environ)
    print(f"tree: {env.get('PYTHONPATH', '(installed)')}")
    for mode in ("latin1", "huge"):
        rc, out, _ = _child(SERVER.replace("MODE", repr(mode)) + GENERATE, env)
        print(f"\n[{mode} body] rc {rc}\n{textwrap.indent(out, '  ')}")
    with tempfile.TemporaryDirectory() as folder:
        base = "use_case: {task: text_generation, attributes: [gender]}\nprompts: {items: [Hi.]}\n"
        cases = [("seed 10**40", f"model: {{seed: {10**40}}}\n"), ('count "5"', 'generation: {count: "5"}\n'),
                 ("max_tokens 5.0", "model: {max_tokens: 5.0}\n")]  # fmt: skip
        for label, extra in cases:
            config = Path(folder) / "c.yaml"
            config.write_text(base + extra, encoding="utf-8")
            plan = "import sys; from evenhand.cli import main; sys.argv = ['evenhand', 'plan', sys.argv[1]]; main()"
            code = plan if label != "seed 10**40" else plan.replace("'plan'", "'assess'")
            started = time.perf_counter()
            done = subprocess.run([sys.executable, "-c", code, str(config)], capture_output=True, text=True, env=env,
                                  cwd=folder, timeout=300)  # fmt: skip
            lines = [line for line in (done.stderr or done.stdout).splitlines() if line.strip()]
            print(f"\n[config {label}] exit {done.returncode} in {time.perf_counter() - started:.1f} s: "
                  f"{(lines[-1] if lines else '')[:200]}")  # fmt: skip
    rc, out, _ = _child(HUGE_NUMBERS, env)
    print(f"\n[numbers near 1e308] rc {rc}\n{textwrap.indent(out, '  ')}")
    rc, out, _ = _child(CTRL_C, env)
    print(f"\n[Ctrl-C while importing typer] exit {rc}; stderr: {json.dumps(out[-160:])}")
    rc, out, _ = _child(SERIES, env)
    print(f"\n[Series, same labels in another order] rc {rc}\n{textwrap.indent(out, '  ')}")


if __name__ == "__main__":
    main()
