"""Response-generation throughput against the loopback OpenAI-compatible server (issue 6).

Runs, in one go:
1. evenhand: 5,000 requests (1,000 prompts x 5 samples, one request per sample) at concurrency 100 against the
   stub at 50 ms latency; the ideal is 5,000 / 100 x 0.05 s = 2.5 s. Stored in a fresh SQLite file (WAL).
2. the same with 20% injected 429s (Retry-After 0.01 s): all 5,000 must complete.
3. a bare aiohttp loop at the same server: the floor the machine allows at that moment (context for noisy runs).
4. LangFair 0.8.0 ``ResponseGenerator`` driving LangChain's ``ChatOpenAI`` at the same server (run in
   ``.venv-langfair`` as a subprocess), same request count; LangFair has no concurrency setting and sends all
   requests at once through the OpenAI SDK's httpx pool.
5. optionally (``--local``) the embedded SmolLM2 model's responses/s on this machine.
6. ``--faults`` (issue 15) instead: 1,500 samples (300 prompts x 5) against ``tests/fault_server.py`` with 30% of
   the requests failing (429 with Retry-After, 500, 503, timeouts, dropped and truncated connections, garbage JSON,
   200 with zero choices, with empty content, without content), default retry settings (``--max-retries`` /
   ``--backoff`` to change them), client timeout 1 s; with ``n`` honoured, in one-sample mode (``n=False``) and
   against a server that ignores ``n``: permanently failed samples, their reasons, server requests and requests
   that asked for n > 1.

7. ``--capped`` (issue 24) instead: 1,000 prompts x 25 samples (``n`` honoured: 1,000 requests) against
   ``tests/capped_server.py``, which serves 32 requests at a time with 200 ms latency and answers 429 with
   ``Retry-After: 1`` beyond (floor 1,000 / 32 x 0.2 s = 6.25 s): the default (adaptive) concurrency, fixed 16 (the
   default before) and fixed 32, ``--runs`` runs each, with the share of requests answered 429; then the same
   server without a cap, default against fixed 16.

Usage: .venv/bin/python benchmarks/bench_generation.py [--requests 5000] [--local] [--faults [--seeds 5]]
       [--capped [--runs 3]]
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
STUB = ROOT / "tests" / "openai_stub.py"
FAULT_SERVER = ROOT / "tests" / "fault_server.py"
CAPPED_SERVER = ROOT / "tests" / "capped_server.py"
LANGFAIR_PY = ROOT / ".venv-langfair" / "bin" / "python"

LANGFAIR_SCRIPT = r"""
import asyncio, json, sys, time
from langchain_openai import ChatOpenAI
from langfair.generator import ResponseGenerator
base_url, n_prompts, count, concurrency = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
llm = ChatOpenAI(model="stub", base_url=base_url, api_key="sk-bench", temperature=1.0, max_retries=6)
gen = ResponseGenerator(langchain_llm=llm, use_n_param=False)  # one request per sample, as evenhand here
prompts = [f"prompt {i}" for i in range(n_prompts)]
t = time.perf_counter()
out = asyncio.run(gen.generate_responses(prompts=prompts, count=count, show_progress_bars=False))
dt = time.perf_counter() - t
responses = out["data"]["response"]
ok = sum(isinstance(r, str) and r.startswith("echo") for r in responses)
print(json.dumps({"seconds": dt, "ok": ok, "total": len(responses)}))
"""


def start_stub(*args: str, script: Path = STUB) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen([sys.executable, str(script), *args], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    port = int(proc.stdout.readline().split()[1])
    return proc, f"http://127.0.0.1:{port}/v1"


def stub_stats(base_url: str) -> dict[str, Any]:
    import urllib.request

    with urllib.request.urlopen(base_url.rsplit("/v1", 1)[0] + "/stats") as resp:
        stats: dict[str, Any] = json.loads(resp.read())
        return stats


def stub_total(base_url: str) -> int:
    return int(stub_stats(base_url)["total"])


def run_faults(seed: int, mode: str, retry: dict[str, Any], n_prompts: int = 300, count: int = 5) -> dict[str, Any]:
    """One run at 30% faults of every kind; ``mode``: "n" (server honours n), "one" (n=False), "ignored"."""
    from collections import Counter

    from evenhand.generation import OpenAIClient, generate

    args = ["--fault-rate", "0.3", "--seed", str(seed), "--hang", "3", "--latency", "0.01"]
    proc, base_url = start_stub(*args, *(["--no-n"] if mode == "ignored" else []), script=FAULT_SERVER)
    try:
        prompts = [f"fault prompt {i}" for i in range(n_prompts)]
        client = OpenAIClient(base_url, "fault", timeout=1.0, n=False if mode == "one" else "auto")
        with tempfile.TemporaryDirectory() as tmp:
            t = time.perf_counter()
            result = generate(
                prompts, client, count=count, concurrency=32, store=Path(tmp) / "g.sqlite", progress=False, **retry
            )
            dt = time.perf_counter() - t
        frame = result.to_frame()
        failed = frame[frame["status"] != "ok"]
        reasons = Counter(
            re.sub(r" ?(?:from|to)? https?://\S*?/chat/completions", "", str(e).split(": ", 1)[-1]).split(":")[0][:40]
            for e in failed["error"]
        )
        stats = stub_stats(base_url)
        ok = frame.loc[frame["status"] == "ok", "response"]
        blank = ok.map(lambda t: not isinstance(t, str) or not t.strip())
        ok = ok[~blank]
        return {
            "ok_blank": int(blank.sum()),
            "seconds": dt,
            "failed": len(failed),
            "total": len(frame),
            "unexplained": int(failed["error"].isna().sum()),
            "duplicated": int(ok.duplicated().sum()),
            "reasons": dict(reasons),
            "server_requests": stats["total"],
            "with_n": stats.get("with_n", 0),
        }
    finally:
        proc.kill()


def faults_main(seeds: int, retry: dict[str, Any]) -> None:
    settings = ", ".join(f"{k}={v}" for k, v in retry.items()) or "default retry settings"
    print(f"\n30% faults, 300 prompts x 5 samples, {settings}, timeout 1 s, concurrency 32\n")
    print(
        '| mode | seed | failed / 1500 | reasons | "ok" but blank | server requests | asked n > 1 | duplicated '
        "| seconds |"
    )
    print("|---|---:|---:|---|---:|---:|---:|---:|---:|")
    for mode in ("n", "one", "ignored"):
        for seed in range(1, seeds + 1):
            r = run_faults(seed, mode, retry)
            reasons = "; ".join(f"{k} x{v}" for k, v in sorted(r["reasons"].items())) or "-"
            print(
                f"| {mode} | {seed} | {r['failed']} ({r['failed'] / r['total']:.2%}) | {reasons} | {r['ok_blank']} "
                f"| {r['server_requests']} | {r['with_n']} | {r['duplicated']} | {r['seconds']:.1f} |",
                flush=True,
            )


def run_capped(cap: int, concurrency: int | None, n_prompts: int = 1000, count: int = 25) -> dict[str, Any]:
    """One run against the capped server (``cap`` 0: no cap), 200 ms latency; ``concurrency`` None: the default."""
    from evenhand.generation import OpenAIClient, generate

    proc, base_url = start_stub("--cap", str(cap), "--latency", "0.2", "--retry-after", "1", script=CAPPED_SERVER)
    try:
        prompts = [f"capped prompt {i}" for i in range(n_prompts)]
        client = OpenAIClient(base_url, "capped", api_key="sk-bench")
        with tempfile.TemporaryDirectory() as tmp:
            t = time.perf_counter()
            result = generate(
                prompts, client, count=count, concurrency=concurrency, store=Path(tmp) / "g.sqlite", progress=False
            )
            dt = time.perf_counter() - t
        stats = stub_stats(base_url)
        return {"seconds": dt, "ok": result.status_counts()["ok"], "total": len(result), **stats}
    finally:
        proc.kill()


def capped_main(runs: int) -> None:
    floor = 1000 / 32 * 0.2
    print(f"\n1,000 prompts x 25 samples (n honoured), 200 ms latency, {runs} runs each; capped floor {floor:.2f} s\n")
    print("| server | concurrency | seconds (runs) | median x ideal | completed | requests | answered 429 | peak |")
    print("|---|---|---|---:|---:|---:|---:|---:|")
    for cap, settings in ((32, (None, 16, 32)), (0, (None, 16))):
        for concurrency in settings:
            rows = [run_capped(cap, concurrency) for _ in range(runs)]
            seconds = sorted(r["seconds"] for r in rows)
            median = seconds[len(seconds) // 2]
            last = rows[-1]
            refused = ", ".join(f"{r['refused']} ({r['refused'] / r['requests']:.1%})" for r in rows)
            ideal = floor if cap else 1000 / 64 * 0.2
            print(
                f"| {'cap 32' if cap else 'no cap'} | {concurrency or 'default (adaptive)'} "
                f"| {' / '.join(f'{x:.2f}' for x in seconds)} | {median / ideal:.2f} | {last['ok']}/{last['total']} "
                f"| {' / '.join(str(r['requests']) for r in rows)} | {refused} | {last['peak']} |",
                flush=True,
            )


def run_evenhand(n_prompts: int, count: int, concurrency: int, rate_429: float) -> dict[str, float]:
    from evenhand.generation import OpenAIClient, generate

    proc, base_url = start_stub("--latency", "0.05", "--rate-429", str(rate_429), "--no-n")
    try:
        prompts = [f"prompt {i}" for i in range(n_prompts)]
        with tempfile.TemporaryDirectory() as tmp:
            client = OpenAIClient(base_url, "stub", api_key="sk-bench", n=False)
            t = time.perf_counter()
            result = generate(
                prompts, client, count=count, concurrency=concurrency, store=Path(tmp) / "g.sqlite",
                progress=False, max_retries=10, backoff=0.01,
            )  # fmt: skip
            dt = time.perf_counter() - t
        counts = result.status_counts()
        return {"seconds": dt, "ok": counts["ok"], "total": len(result), "server_requests": stub_total(base_url)}
    finally:
        proc.kill()


def run_floor(n_requests: int, concurrency: int) -> dict[str, float]:
    """A bare aiohttp loop (no store, no retries, no bookkeeping): the floor this machine allows right now."""
    import asyncio

    import aiohttp

    proc, base_url = start_stub("--latency", "0.05", "--no-n")

    async def go() -> float:
        sem = asyncio.Semaphore(concurrency)
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=concurrency)) as session:

            async def one(i: int) -> None:
                async with sem:
                    body = {"model": "stub", "messages": [{"role": "user", "content": f"prompt {i}"}]}
                    async with session.post(f"{base_url}/chat/completions", json=body) as resp:
                        await resp.json()

            t = time.perf_counter()
            await asyncio.gather(*(one(i) for i in range(n_requests)))
            return time.perf_counter() - t

    try:
        dt = asyncio.run(go())
        return {"seconds": dt, "ok": n_requests, "total": n_requests, "server_requests": stub_total(base_url)}
    finally:
        proc.kill()


def run_langfair(n_prompts: int, count: int, concurrency: int) -> dict[str, float] | None:
    if not LANGFAIR_PY.exists():
        return None
    proc, base_url = start_stub("--latency", "0.05", "--no-n")
    try:
        out = subprocess.run(
            [str(LANGFAIR_PY), "-c", LANGFAIR_SCRIPT, base_url, str(n_prompts), str(count), str(concurrency)],
            capture_output=True, text=True, timeout=900,
        )  # fmt: skip
        if out.returncode != 0:
            print(out.stderr[-2000:], file=sys.stderr)
            return None
        data: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
        data["server_requests"] = stub_total(base_url)
        return data
    finally:
        proc.kill()


def run_local(n_prompts: int, count: int, max_tokens: int) -> dict[str, float]:
    from evenhand.generation import LocalModelClient, generate

    client = LocalModelClient()
    t = time.perf_counter()
    client.load()
    load_s = time.perf_counter() - t
    prompts = [f"Write one sentence about a {w} nurse." for w in ("young", "old", "tall", "kind")] * (n_prompts // 4)
    t = time.perf_counter()
    result = generate(prompts, client, count=count, max_tokens=max_tokens, store=None, progress=False, seed=0)
    dt = time.perf_counter() - t
    return {"load_s": load_s, "seconds": dt, "responses": len(result), "per_s": len(result) / dt}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=5000)
    parser.add_argument("--concurrency", type=int, default=100)
    parser.add_argument("--local", action="store_true", help="also measure the embedded SmolLM2")
    parser.add_argument("--skip-langfair", action="store_true")
    parser.add_argument("--faults", action="store_true", help="issue 15: runs against the fault-injecting server")
    parser.add_argument("--seeds", type=int, default=5, help="runs per mode with --faults")
    parser.add_argument("--max-retries", type=int, default=None, help="with --faults (default: the library's)")
    parser.add_argument("--backoff", type=float, default=None, help="with --faults (default: the library's)")
    parser.add_argument("--capped", action="store_true", help="issue 24: a server that serves 32 at a time")
    parser.add_argument("--runs", type=int, default=3, help="runs per setting with --capped")
    args = parser.parse_args()
    if args.capped:
        capped_main(args.runs)
        return
    if args.faults:
        retry = {"max_retries": args.max_retries, "backoff": args.backoff}
        faults_main(args.seeds, {k: v for k, v in retry.items() if v is not None})
        return
    count = 5
    n_prompts = args.requests // count
    ideal = args.requests / args.concurrency * 0.05

    rows = [("bare aiohttp loop (floor: no store, no retries)", run_floor(args.requests, args.concurrency))]
    eh = run_evenhand(n_prompts, count, args.concurrency, 0.0)
    rows.append(("evenhand, 0% 429", eh))
    eh429 = run_evenhand(n_prompts, count, args.concurrency, 0.2)
    rows.append(("evenhand, 20% 429", eh429))
    if not args.skip_langfair:
        lf = run_langfair(n_prompts, count, args.concurrency)
        if lf is not None:
            rows.append(("LangFair 0.8.0 ResponseGenerator + ChatOpenAI, 0% 429", lf))

    print(f"\n{args.requests} requests, concurrency {args.concurrency}, 50 ms latency, ideal {ideal:.2f} s\n")
    print("| run | seconds | x ideal | completed | server requests |")
    print("|---|---:|---:|---:|---:|")
    for name, r in rows:
        print(
            f"| {name} | {r['seconds']:.2f} | {r['seconds'] / ideal:.2f} | {int(r['ok'])}/{int(r['total'])} "
            f"| {int(r['server_requests'])} |"
        )
    if args.local:
        loc = run_local(32, 2, 48)
        print("\n| embedded SmolLM2-135M (Q4_1 GGUF, fp32 on CPU) | value |\n|---|---:|")
        print(f"| load (s) | {loc['load_s']:.1f} |")
        label = f"{int(loc['responses'])} responses, 48 new tokens max, default batch and threads (s)"
        print(f"| {label} | {loc['seconds']:.1f} |")
        print(f"| responses/s | {loc['per_s']:.2f} |")


if __name__ == "__main__":
    main()
