"""Open event streams on one web process: its memory and its Redis connections.

Drives a RUNNING stack with no worker consuming (``bench/concurrency.sh --open-streams N``
starts one), so every reply stays pending and its event stream stays open, waiting, as a
stream does while its reply runs. Posts N messages (one conversation each, the people's
tokens in turn), opens the N streams, holds them ``--hold`` seconds, and prints: streams
open, the web worker's resident memory and threads before and with them, and the Redis
connections the server holds (``INFO clients``) before and with them; then deletes what it
created.

    python -m bench.open_streams --url http://127.0.0.1:8000 --tokens tokens.txt \\
        --web-pid 1234 --redis-url redis://... --streams 1000

Only addresses on this machine are meant as targets.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path
from typing import Any

import httpx

from bench.load import children, memory_mib


def web_memory(web_pid: int) -> dict[str, float]:
    """The largest web worker's RSS and PSS in MiB (the gunicorn master's children). PSS
    counts a page shared with the master (what ``--preload`` loaded) in part only."""
    sizes = [memory_mib(pid) for pid in children(web_pid)]
    largest = max(sizes, key=lambda size: size["rss"], default={"rss": 0.0, "pss": 0.0})
    return {"rss": round(largest["rss"], 1), "pss": round(largest["pss"], 1)}


def web_threads(web_pid: int) -> int:
    """The threads of the largest web worker."""
    counts = [0]
    for pid in children(web_pid):
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        counts += [int(line.split()[1]) for line in status.splitlines() if line.startswith("Threads:")]
    return max(counts)


def redis_clients(url: str) -> int:
    import redis

    client = redis.Redis.from_url(url)
    try:
        return int(client.info("clients")["connected_clients"]) - 1  # this one
    finally:
        client.close()


async def post_messages(client: httpx.AsyncClient, tokens: list[str], count: int) -> list[tuple[str, int]]:
    """``count`` pending replies: (token, reply id)."""
    semaphore = asyncio.Semaphore(20)

    async def one(n: int) -> tuple[str, int]:
        token = tokens[n % len(tokens)]
        headers = {"Authorization": f"Token {token}"}
        async with semaphore:
            conversation = (await client.post("conversations/", json={}, headers=headers)).json()["id"]
            reply = await client.post(f"conversations/{conversation}/messages/", json={"content": f"Oi ({n})"},
                                      headers=headers)
        reply.raise_for_status()
        return token, reply.json()["assistant_message"]["id"]

    return list(await asyncio.gather(*(one(n) for n in range(count))))


async def hold_streams(client: httpx.AsyncClient, replies: list[tuple[str, int]], hold: float, args: argparse.Namespace
                       ) -> dict[str, Any]:
    opened = asyncio.Event()
    open_now = 0
    figures: dict[str, Any] = {}

    async def follow(token: str, reply: int) -> None:
        nonlocal open_now
        async with client.stream("GET", f"messages/{reply}/events/", headers={"Authorization": f"Token {token}"}) as response:
            if response.status_code != 200:
                return
            open_now += 1
            if open_now == len(replies):
                opened.set()
            async for _ in response.aiter_bytes():
                pass  # keep-alive comments until the stream is closed

    tasks = [asyncio.create_task(follow(token, reply)) for token, reply in replies]
    try:
        await asyncio.wait_for(opened.wait(), timeout=120)
    except asyncio.TimeoutError:
        pass
    await asyncio.sleep(hold)
    figures["streams_open"] = open_now
    figures["web_worker_mib"] = web_memory(args.web_pid)
    figures["web_worker_threads"] = web_threads(args.web_pid)
    figures["redis_clients"] = redis_clients(args.redis_url)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return figures


async def run(args: argparse.Namespace) -> dict[str, Any]:
    tokens = [line.strip() for line in Path(args.tokens).read_text().splitlines() if line.strip()]
    limits = httpx.Limits(max_connections=args.streams + 50, max_keepalive_connections=args.streams + 50)
    async with httpx.AsyncClient(base_url=args.url.rstrip("/") + "/api/v1/", limits=limits,
                                 timeout=httpx.Timeout(60, read=None)) as client:
        replies = await post_messages(client, tokens, args.streams)
        before = {"web_worker_mib": web_memory(args.web_pid), "web_worker_threads": web_threads(args.web_pid),
                  "redis_clients": redis_clients(args.redis_url)}
        held = await hold_streams(client, replies, args.hold, args)
        await delete_conversations(client, replies)
    return {"streams": args.streams, "before": before, "with_streams": held}


async def delete_conversations(client: httpx.AsyncClient, replies: list[tuple[str, int]]) -> None:
    """Delete what the run created: pending replies left behind would be queued again by the
    next worker's watchdog, in the middle of the next benchmark."""
    semaphore = asyncio.Semaphore(20)

    async def one(token: str, reply: int) -> None:
        headers = {"Authorization": f"Token {token}"}
        async with semaphore:
            message = (await client.get(f"messages/{reply}/", headers=headers)).json()
            (await client.delete(f"conversations/{message['conversation']}/", headers=headers)).raise_for_status()

    await asyncio.gather(*(one(token, reply) for token, reply in replies))


def main() -> None:
    parser = argparse.ArgumentParser(description="Hold N open event streams on a web process; print its memory.")
    parser.add_argument("--url", required=True)
    parser.add_argument("--tokens", required=True)
    parser.add_argument("--web-pid", type=int, required=True, help="the gunicorn master")
    parser.add_argument("--redis-url", required=True, help="the events' Redis")
    parser.add_argument("--streams", type=int, default=1000)
    parser.add_argument("--hold", type=float, default=10.0, help="seconds the streams stay open before sampling")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    figures = asyncio.run(run(args))
    before, held = figures["before"], figures["with_streams"]
    print(f"{figures['streams']} open streams on one web process: {held['streams_open']} open | web worker RSS "
          f"{before['web_worker_mib']['rss']} MiB before, {held['web_worker_mib']['rss']} MiB with them (PSS "
          f"{before['web_worker_mib']['pss']} → {held['web_worker_mib']['pss']} MiB) | its threads "
          f"{before['web_worker_threads']} before, {held['web_worker_threads']} with them | Redis connections "
          f"held {before['redis_clients']} before, {held['redis_clients']} with them")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
