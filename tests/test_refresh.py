"""``skillcite refresh`` against a real HTTP server on 127.0.0.1.

Every request goes to a ThreadingHTTPServer started here on port 0; no test
touches an address outside loopback. Delays, backoff and caps are shrunk
through the command's options (or :class:`FetchConfig`) so the suite takes
seconds.
"""

from __future__ import annotations

import datetime as dt
import email.utils
import hashlib
import itertools
import shutil
import urllib.parse
import os
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from click.testing import CliRunner

pytest.importorskip("requests")
pytest.importorskip("trafilatura")

from skillcite.cli.app import main
from skillcite.check.parsing.evidence import split_front_matter
from skillcite.refresh.extract import decode_body
from skillcite.refresh.fetch import FetchConfig, Fetcher, HostGate, parse_retry_after, retry_wait
from skillcite.repair.lock import lock_file
from skillcite.refresh.record import RECORD_NAME, load_records
from skillcite.refresh.runner import refresh_sources, split_passages
from skillcite.core.textio import InputError, read_text

P1 = "Assume you have a bug. Everything else in this essay follows from that one working assumption."
P2 = "Neural networks fail silently: the loss goes down while the model learns something you did not intend."
P3 = "Overfit a single batch first, because a model that cannot memorise eight examples has a bug in it."
RUSSIAN = "Привет, мир: это страница в кодировке windows-1251, и она должна читаться."
LATIN = "Le caf\u00e9 na\u00efve \u00e0 c\u00f4t\u00e9 de la gare sert un th\u00e9 tr\u00e8s fort aux voyageurs fatigu\u00e9s."
PLAIN = "This plain text page is served as text/plain and it holds the passage verbatim.\n\nA second line of it.\n"
SIDEBAR = "A reader's comment that main-content extraction drops but the page still shows."
TIMEOUT = 0.4  # the slow route waits longer than this


def page(*paragraphs: str, title: str = "A Post") -> str:
    """A small article page trafilatura recognises as main content."""
    body = "".join(f"<p>{p}</p>\n" for p in paragraphs)
    return (
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{title}</title></head><body>"
        f"<nav><a href='/'>Home</a> <a href='/about'>About</a></nav>"
        f"<article><h1>{title}</h1>\n{body}</article><footer>Footer text</footer></body></html>"
    )


class Server:
    """Routes, request log and counters shared with the handler threads."""

    def __init__(self) -> None:
        self.hits: Counter[str] = Counter()
        self.pages: dict[str, bytes] = {}  # extra text/plain routes a test serves
        self.log: list[tuple[str, float, dict[str, str]]] = []
        self.lock = threading.Lock()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.httpd.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def url(self, path: str) -> str:
        return self.base + path

    def statuses(self, path: str) -> list[int]:
        return [s for p, s in self.sent if p == path]

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self
        server.sent = []

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:  # keep pytest output clean
                pass

            def send(self, status: int, body: bytes = b"", ctype: str = "text/html; charset=utf-8", **headers: str) -> None:
                with server.lock:
                    server.sent.append((self.path, status))
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                for k, v in headers.items():
                    self.send_header(k.replace("_", "-"), v)
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:
                path = self.path
                with server.lock:
                    server.hits[path] += 1
                    n = server.hits[path]
                    server.log.append((path, time.monotonic(), dict(self.headers)))
                html = lambda *ps: page(*ps).encode("utf-8")
                if path in server.pages:
                    self.send(200, server.pages[path], "text/plain; charset=utf-8")
                elif path == "/page":
                    self.send(200, html(P1, P2, P3))
                elif path == "/edited":
                    self.send(200, html(P1, P2.replace("silently", "quietly"), P3))
                elif path == "/404":
                    self.send(404, b"not here")
                elif path == "/410":
                    self.send(410, b"gone for good")
                elif path == "/403":
                    self.send(403, b"forbidden")
                elif path == "/429":
                    self.send(429, b"slow down", Retry_After="120")
                elif path == "/500":
                    self.send(500, b"broken")
                elif path == "/flaky":
                    if n == 1:
                        self.send(503, b"try again", Retry_After="1")
                    else:
                        self.send(200, html(P1, P2, P3))
                elif path in ("/perm301", "/perm308"):
                    self.send(int(path[-3:]), b"", Location="/page")
                elif path == "/temp":
                    self.send(302, b"", Location=server.url("/page"))
                elif path == "/to-ftp":
                    self.send(301, b"", Location="ftp://127.0.0.1/file")
                elif path == "/loop":
                    self.send(302, b"", Location="/loop")
                elif path.startswith("/slow"):
                    time.sleep(1.0 if path == "/slow" else 0.3)
                    try:
                        self.send(200, html(P1, P2, P3))
                    except OSError:
                        pass  # the client gave up: that is the point
                elif path == "/big":
                    self.send(200, b"<html><body><p>" + b"x" * 9000 + b"</p></body></html>")
                elif path == "/big-chunked":
                    # No Content-Length: the cap must be enforced while streaming.
                    with server.lock:
                        server.sent.append((path, 200))
                    self.send_response(200)
                    self.send_header("Content-Type", "text/plain")
                    self.send_header("Connection", "close")
                    self.end_headers()
                    try:
                        for _ in range(20):
                            self.wfile.write(b"y" * 1024)
                    except OSError:
                        pass
                    self.close_connection = True
                elif path == "/plain":
                    self.send(200, PLAIN.encode("utf-8"), "text/plain; charset=utf-8")
                elif path == "/markdown":
                    self.send(200, b"# Title\n\nSome *emphasised* text with a [link](https://example.org).\n", "text/markdown")
                elif path == "/latin1":
                    self.send(200, page(LATIN).replace("charset='utf-8'", "").encode("latin-1"), "text/html; charset=iso-8859-1")
                elif path == "/sidebar":
                    self.send(200, page(P1, P2, P3).replace("</article>", f"<div class='comments'>{SIDEBAR}</div></article>").encode())
                elif path == "/evolving":
                    self.send(200, html(P1, P2, P3, f"A paragraph that changes on every visit: visit number {n}."))
                elif path == "/cp1251":
                    self.send(200, page(RUSSIAN).replace("charset='utf-8'", "").encode("cp1251"), "text/html; charset=windows-1251")
                elif path == "/pdf":
                    self.send(200, b"%PDF-1.4\n%binary\n", "application/pdf")
                elif path in ("/etag", "/lastmod"):
                    stamp = "Sat, 21 Nov 2026 10:00:00 GMT"
                    if self.headers.get("If-None-Match") == '"v1"' or self.headers.get("If-Modified-Since") == stamp:
                        self.send(304)
                    elif path == "/etag":
                        self.send(200, html(P1, P2, P3), ETag='"v1"')
                    else:
                        self.send(200, html(P1, P2, P3), Last_Modified=stamp)
                else:
                    self.send(404, b"no route")

        return Handler


