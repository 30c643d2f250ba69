"""Time ``skillcite refresh`` against a local HTTP server: timeouts, politeness, parallel hosts.

The tests (tests/test_refresh.py) check what refresh reports; how long it
takes depends on the machine's load, so the timings live here and are
printed, never asserted:

* a response slower than ``--timeout`` is given up at the timeout on each
  attempt (two attempts with ``retries=1``), not after the server's full delay;
* requests to one host are spaced by at least ``host_delay``;
* sources on two hosts are fetched in parallel with ``jobs=2``.

Run from the repository root (needs the ``refresh`` extras)::

    python bench/refresh_timing.py

Only 127.0.0.1 is contacted.
"""

from __future__ import annotations

import itertools
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))

from skillcite.refresh.fetch import FetchConfig  # noqa: E402
from skillcite.refresh.runner import refresh_sources  # noqa: E402
from skillcite.repair.lock import lock_file  # noqa: E402

PASSAGE = "Assume you have a bug. Everything else in this essay follows from that one working assumption."
PAGE = (
    "<!DOCTYPE html><html><head><meta charset='utf-8'><title>A Post</title></head><body>"
    f"<article><h1>A Post</h1>\n<p>{PASSAGE}</p>\n</article></body></html>"
).encode()
SLOW = {"/slow": 1.0, "/slow-short": 0.3}  # seconds the server waits before answering
TIMEOUT = 0.4


class Server:
    """A threaded server on 127.0.0.1: ``/slow`` and ``/slow-short`` wait, everything else answers at once."""

    def __init__(self) -> None:
        self.times: list[float] = []
        log = self.times

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                log.append(time.monotonic())
                time.sleep(SLOW.get(self.path.split("?")[0], 0.0))
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "text/html; charset=utf-8")
                    self.send_header("Content-Length", str(len(PAGE)))
                    self.end_headers()
                    self.wfile.write(PAGE)
                except OSError:
                    pass  # the client gave up

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def package(root: Path, urls: dict[str, str]) -> Path:
    """A package whose evidence files cite ``urls`` (id -> URL), each locked."""
    folder = root / "docs" / "evidence"
    folder.mkdir(parents=True)
    (root / "pyproject.toml").write_text('[tool.skillcite]\nevidence = "docs/evidence"\n', encoding="utf-8")
    for ev_id, url in urls.items():
        front = ["---", f"source: {url}", 'title: "A Post"', "author: A. Author", "retrieved: 2026-11-21",
                 "kind: excerpt", "license: CC BY 4.0", "sha256: pending", "---", ""]
        path = folder / f"{ev_id}.md"
        path.write_text("\n".join(front) + PASSAGE + "\n", encoding="utf-8")
        lock_file(path)
    return root


def config(**kw: float) -> FetchConfig:
    base: dict[str, float] = {"timeout": TIMEOUT, "retries": 2, "backoff": 0.01, "max_wait": 0.05, "host_delay": 0.0}
    base.update(kw)
    return FetchConfig(**base)  # type: ignore[arg-type]


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        server = Server()
        try:
            root = package(Path(tmp) / "slow", {"slow": server.base + "/slow"})
            t0 = time.monotonic()
            [report] = refresh_sources(root, config=config(retries=1), jobs=1)
            gave_up = time.monotonic() - t0
            print(f"slow response: {report.status}, gave up after {gave_up:.2f} s "
                  f"(2 attempts x timeout {TIMEOUT} s = {2 * TIMEOUT:.1f} s; the server waits {SLOW['/slow']} s each)")

            root = package(Path(tmp) / "polite", {f"p{k}": f"{server.base}/page?{k}" for k in range(3)})
            start = len(server.times)
            refresh_sources(root, config=config(host_delay=0.15), jobs=3)
            times = sorted(server.times[start:])
            gaps = [b - a for a, b in itertools.pairwise(times)]
            print(f"politeness: {len(times)} requests to one host, smallest gap {min(gaps):.3f} s (host_delay 0.15 s)")
        finally:
            server.close()

        servers = [Server(), Server()]
        try:
            root = package(Path(tmp) / "parallel", {f"s{k}": s.base + "/slow-short" for k, s in enumerate(servers)})
            t0 = time.monotonic()
            refresh_sources(root, config=config(timeout=2), jobs=2)
            parallel = time.monotonic() - t0
            t0 = time.monotonic()
            refresh_sources(root, config=config(timeout=2), jobs=1)
            serial = time.monotonic() - t0
            print(f"two hosts, {SLOW['/slow-short']} s each: jobs=2 {parallel:.2f} s, jobs=1 {serial:.2f} s")
        finally:
            for s in servers:
                s.close()


if __name__ == "__main__":
    main()
