"""Time ``skillcite refresh``'s defences against hostile servers and pages.

Run from the repository root::

    PYTHONPATH=tools python bench/refresh_hostile.py

A loopback server sends headers or a body one byte every 0.05 s (inside any
read timeout); the fetcher must give up at its total deadline. A page with
200,000 attributes on one tag must be refused before any parser sees it
(libxml2 alone took over five minutes on it). A 2 MB ordinary page is
extracted for comparison. Prints seconds; asserts nothing.
"""

from __future__ import annotations

import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from skillcite.refresh.extract import Unsupported, extract_text
from skillcite.refresh.fetch import FetchConfig, Fetcher

GAP = 0.05


class Drip(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        head = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"
        head += b"X-Slow: " if self.path == "/headers" else b"Content-Length: 100000\r\n\r\n"
        try:
            self.wfile.write(head)
            for _ in range(100_000):
                self.wfile.write(b"a")
                time.sleep(GAP)
        except OSError:
            pass
        self.close_connection = True


def drip(path: str, timeout: float, deadline: float) -> float:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Drip)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    cfg = FetchConfig(timeout=timeout, total_timeout=deadline, retries=3, host_delay=0, cache_dir=None)
    start = time.perf_counter()
    result = Fetcher(cfg).fetch(f"http://127.0.0.1:{httpd.server_address[1]}{path}")
    elapsed = time.perf_counter() - start
    httpd.shutdown()
    httpd.server_close()
    print(f"drip {path:<9} timeout {timeout:g} s, deadline {deadline:g} s: gave up after {elapsed:.2f} s ({result.error})")
    return elapsed


def attributes(n: int) -> None:
    attrs = " ".join(f'a{i}="v"' for i in range(n))
    html = f"<html><body><article {attrs}><p>Hello.</p></article></body></html>".encode()
    start = time.perf_counter()
    try:
        extract_text(html, "text/html")
        outcome = "extracted"
    except Unsupported as exc:
        outcome = f"refused: {exc}"
    print(f"{n:,} attributes ({len(html):,} bytes): {time.perf_counter() - start:.3f} s, {outcome}")


def ordinary(paragraphs: int) -> None:
    body = "".join(f"<p class='x' id='p{i}'>Paragraph {i} of an ordinary article, with <a href='/l{i}'>a link</a>.</p>" for i in range(paragraphs))
    html = f"<html><body><article>{body}</article></body></html>".encode()
    start = time.perf_counter()
    extract_text(html, "text/html")
    print(f"ordinary page ({len(html):,} bytes): {time.perf_counter() - start:.2f} s")


if __name__ == "__main__":
    socket.setdefaulttimeout(None)
    drip("/headers", timeout=2.0, deadline=12.0)  # the defaults for --timeout 2
    drip("/body", timeout=2.0, deadline=12.0)
    attributes(200_000)
    attributes(512)
    ordinary(20_000)
