"""Load benchmark: drive a RUNNING stack and print its figures (docs/performance.md).

Starts nothing: point it at a web server (gunicorn or uvicorn) whose Celery worker and
model are running (see ``bench/stack.sh`` and docs/performance.md). For each client count it
runs two phases and prints one line of figures:

1. accept: ``--clients`` threads POST messages to their own conversation for
   ``--seconds`` (no polling meanwhile) → accepted msgs/s, POST latency p50/p90/p99,
   web CPU per accepted message (the web workers' CPU time over that phase);
2. drain: every reply is awaited through the message list → end-to-end replies/s
   (server timestamps: first message created → last reply finished), reply latency
   percentiles, worker CPU per reply (the Celery processes' CPU time over both phases).

Memory: resident set (RSS) and proportional share (PSS) of each web worker and Celery
child, and the Celery children's RSS growth per 1,000 replies. Needs ``--web-pid``
(gunicorn's master) and ``--worker-pid`` (Celery's main process) on this machine.

    python -m bench.load --url http://127.0.0.1:8000 --username bench --password bench-pass-123 \\
        --clients 8 --clients 32 --seconds 20 --web-pid 1234 --worker-pid 5678

Only addresses on this machine are meant as targets. ``MESSAGE_RATE`` must be high on
the stack under test, or the per-user throttle answers 429.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

SHORT_TEXTS = (
    "Gastei 50 reais no mercado hoje",
    "Dormi 6 horas essa noite e acordei cansada",
    "Preciso organizar minhas contas do mês",
    "Como posso conversar melhor com meu irmão?",
)
TICKS = os.sysconf("SC_CLK_TCK")


class Api:
    """The few API calls the benchmark makes, with a token."""

    def __init__(self, base: str, token: str | None = None) -> None:
        self.base = base.rstrip("/") + "/api/v1/"
        self.token = token

    def call(self, method: str, path: str, body: Any = None, timeout: float = 60) -> tuple[int, Any]:
        status, raw = self.raw(method, path, body, timeout)
        return status, json.loads(raw or b"null") if status < 400 else None

    def raw(self, method: str, path: str, body: Any = None, timeout: float = 60) -> tuple[int, bytes]:
        """Status and undecoded body (the byte size of a page is a figure)."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method)
        request.add_header("Content-Type", "application/json")
        if self.token:
            request.add_header("Authorization", f"Token {self.token}")
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as error:
            return error.code, b""


# --- processes ---------------------------------------------------------------------------


def children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(child) for child in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


