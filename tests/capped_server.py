"""A loopback OpenAI-compatible server that serves ``cap`` requests at a time and answers 429 beyond that.

Like a gateway in front of a model server with a fixed number of slots: each served request takes ``latency``
seconds; a request that finds every slot taken is answered at once with 429 and ``Retry-After``. It honours ``n``.
``GET /stats`` returns the requests seen, the 429s answered and the most served at once. Used by
tests/test_generation_pacing.py and benchmarks/bench_generation.py (``--capped``).

Standalone: ``python tests/capped_server.py --cap 32 --latency 0.2`` prints ``PORT <n>``; in-process:
``with CappedServer(cap=8, latency=0.05) as server: server.base_url``.
"""

from __future__ import annotations

import argparse
import asyncio
import threading
from dataclasses import dataclass
from typing import Any

from aiohttp import web
from typing_extensions import Self


@dataclass
class CapStats:
    requests: int = 0
    refused: int = 0  # answered 429
    active: int = 0
    peak: int = 0  # the most requests served at once

    def as_dict(self) -> dict[str, int]:
        return {"requests": self.requests, "refused": self.refused, "peak": self.peak}


def make_app(cap: int, latency: float, retry_after: str, stats: CapStats) -> web.Application:
    async def complete(request: web.Request) -> web.Response:
        body: dict[str, Any] = await request.json()
        stats.requests += 1
        if stats.active >= cap:  # every slot taken: refuse now, as a gateway with a concurrency limit does
            stats.refused += 1
            error = {"error": {"message": "too many requests in flight", "type": "rate_limit_exceeded"}}
            return web.json_response(error, status=429, headers={"Retry-After": retry_after})
        stats.active += 1
        stats.peak = max(stats.peak, stats.active)
        try:
            await asyncio.sleep(latency)
        finally:
            stats.active -= 1  # the slot is free before the answer is written, so the client never races it
        user = body["messages"][-1]["content"]
        n = int(body.get("n") or 1)
        choices = [
            {"index": i, "message": {"role": "assistant", "content": f"echo: {user} #{i}"}, "finish_reason": "stop"}
            for i in range(n)
        ]
        usage = {"prompt_tokens": 5, "completion_tokens": 5 * n, "total_tokens": 5 + 5 * n}
        return web.json_response({"id": "capped", "object": "chat.completion", "choices": choices, "usage": usage})

    async def get_stats(request: web.Request) -> web.Response:
        return web.json_response(stats.as_dict())

    app = web.Application()
    app.router.add_post("/v1/chat/completions", complete)
    app.router.add_get("/stats", get_stats)
    return app


class CappedServer:
    """The server on a background thread's event loop, bound to 127.0.0.1 on a free port."""

    def __init__(self, cap: int = 32, latency: float = 0.2, retry_after: str = "1") -> None:
        self.stats = CapStats()
        self._app = make_app(cap, latency, retry_after, self.stats)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="capped-server", daemon=True)
        self._runner: web.AppRunner | None = None
        self.port = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    async def _start(self) -> None:
        self._runner = web.AppRunner(self._app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = self._runner.addresses[0][1]

    def __enter__(self) -> Self:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(timeout=10)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._runner is not None:
            asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(timeout=10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)


async def _serve(cap: int, latency: float, retry_after: str) -> None:
    runner = web.AppRunner(make_app(cap, latency, retry_after, CapStats()), access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    print(f"PORT {runner.addresses[0][1]}", flush=True)
    await asyncio.Event().wait()  # until killed


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--cap", type=int, default=32, help="requests served at once (0: no cap)")
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--retry-after", default="1", help="the Retry-After header of a 429")
    args = parser.parse_args()
    asyncio.run(_serve(args.cap or 10**9, args.latency, args.retry_after))