@pytest.fixture(scope="module")
def server():
    s = Server()
    s.thread.start()
    yield s
    s.httpd.shutdown()
    s.httpd.server_close()


@pytest.fixture(autouse=True)
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own HTTP cache; nothing is written under ~/.cache."""
    folder = tmp_path / "http-cache"
    monkeypatch.setenv("SKILLCITE_CACHE_DIR", str(folder))
    monkeypatch.delenv("SKILLCITE_NO_CACHE", raising=False)
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(var, raising=False)  # loopback only, never via a proxy
    return folder


def evidence(source: str, *passages: str, kind: str = "excerpt", newline: str = "\n") -> str:
    """An evidence file with ``passages`` separated by ``[...]`` lines (unlocked)."""
    front = [
        "---", f"source: {source}", 'title: "A Post"', "author: A. Author", "published: 2020",
        "retrieved: 2026-11-21", f"kind: {kind}", "license: CC BY 4.0", "sha256: pending", "---", "",
    ]
    body = "\n\n[...]\n\n".join(passages) + "\n"
    return newline.join(front) + body.replace("\n", newline)


class Root:
    """A tiny package root in tmp_path with locked evidence files."""

    def __init__(self, path: Path) -> None:
        self.path = path
        (path / "docs" / "evidence").mkdir(parents=True)
        (path / "pyproject.toml").write_text('[tool.skillcite]\nevidence = "docs/evidence"\n', encoding="utf-8")

    def add(self, ev_id: str, text: str, bom: bool = False) -> Path:
        p = self.path / "docs" / "evidence" / f"{ev_id}.md"
        p.write_bytes(("\ufeff" if bom else "").encode("utf-8") + text.encode("utf-8"))
        assert lock_file(p).status == "locked"
        return p


@pytest.fixture
def root(tmp_path: Path) -> Root:
    return Root(tmp_path / "pkg")


# The line a run that fetched and compared no source ends with (exit 1).
NOTHING_VERIFIED = "skillcite: error: no source could be verified"

FAST = ["--delay", "0", "--backoff", "0.01", "--max-wait", "0.05", "--retries", "2", "--timeout", str(TIMEOUT)]


def run(root: Root, *args: str) -> tuple[int, dict[str, tuple[str, str]], str]:
    """Invoke the CLI; returns exit code, {id: (status, detail)} and the output."""
    result = CliRunner().invoke(main, ["refresh", "--root", str(root.path), *FAST, *args])
    rows: dict[str, tuple[str, str]] = {}
    for line in result.output.splitlines()[1:]:
        parts = line.split("  ")
        parts = [p.strip() for p in parts if p.strip()]
        if len(parts) >= 2 and not line.startswith(tuple("0123456789")):
            rows[parts[0]] = (parts[1], "  ".join(parts[2:]))
    return result.exit_code, rows, result.output


def cfg(**kw: object) -> FetchConfig:
    base: dict[str, object] = {"timeout": TIMEOUT, "retries": 2, "backoff": 0.01, "max_wait": 0.05, "host_delay": 0.0}
    base.update(kw)
    return FetchConfig(**base)  # type: ignore[arg-type]


# --- statuses through the command --------------------------------------------


def test_unchanged_html_page_is_ok(server: Server, root: Root) -> None:
    root.add("post", evidence(server.url("/page"), P1, P3))
    code, rows, out = run(root)
    assert code == 0, out
    assert rows["post"][0] == "ok"
    assert "2 passages found" in rows["post"][1]
    assert "1 source: 1 ok, 0 changed, 0 moved, 0 cannot verify, 0 gone" in out


def test_edited_passage_is_changed_with_line_and_score(server: Server, root: Root) -> None:
    text = evidence(server.url("/edited"), P1, P2, P3)
    root.add("post", text)
    code, rows, out = run(root, "-v")
    assert code == 1, out
    status, detail = rows["post"]
    assert status == "changed"
    line = text[: text.index(P2)].count("\n") + 1
    assert f"1 of 3 passages not found: line {line} (score " in detail
    score = float(detail.split("(score ")[1].split(")")[0])
    assert 80 < score < 100
    assert "[-silently:-]" in out and "{+quietly:+}" in out  # the -v word diff


@pytest.mark.parametrize("path", ["/404", "/410"])
def test_404_and_410_are_gone(server: Server, root: Root, path: str) -> None:
    root.add("dead", evidence(server.url(path), P1))
    code, rows, out = run(root)
    assert code == 1, out
    assert rows["dead"] == ("gone", f"HTTP {path[1:]} {'Not Found' if path == '/404' else 'Gone'}")


def test_403_cannot_verify_and_is_not_retried(server: Server, root: Root) -> None:
    root.add("locked", evidence(server.url("/403"), P1))
    before = server.hits["/403"]
    code, rows, out = run(root)
    assert code == 1 and NOTHING_VERIFIED in out, out  # nothing compared: exit 1 (issue 29)
    assert rows["locked"] == ("cannot verify", "HTTP 403 Forbidden")
    assert server.hits["/403"] - before == 1


def test_429_honours_retry_after_capped_then_cannot_verify(server: Server, root: Root) -> None:
    root.add("busy", evidence(server.url("/429"), P1))
    waits: list[float] = []
    reports = refresh_sources(root.path, config=cfg(retries=2, max_wait=0.07, sleep=waits.append))
    assert [(r.status, r.detail) for r in reports] == [("cannot verify", "HTTP 429 Too Many Requests after 3 attempts")]
    assert waits == [0.07, 0.07]  # Retry-After: 120, capped by max_wait, not the 0.01 backoff


def test_5xx_then_200_is_retried_and_ok(server: Server, root: Root) -> None:
    root.add("flaky", evidence(server.url("/flaky"), P2))
    waits: list[float] = []
    [report] = refresh_sources(root.path, config=cfg(max_wait=5, sleep=waits.append))
    assert report.status == "ok", report.detail
    assert "2 attempts" in report.detail
    assert waits == [1.0]  # the 503's Retry-After: 1, under the cap


def test_persistent_500_is_cannot_verify_after_backoff(server: Server, root: Root) -> None:
    root.add("broken", evidence(server.url("/500"), P1))
    waits: list[float] = []
    before = server.hits["/500"]
    [report] = refresh_sources(root.path, config=cfg(retries=3, backoff=0.01, max_wait=1, sleep=waits.append))
    assert (report.status, report.detail) == ("cannot verify", "HTTP 500 Internal Server Error after 4 attempts")
    assert waits == [0.01, 0.02, 0.04]  # exponential
    assert server.hits["/500"] - before == 4


@pytest.mark.parametrize("path", ["/perm301", "/perm308"])
def test_permanent_redirect_is_moved_with_new_url(server: Server, root: Root, path: str) -> None:
    root.add("mv", evidence(server.url(path), P1))
    code, rows, out = run(root)
    assert code == 0, out
    status, detail = rows["mv"]
    assert status == "moved"
    assert f"moved permanently to {server.url('/page')}" in detail
    assert "1 passage found" in detail


def test_temporary_redirect_is_followed_and_reported(server: Server, root: Root) -> None:
    root.add("tmp", evidence(server.url("/temp"), P1))
    code, rows, out = run(root)
    assert code == 0, out
    status, detail = rows["tmp"]
    assert status == "ok"
    assert f"redirected: 302 to {server.url('/page')}" in detail


def test_slow_response_times_out_as_cannot_verify(server: Server, root: Root) -> None:
    root.add("slow", evidence(server.url("/slow"), P1))
    code, rows, out = run(root, "--retries", "1")
    assert code == 1 and NOTHING_VERIFIED in out, out  # nothing compared: exit 1 (issue 29)
    status, detail = rows["slow"]
    assert status == "cannot verify"
    assert detail.startswith(f"timed out ({TIMEOUT:g} s)") and "after 2 attempts" in detail
    assert server.hits["/slow"] == 2  # how long giving up takes: bench/refresh_timing.py


@pytest.mark.parametrize("path", ["/big", "/big-chunked"])
def test_body_over_the_size_cap_is_cannot_verify(server: Server, root: Root, path: str) -> None:
    root.add("huge", evidence(server.url(path), P1))
    code, rows, out = run(root, "--max-bytes", "4096")
    assert code == 1 and NOTHING_VERIFIED in out, out  # nothing compared: exit 1 (issue 29)
    status, detail = rows["huge"]
    assert status == "cannot verify"
    assert "body too large" in detail and "4,096-byte cap" in detail
    if path == "/big":  # a declared Content-Length is refused before reading the body
        assert "Content-Length 9," in detail
    # Under a bigger cap the same body is fetched (and lacks the passage): the cap failed it.
    _, rows, _ = run(root, "--max-bytes", "100000")
    assert rows["huge"][0] == "changed", rows["huge"]


def test_plain_text_and_markdown_pass_through(server: Server, root: Root) -> None:
    root.add("txt", evidence(server.url("/plain"), "This plain text page is served as text/plain", "A second line of it."))
    root.add("md", evidence(server.url("/markdown"), "Some emphasised text with a [link](https://example.org)."))
    code, rows, out = run(root)
    assert code == 0, out
    assert rows["txt"][0] == "ok" and rows["md"][0] == "ok"


def test_passage_dropped_by_main_content_extraction_is_still_found(server: Server, root: Root) -> None:
    import trafilatura

    root.add("side", evidence(server.url("/sidebar"), P1, SIDEBAR))
    [report] = refresh_sources(root.path, config=cfg())
    assert report.status == "ok", report.detail
    main_text = trafilatura.extract(page(P1, P2, P3).replace("</article>", f"<div class='comments'>{SIDEBAR}</div></article>"), favor_recall=True, include_comments=False, include_tables=True)
    assert SIDEBAR not in main_text  # the premise: extraction drops it
    assert report.upstream_sha256 == hashlib.sha256(main_text.encode()).hexdigest()


@pytest.mark.parametrize(("path", "text"), [("/latin1", LATIN), ("/cp1251", RUSSIAN)])
def test_non_utf8_page_is_decoded_from_the_header(server: Server, root: Root, path: str, text: str) -> None:
    root.add("enc", evidence(server.url(path), text))
    code, rows, out = run(root)
    assert code == 0, out
    assert rows["enc"][0] == "ok", rows["enc"]


def test_pdf_is_cannot_verify_not_changed(server: Server, root: Root) -> None:
    root.add("slides", evidence(server.url("/pdf"), P1))
    code, rows, out = run(root)
    assert code == 1 and NOTHING_VERIFIED in out, out  # nothing compared: exit 1 (issue 29)
    assert rows["slides"] == ("cannot verify", "application/pdf is not HTML or plain text; no text extraction for it")


def test_non_http_scheme_and_redirect_to_it_are_per_source_errors(server: Server, root: Root) -> None:
    root.add("ftp", evidence("ftp://127.0.0.1/file.txt", P1))
    root.add("hop", evidence(server.url("/to-ftp"), P1))
    root.add("loop", evidence(server.url("/loop"), P1))
    root.add("bad", evidence("http://[::1/x", P1))
    code, rows, out = run(root)
    assert code == 1 and NOTHING_VERIFIED in out, out  # nothing compared: exit 1 (issue 29)
    assert rows["ftp"][0] == "cannot verify" and "unsupported URL scheme ftp:" in rows["ftp"][1]
    assert rows["hop"][0] == "cannot verify" and "only http and https" in rows["hop"][1]
    assert rows["loop"][0] == "cannot verify" and "more than 10 redirects" in rows["loop"][1]
    assert rows["bad"][0] == "cannot verify" and rows["bad"][1].startswith("invalid URL http://[::1/x")


def test_connection_refused_is_cannot_verify(root: Root) -> None:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()  # nothing listens there now
    root.add("down", evidence(f"http://127.0.0.1:{port}/x", P1))
    code, rows, out = run(root, "--retries", "0")
    assert code == 1 and NOTHING_VERIFIED in out, out  # nothing compared: exit 1 (issue 29)
    assert rows["down"][0] == "cannot verify" and "connection error" in rows["down"][1]


def test_notes_are_fetched_but_not_compared(server: Server, root: Root) -> None:
    root.add("mine", evidence(server.url("/page"), "Our own summary, not in the page.", kind="notes"))
    code, rows, out = run(root)
    assert code == 1 and NOTHING_VERIFIED in out, out  # nothing compared: exit 1 (issue 29)
    assert rows["mine"][0] == "cannot verify" and "passages are not upstream text" in rows["mine"][1]


def test_ids_select_files_and_unknown_id_is_usage_error(server: Server, root: Root) -> None:
    root.add("a", evidence(server.url("/page"), P1))
    root.add("b", evidence(server.url("/404"), P1))
    code, rows, out = run(root, "a")
    assert code == 0 and set(rows) == {"a"}, out
    code, _, out = run(root, "nope")
    assert code == 2 and "no evidence file with id nope" in out


# --- HTTP behaviour -------------------------------------------------------------


def test_netrc_credentials_are_never_sent(server: Server, root: Root, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    netrc = tmp_path / "netrc"
    netrc.write_text("machine 127.0.0.1 login me password secret\n", encoding="utf-8")
    netrc.chmod(0o600)
    monkeypatch.setenv("NETRC", str(netrc))
    root.add("auth", evidence(server.url("/page?netrc"), P1))
    run(root)
    [headers] = [h for p, _, h in server.log if p == "/page?netrc"]
    assert "Authorization" not in headers


def test_user_agent_names_tool_and_version(server: Server, root: Root) -> None:
    import skillcite

    root.add("ua", evidence(server.url("/page"), P1))
    start = len(server.log)
    run(root)
    agents = {h.get("User-Agent") for _, _, h in server.log[start:]}
    assert agents and all(a.startswith(f"skillcite/{skillcite.__version__} (") for a in agents), agents


@pytest.mark.parametrize("path", ["/etag", "/lastmod"])
def test_conditional_get_reuses_cached_body_on_304(server: Server, root: Root, cache_dir: Path, path: str) -> None:
    root.add("cached", evidence(server.url(path), P1, P2))
    code, rows, _ = run(root)
    assert code == 0 and rows["cached"][0] == "ok"
    assert "cached copy" not in rows["cached"][1]
    assert list((cache_dir / "http").glob("*.body")), "the 200 with a validator was not cached"
    code, rows, _ = run(root)
    assert code == 0 and rows["cached"] == ("ok", "2 passages found; not modified (304), cached copy used")
    assert server.statuses(path)[-2:] == [200, 304]
    header = "If-None-Match" if path == "/etag" else "If-Modified-Since"
    assert header in server.log[-1][2]
    # --no-cache sends no validators and gets a full body again.
    run(root, "--no-cache")
    assert server.statuses(path)[-1] == 200


def test_corrupt_cache_entry_is_ignored(server: Server, root: Root, cache_dir: Path) -> None:
    root.add("cached", evidence(server.url("/etag"), P1))
    run(root)
    for body in cache_dir.rglob("*.body"):
        body.write_bytes(b"tampered")
    _, rows, _ = run(root)
    assert rows["cached"] == ("ok", "1 passage found")  # a full GET, not the tampered body
    assert server.statuses("/etag")[-1] == 200


def test_politeness_delay_keeps_every_request_to_one_host(server: Server, root: Root) -> None:
    for k in range(3):
        root.add(f"p{k}", evidence(server.url(f"/page?{k}"), P1))
    start = len(server.log)
    refresh_sources(root.path, config=cfg(host_delay=0.15), jobs=3)
    # Every page is fetched once; the spacing itself is timed by bench/refresh_timing.py.
    assert sorted(p for p, _, _ in server.log[start:]) == [f"/page?{k}" for k in range(3)]


def test_jobs_fetch_every_host(root: Root) -> None:
    servers = [Server(), Server()]
    for s in servers:
        s.thread.start()
    try:
        for k, s in enumerate(servers):
            root.add(f"s{k}", evidence(s.url("/slow-short"), P1))
        reports = refresh_sources(root.path, config=cfg(timeout=2), jobs=2)
        serial = refresh_sources(root.path, config=cfg(timeout=2), jobs=1)
    finally:
        for s in servers:
            s.httpd.shutdown()
            s.httpd.server_close()
    # The same results either way; the speed-up is timed by bench/refresh_timing.py.
    assert [r.status for r in reports] == [r.status for r in serial] == ["ok", "ok"]
    assert [s.hits["/slow-short"] for s in servers] == [2, 2]


def test_same_url_is_fetched_once(server: Server, root: Root) -> None:
    root.add("one", evidence(server.url("/page?dup"), P1))
    root.add("two", evidence(server.url("/page?dup"), P2))
    refresh_sources(root.path, config=cfg())
    assert server.hits["/page?dup"] == 1


def test_retry_after_http_date_and_wait_cap() -> None:
    now = dt.datetime(2026, 11, 21, 10, 0, 0, tzinfo=dt.UTC)
    later = email.utils.format_datetime(now + dt.timedelta(seconds=30), usegmt=True)
    assert parse_retry_after(later, now) == 30.0
    assert parse_retry_after("7") == 7.0
    assert parse_retry_after(email.utils.format_datetime(now - dt.timedelta(seconds=5), usegmt=True), now) == 0.0
    assert parse_retry_after("soon") is None
    c = FetchConfig(backoff=0.5, max_wait=3.0, cache_dir=None)
    assert [retry_wait(c, k, None) for k in range(4)] == [0.5, 1.0, 2.0, 3.0]
    assert retry_wait(c, 0, 30.0) == 3.0


def test_host_gate_spaces_requests_across_threads() -> None:
    clock = [0.0]
    waits: list[float] = []

    def sleep(s: float) -> None:
        waits.append(round(s, 6))
        clock[0] += s

    gate = HostGate(2.0, sleep, clock=lambda: clock[0])
    for host in ("a:80", "a:80", "b:80", "a:80"):
        with gate.slot(host):
            clock[0] += 0.5  # the request itself
    assert waits == [2.0, 2.0 - 0.5]  # second a: full delay; fourth a: b's request already took 0.5 s


def test_decode_body_charsets() -> None:
    assert decode_body("café".encode("latin-1"), "text/html; charset=ISO-8859-1") == "café"
    assert decode_body("\u201cq\u201d".encode("cp1252"), "text/plain; charset=latin-1") == "\u201cq\u201d"
    assert decode_body(b"<meta charset='koi8-r'>" + "мир".encode("koi8-r"), "text/html").endswith("мир")
    assert decode_body("naïve".encode(), "text/plain") == "naïve"
    assert decode_body("naïve".encode("cp1252"), "text/plain") == "naïve"  # not UTF-8: cp1252 fallback
    assert decode_body("мир".encode("koi8-r"), "text/plain; charset=KOI8-R") == "мир"
    assert decode_body(b"x", "text/plain; charset=no-such-charset") == "x"
    assert decode_body(b"\xef\xbb\xbfbom", "text/plain; charset=latin-1") == "bom"


def test_fetcher_reports_redirect_chain(server: Server) -> None:
    result = Fetcher(cfg(cache_dir=None)).fetch(server.url("/perm301"))
    assert [(r.status, r.target) for r in result.redirects] == [(301, server.url("/page"))]
    assert result.moved_to == server.url("/page") and result.status == 200 and result.has_body


# --- passages and --write ----------------------------------------------------------


def test_split_passages_lines_and_elision(tmp_path: Path) -> None:
    p = tmp_path / "e.md"
    p.write_text(evidence("https://x.invalid/", "first *one*\nstill first", "second", "[...] not a separator"), encoding="utf-8")
    tf = read_text(p)
    got = [(x.line, x.text) for x in split_passages(tf, split_front_matter(tf).body_offset)]
    assert got == [(11, "first one still first"), (16, "second"), (20, "[...] not a separator")]


def test_write_records_beside_the_evidence_and_keeps_every_evidence_byte(server: Server, root: Root) -> None:
    path = root.add("txt", evidence(server.url("/plain"), "This plain text page is served as text/plain", newline="\r\n"), bom=True)
    gone = root.add("dead", evidence(server.url("/404"), P1))
    notes = root.add("notes", evidence(server.url("/page"), "Our summary.", kind="notes"))
    before = {p: p.read_bytes() for p in (path, gone, notes)}
    code, rows, out = run(root, "--write")
    assert code == 1 and rows["txt"][0] == "ok" and rows["dead"][0] == "gone", out
    today = dt.date.today().isoformat()
    sidecar = root.path / "docs" / "evidence" / RECORD_NAME
    assert f"recorded checked: {today} for 1 source in {sidecar}" in out
    assert {p: p.read_bytes() for p in before} == before  # no evidence file is touched, so no anchor moves
    upstream = hashlib.sha256(PLAIN.encode("utf-8")).hexdigest()
    expected = (
        '{\n  "format": 1,\n  "sources": {\n    "txt.md": {\n      "checked": "%s",\n'
        '      "status": "ok",\n      "upstream_sha256": "%s"\n    }\n  }\n}\n' % (today, upstream)
    )
    assert sidecar.read_text(encoding="utf-8") == expected  # gone and notes: not compared, not recorded
    # A second --write leaves the sidecar as it was; check finds nothing new in it.
    run(root, "--write")
    assert sidecar.read_text(encoding="utf-8") == expected
    assert lock_file(path, write=False).status == "ok"


def test_write_keeps_records_of_sources_not_refreshed_and_drops_deleted_ones(server: Server, root: Root) -> None:
    a = root.add("a", evidence(server.url("/plain"), "A second line of it."))
    root.add("b", evidence(server.url("/page"), P1))
    run(root, "--write")
    folder = root.path / "docs" / "evidence"
    first = load_records(folder)
    assert sorted(first) == ["a.md", "b.md"]
    a.unlink()
    code, rows, _ = run(root, "b", "--write")
    assert code == 0 and rows == {"b": ("ok", "1 passage found")}
    assert load_records(folder) == {"b.md": first["b.md"]}


def test_corrupt_record_is_a_one_line_error_naming_it(server: Server, root: Root) -> None:
    root.add("good", evidence(server.url("/plain"), "A second line of it."))
    sidecar = root.path / "docs" / "evidence" / RECORD_NAME
    sidecar.write_text("{not json", encoding="utf-8")
    result = CliRunner().invoke(main, ["refresh", "--root", str(root.path), *FAST, "--write"])
    assert result.exit_code == 2
    assert result.output.startswith(f"skillcite: error: {sidecar}: not the JSON refresh --write writes (")
    assert "Traceback" not in result.output and sidecar.read_text(encoding="utf-8") == "{not json"


@pytest.mark.skipif(sys.platform == "win32" or (hasattr(os, "geteuid") and os.geteuid() == 0), reason="needs POSIX permissions, not root")
def test_read_only_evidence_folder_prints_the_table_then_one_line_error(server: Server, root: Root) -> None:
    root.add("good", evidence(server.url("/plain"), "A second line of it."))
    folder = root.path / "docs" / "evidence"
    folder.chmod(0o555)
    try:
        result = CliRunner().invoke(main, ["refresh", "--root", str(root.path), *FAST, "--write"])
    finally:
        folder.chmod(0o755)
    assert result.exit_code == 2
    lines = result.output.splitlines()
    assert lines[1].split() == ["good", "ok", "1", "passage", "found"]
    assert lines[-1] == f"skillcite: error: {folder / RECORD_NAME}: cannot write (Permission denied)"
    assert not (folder / RECORD_NAME).exists()


def test_legacy_front_matter_record_is_still_read(server: Server, root: Root) -> None:
    text = evidence(server.url("/plain"), "A second line of it.").replace("kind: excerpt", "kind: excerpt\nupstream_sha256: " + "ab" * 32)
    root.add("old", text)
    code, rows, _ = run(root)
    assert rows["old"] == ("ok", "1 passage found; upstream text differs from the last check")
    run(root, "--write")  # the sidecar now holds the record, and wins
    code, rows, _ = run(root)
    assert rows["old"] == ("ok", "1 passage found")


def test_upstream_change_since_last_check_is_noted(server: Server, root: Root) -> None:
    root.add("evo", evidence(server.url("/evolving"), P1))
    code, rows, _ = run(root, "--write")
    assert code == 0 and rows["evo"] == ("ok", "1 passage found")
    code, rows, _ = run(root)
    assert code == 0 and rows["evo"] == ("ok", "1 passage found; upstream text differs from the last check")


def test_min_score_accepts_near_matches(server: Server, root: Root) -> None:
    root.add("post", evidence(server.url("/edited"), P2))
    assert run(root)[0] == 1
    code, rows, _ = run(root, "--min-score", "80")
    assert code == 0 and rows["post"][0] == "ok"
    assert rows["post"][1].startswith("1 passage found (1 not verbatim, lowest score 9")


def test_missing_source_is_cannot_verify(root: Root) -> None:
    root.add("nosrc", evidence("https://x.invalid/", P1).replace("source: https://x.invalid/\n", ""))
    code, rows, _ = run(root)
    assert code == 1 and rows["nosrc"] == ("cannot verify", "no source: URL in the front matter")


# --- import hygiene and missing extras --------------------------------------------


def test_check_never_imports_requests_or_trafilatura(root: Root) -> None:
    root.add("x", evidence("https://example.invalid/post", P1))
    code = (
        "import sys; from click.testing import CliRunner; import skillcite.cli.app, skillcite.refresh.runner, skillcite.refresh.fetch, skillcite.refresh.extract\n"
        f"r = CliRunner().invoke(skillcite.cli.app.main, ['check', {str(root.path)!r}])\n"
        "assert r.exception is None or isinstance(r.exception, SystemExit), r.output\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('requests', 'trafilatura'))\n"
        "assert not bad, bad\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr


def test_progress_bar_only_on_a_terminal(server: Server, root: Root, tmp_path: Path) -> None:
    import os
    import pty

    root.add("post", evidence(server.url("/page"), P1))
    args = [sys.executable, "-m", "skillcite", "refresh", "--root", str(root.path), *FAST]
    env = {**os.environ, "SKILLCITE_CACHE_DIR": str(tmp_path / "c")}
    master, slave = pty.openpty()
    try:
        proc = subprocess.run(args, stdout=subprocess.PIPE, stderr=slave, env=env, timeout=60, check=False)
        os.close(slave)
        tty_err = b""
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # EIO: the terminal has no more output
                break
            if not chunk:
                break
            tty_err += chunk
    finally:
        os.close(master)
    assert proc.returncode == 0
    assert b"refreshing" in tty_err and b"refreshing" not in proc.stdout
    piped = subprocess.run(args, capture_output=True, env=env, timeout=60, check=False)
    assert piped.returncode == 0 and b"refreshing" not in piped.stderr + piped.stdout


def test_missing_trafilatura_is_a_one_line_usage_error(root: Root, monkeypatch: pytest.MonkeyPatch) -> None:
    root.add("x", evidence("http://127.0.0.1:9/", P1))
    monkeypatch.setitem(sys.modules, "trafilatura", None)  # import now raises ImportError
    result = CliRunner().invoke(main, ["refresh", "--root", str(root.path)])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    # Installable in any repository: `pip install -e ".[refresh]"` would reinstall the foreign project.
    assert len(lines) == 1 and "pip install requests trafilatura" in lines[0] and ".[refresh]" not in lines[0], result.output


# --- the round trip on this repository -----------------------------------------

REPO = Path(__file__).resolve().parent.parent
_NOT_COPIED = shutil.ignore_patterns(".git", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", "*.egg-info", ".venv")


def _anchors(report) -> list[tuple[str, int, str]]:
    """Every line anchor of every cache link: (document, definition line, ranges)."""
    return [
        (doc.rel, d.line, a.render_ranges())
        for doc in report.documents for d in doc.definitions for link in d.cache_links for a in link.anchors
    ]


def test_refresh_write_on_this_repository_moves_no_anchor(server: Server, tmp_path: Path) -> None:
    """``refresh --write`` then ``check --strict`` on a copy of this repository stays clean.

    Each evidence file's ``source:`` is pointed at the loopback server (same
    line, so no line moves), which serves that file's passages as text/plain
    at the source's host and path.
    """
    from skillcite.check import check

    copy = tmp_path / "repo"
    shutil.copytree(REPO, copy, ignore=_NOT_COPIED)
    folder = copy / "docs" / "evidence"
    excerpts = 0
    for path in sorted(folder.glob("*.md")):
        if path.name == "README.md":
            continue
        text = path.read_text(encoding="utf-8")
        tf = read_text(path)
        fm = split_front_matter(tf)
        assert fm.data is not None, path
        source = str(fm.data["source"])
        parts = urllib.parse.urlsplit(source)
        route = "/" + urllib.parse.quote(parts.netloc + (parts.path or "/"), safe="/%")
        body = "\n".join(line for line in text[fm.body_offset :].splitlines() if line != "[...]") + "\n"
        server.pages[route] = server.pages.get(route, b"") + body.encode("utf-8")
        line = next(l for l in text.splitlines() if l.startswith("source:"))
        path.write_text(text.replace(line, f"source: {server.url(route)}", 1), encoding="utf-8")
        excerpts += fm.data.get("kind") == "excerpt"
    # Issue 28 §5: the footnotes still name the real URLs, which no source
    # names now (SC314 by construction, left out of the lists below and
    # ignored by the CLI's check); the anchors are what is tested here.
    pyproject = copy / "pyproject.toml"
    pyproject.write_text(pyproject.read_text(encoding="utf-8").replace('[tool.skillcite]\n', '[tool.skillcite]\nignore = ["SC314"]\n', 1), encoding="utf-8")
    assert CliRunner().invoke(main, ["lock", "--root", str(copy)]).exit_code == 0  # whatever the lock covers
    # A review covers the evidence's source (issue 28): pointing every source at the loopback server
    # undoes the copy's reviews, so the copy accepts them again before the refresh.
    accepted = CliRunner().invoke(main, ["review", str(copy), "--accept-all", "--include-warnings", "--include-context", "--by", "tests <t@example.org>"])
    assert accepted.exit_code == 0, accepted.output
    before = check(copy)
    assert [d.format() for d in before.diagnostics if d.code != "SC314"] == []
    evidence_bytes = {p: p.read_bytes() for p in folder.glob("*.md")}

    result = CliRunner().invoke(main, ["refresh", "--root", str(copy), *FAST, "--jobs", "8", "--write"])
    # Whether every passage is found in its served text is refresh's matching,
    # not what this test is about; every excerpt was fetched and compared.
    records = load_records(folder)
    statuses = {r.status for r in records.values()}
    assert result.exit_code == (1 if "changed" in statuses else 0), result.output
    assert statuses <= {"ok", "changed"} and len(records) == excerpts
    assert f"recorded checked: {dt.date.today().isoformat()} for {excerpts} sources" in result.output

    assert {p: p.read_bytes() for p in folder.glob("*.md")} == evidence_bytes
    after = check(copy)
    assert [d.format() for d in after.diagnostics if d.code != "SC314"] == []
    assert after.quotes_verified == before.quotes_verified and after.quotes_verified > 300
    assert _anchors(after) == _anchors(before) and len(_anchors(after)) > 300
    strict = CliRunner().invoke(main, ["check", str(copy), "--strict"])
    assert strict.exit_code == 0 and " 0 errors, 0 warnings" in strict.output


def test_nothing_verified_exits_1_and_one_verified_source_is_enough(server: Server, root: Root) -> None:
    root.add("locked", evidence(server.url("/403"), P1))
    code, rows, out = run(root)
    assert code == 1 and rows["locked"][0] == "cannot verify", out
    assert out.splitlines()[-1] == "skillcite: error: no source could be verified (1 source, none fetched and compared)"
    root.add("post", evidence(server.url("/page"), P1, P3))
    code, rows, out = run(root)
    assert code == 0 and rows == {"locked": rows["locked"], "post": ("ok", "2 passages found")}, out
    assert NOTHING_VERIFIED not in out