def cpu_seconds(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / TICKS


def memory_mib(pid: int) -> dict[str, float]:
    """RSS and PSS of one process, in MiB."""
    figures = {"rss": 0.0, "pss": 0.0}
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            key, _, rest = line.partition(":")
            if key in ("Rss", "Pss"):
                figures[key.lower()] = int(rest.split()[0]) / 1024
    except OSError:
        pass
    return figures


@dataclass
class Processes:
    web_master: int | None
    worker_main: int | None

    def web(self) -> list[int]:
        return children(self.web_master) if self.web_master else []

    def workers(self) -> list[int]:
        return [self.worker_main, *children(self.worker_main)] if self.worker_main else []

    def worker_children(self) -> list[int]:
        """The processes that run replies: a prefork pool's children, else (threads) the main one."""
        if not self.worker_main:
            return []
        return children(self.worker_main) or [self.worker_main]


# --- phases -----------------------------------------------------------------------------


@dataclass
class Client:
    conversation: int
    latencies: list[float] = field(default_factory=list)
    replies: list[int] = field(default_factory=list)
    refused: int = 0


def accept_phase(api: Api, clients: list[Client], seconds: float, paste: str | None) -> float:
    deadline = time.monotonic() + seconds
    started = time.monotonic()

    def run(client: Client, number: int) -> None:
        n = 0
        while time.monotonic() < deadline:
            text = paste if paste and n % 10 == 9 else SHORT_TEXTS[(n + number) % len(SHORT_TEXTS)]
            t0 = time.perf_counter()
            status, body = api.call("POST", f"conversations/{client.conversation}/messages/", {"content": text})
            elapsed = time.perf_counter() - t0
            if status == 202 and body and body.get("assistant_message"):
                client.latencies.append(elapsed)
                client.replies.append(body["assistant_message"]["id"])
            else:
                client.refused += 1
            n += 1

    threads = [threading.Thread(target=run, args=(c, i)) for i, c in enumerate(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return time.monotonic() - started


def drain_phase(api: Api, clients: list[Client], timeout: float) -> list[dict[str, Any]]:
    """Every reply the clients got, once it has finished (or the timeout passed)."""
    wanted = {reply for client in clients for reply in client.replies}
    finished: dict[int, dict[str, Any]] = {}
    deadline = time.monotonic() + timeout
    while len(finished) < len(wanted) and time.monotonic() < deadline:
        for client in clients:
            if all(reply in finished for reply in client.replies):
                continue
            path = f"conversations/{client.conversation}/messages/?page_size=200"
            while path:
                status, page = api.call("GET", path)
                if status != 200:
                    break
                for message in page["results"]:
                    if message["id"] in wanted and message["status"] in ("done", "failed"):
                        finished[message["id"]] = message
                following = page.get("next")
                path = following.split("/api/v1/", 1)[1] if following else ""
        time.sleep(0.5)
    return list(finished.values())


def paste_text(kilobytes: int) -> str:
    """A CSV paste of about ``kilobytes`` KB, as a user pastes a bank export."""
    row = "2024-09-05,mercado,42.50\n"
    return "Analise estes gastos:\n\n```csv\ndate,place,amount\n" + row * (kilobytes * 1024 // len(row)) + "```\n"


def percentiles(values: list[float]) -> dict[str, float]:
    if not values:
        return {"p50": 0.0, "p90": 0.0, "p99": 0.0}
    ordered = sorted(values)

    def at(q: float) -> float:
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

    return {"p50": at(0.50), "p90": at(0.90), "p99": at(0.99)}


def stamp(value: str) -> float:
    return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()


def run_level(api: Api, processes: Processes, clients_count: int, seconds: float, paste: str | None,
              drain_timeout: float) -> dict[str, Any]:
    clients = [Client(api.call("POST", "conversations/", {"title": f"load {n}"})[1]["id"]) for n in range(clients_count)]
    web_pids, worker_pids = processes.web(), processes.workers()
    web_cpu, worker_cpu = cpu_seconds(web_pids), cpu_seconds(worker_pids)
    duration = accept_phase(api, clients, seconds, paste)
    web_cpu = cpu_seconds(web_pids) - web_cpu
    accepted = sum(len(c.replies) for c in clients)
    replies = drain_phase(api, clients, drain_timeout)
    worker_cpu = cpu_seconds(worker_pids) - worker_cpu
    done = [r for r in replies if r["status"] == "done"]
    created = [stamp(r["created_at"]) for r in replies]
    ended = [stamp(r["finished_at"]) for r in replies if r.get("finished_at")]
    span = (max(ended) - min(created)) if ended and created else 0.0
    return {
        "clients": clients_count,
        "seconds": round(duration, 1),
        "accepted": accepted,
        "refused": sum(c.refused for c in clients),
        "accepted_per_s": accepted / duration if duration else 0.0,
        "post_latency_ms": {k: v * 1000 for k, v in percentiles([x for c in clients for x in c.latencies]).items()},
        "web_cpu_ms_per_message": 1000 * web_cpu / accepted if accepted and web_pids else None,
        "replies_done": len(done),
        "replies_failed": len(replies) - len(done),
        "replies_missing": accepted - len(replies),
        "replies_per_s": len(done) / span if span else 0.0,
        "reply_latency_ms": {
            k: v * 1000
            for k, v in percentiles(
                [stamp(r["finished_at"]) - stamp(r["created_at"]) for r in replies if r.get("finished_at")]
            ).items()
        },
        "worker_cpu_ms_per_reply": 1000 * worker_cpu / len(replies) if replies and worker_pids else None,
    }


def latency_phase(api: Api, rounds: int, paste: str) -> dict[str, float]:
    """POST latency against a bare DRF create of one row (a new conversation), one client,
    interleaved in the same run so the machine's noise hits all three alike; then the byte
    size of the first page of the thread those ``rounds`` pastes went to."""
    short_thread = api.call("POST", "conversations/", {"title": "latency short"})[1]["id"]
    paste_thread = api.call("POST", "conversations/", {"title": "latency paste"})[1]["id"]
    calls = {
        "bare": ("conversations/", {"title": "bare"}),
        "short": (f"conversations/{short_thread}/messages/", {"content": SHORT_TEXTS[0]}),
        "paste": (f"conversations/{paste_thread}/messages/", {"content": paste}),
    }
    samples: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(rounds):
        for name, (path, body) in calls.items():
            t0 = time.perf_counter()
            status, _ = api.raw("POST", path, body)
            elapsed = time.perf_counter() - t0
            if status in (201, 202):
                samples[name].append(elapsed)
    median = {name: statistics.median(values) if values else 0.0 for name, values in samples.items()}
    status, page = api.raw("GET", f"conversations/{paste_thread}/messages/")
    return {
        "bare_ms": 1000 * median["bare"],
        "short_ms": 1000 * median["short"],
        "paste_ms": 1000 * median["paste"],
        "short_ratio": median["short"] / median["bare"] if median["bare"] else 0.0,
        "paste_ratio": median["paste"] / median["bare"] if median["bare"] else 0.0,
        "first_page_kb": len(page) / 1024 if status == 200 else 0.0,
        "pastes_in_thread": len(samples["paste"]),
    }


def goals_table(latency: dict[str, float], levels: list[dict[str, Any]], memory: dict[str, list[dict[str, float]]],
                growth: float | None) -> list[str]:
    """Each figure next to the issue's goal (a figure, never a verdict: the run does not fail)."""

    def span(values: list[float], unit: str) -> str:
        values = [v for v in values if v is not None]
        if not values:
            return "-"
        low, high = min(values), max(values)
        return f"{low:.1f} {unit}" if len(values) == 1 or f"{low:.1f}" == f"{high:.1f}" else f"{low:.1f}–{high:.1f} {unit}"

    clients = "/".join(str(level["clients"]) for level in levels)
    web_rss = [row["rss"] for row in memory["web_workers"]]
    child_rss = [row["rss"] for row in memory["celery_children"]]
    rows = [
        ("POST short / bare DRF create (median)", f"{latency['short_ratio']:.2f}x "
         f"({latency['short_ms']:.0f} / {latency['bare_ms']:.0f} ms)", "<= 2x"),
        ("POST 40 KB paste / bare DRF create (median)", f"{latency['paste_ratio']:.2f}x "
         f"({latency['paste_ms']:.0f} / {latency['bare_ms']:.0f} ms)", "<= 3x"),
        ("web CPU per accepted message", span([lv["web_cpu_ms_per_message"] for lv in levels], "ms"), "<= 16 ms"),
        ("worker CPU per reply (model's time excluded)", span([lv["worker_cpu_ms_per_reply"] for lv in levels], "ms"),
         "<= 30 ms"),
        (f"messages accepted/s at {clients} clients", span([lv["accepted_per_s"] for lv in levels], "/s"), ">= 60/s"),
        (f"replies finished/s end to end at {clients} clients", span([lv["replies_per_s"] for lv in levels], "/s"),
         ">= 30/s"),
        ("RSS per web worker (max)", f"{max(web_rss):.0f} MiB" if web_rss else "-", "<= 150 MiB"),
        ("RSS per Celery child (max)", f"{max(child_rss):.0f} MiB" if child_rss else "-", "<= 200 MiB"),
        ("Celery child RSS growth", "-" if growth is None else f"{growth * 10:+.2f} MiB per 10,000 replies",
         "<= 2 MiB per 10,000"),
        (f"first page of a thread of {latency['pastes_in_thread']:.0f} pastes", f"{latency['first_page_kb']:.1f} KB",
         "<= 100 KB"),
    ]
    width = max(len(row[0]) for row in rows)
    return [f"  {name:<{width}}  {measured:<28} goal {goal}" for name, measured, goal in rows]


def memory_snapshot(processes: Processes) -> dict[str, list[dict[str, float]]]:
    return {
        "web_workers": [memory_mib(pid) for pid in processes.web()],
        "celery_children": [memory_mib(pid) for pid in processes.worker_children()],
    }


def render(level: dict[str, Any]) -> str:
    post, reply = level["post_latency_ms"], level["reply_latency_ms"]
    web = level["web_cpu_ms_per_message"]
    worker = level["worker_cpu_ms_per_reply"]
    return (
        f"{level['clients']:>3} clients: accepted {level['accepted_per_s']:6.1f} msgs/s ({level['accepted']}"
        f"{', ' + str(level['refused']) + ' refused' if level['refused'] else ''}), "
        f"POST p50/p90/p99 {post['p50']:.0f}/{post['p90']:.0f}/{post['p99']:.0f} ms, "
        f"web CPU {'-' if web is None else f'{web:.1f}'} ms/msg | "
        f"replies {level['replies_per_s']:5.1f}/s ({level['replies_done']} done"
        f"{', ' + str(level['replies_failed']) + ' failed' if level['replies_failed'] else ''}"
        f"{', ' + str(level['replies_missing']) + ' unfinished' if level['replies_missing'] else ''}), "
        f"end-to-end p50/p90/p99 {reply['p50']:.0f}/{reply['p90']:.0f}/{reply['p99']:.0f} ms, "
        f"worker CPU {'-' if worker is None else f'{worker:.1f}'} ms/reply"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description="Drive a running stack and print its figures (docs/performance.md).")
    parser.add_argument("--url", required=True, help="The running web server, e.g. http://127.0.0.1:8000")
    parser.add_argument("--username", required=True)
    parser.add_argument("--password", required=True)
    parser.add_argument("--clients", type=int, action="append", help="Concurrent clients (repeatable; default 8 and 32).")
    parser.add_argument("--seconds", type=float, default=20.0, help="Length of each accept phase.")
    parser.add_argument("--paste-kb", type=int, default=0, help="Every 10th message is a paste of this size (0: none).")
    parser.add_argument("--latency-rounds", type=int, default=20,
                        help="One-client rounds of bare create / short POST / 40 KB paste POST (medians).")
    parser.add_argument("--warm-up-seconds", type=float, default=3.0,
                        help="Accept phase (4 clients) before memory is first read. The Celery children's RSS "
                             "climbs for their first ~1,000 replies and then holds: give 60 for the growth figure.")
    parser.add_argument("--drain-timeout", type=float, default=300.0)
    parser.add_argument("--web-pid", type=int, help="gunicorn's master pid (memory and CPU of its workers).")
    parser.add_argument("--worker-pid", type=int, help="Celery's main pid (memory and CPU of the worker).")
    parser.add_argument("--json", type=Path, help="Also write the figures to this file.")
    args = parser.parse_args()

    status, body = Api(args.url).call("POST", "auth/token/", {"username": args.username, "password": args.password})
    if status != 200:
        raise SystemExit(f"could not sign in as {args.username}: HTTP {status}")
    api = Api(args.url, body["token"])
    processes = Processes(args.web_pid, args.worker_pid)
    paste = paste_text(args.paste_kb) if args.paste_kb else None

    # Warm-up: every process has served and answered before memory is first read.
    warm = run_level(api, processes, 4, args.warm_up_seconds, None, args.drain_timeout)
    print(f"warm-up: {warm['accepted']} messages, {warm['replies_done']} replies", flush=True)
    latency = latency_phase(api, args.latency_rounds, paste_text(40))
    print(f"latency, 1 client, {args.latency_rounds} rounds (median): bare create {latency['bare_ms']:.0f} ms, "
          f"POST short {latency['short_ms']:.0f} ms, POST 40 KB paste {latency['paste_ms']:.0f} ms", flush=True)
    before = memory_snapshot(processes)
    levels = []
    for count in args.clients or [8, 32]:
        level = run_level(api, processes, count, args.seconds, paste, args.drain_timeout)
        levels.append(level)
        print(render(level), flush=True)
    after = memory_snapshot(processes)
    replies = sum(level["replies_done"] + level["replies_failed"] for level in levels)
    growth = None
    if before["celery_children"] and after["celery_children"] and replies:
        start = statistics.mean(m["rss"] for m in before["celery_children"])
        end = statistics.mean(m["rss"] for m in after["celery_children"])
        growth = (end - start) * 1000 / replies
    for name, label in (("web_workers", "web worker"), ("celery_children", "Celery child")):
        rows = after[name]
        if rows:
            print(f"memory per {label}: RSS {max(r['rss'] for r in rows):.0f} MiB (max of {len(rows)}), "
                  f"PSS {max(r['pss'] for r in rows):.0f} MiB", flush=True)
    if growth is not None:
        print(f"Celery child RSS growth after warm-up: {growth:+.2f} MiB per 1,000 replies "
              f"(over {replies} replies)", flush=True)
    print("figures against their goals (docs/performance.md):", *goals_table(latency, levels, after, growth), sep="\n", flush=True)
    if args.json:
        args.json.write_text(json.dumps({"latency": latency, "levels": levels, "memory_before": before,
                                         "memory_after": after,
                                         "celery_child_growth_mib_per_1000": growth}, indent=2))


if __name__ == "__main__":
    main()
