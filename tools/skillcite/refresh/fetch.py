"""HTTP fetching for ``skillcite refresh``: polite, bounded and cached.

One :class:`Fetcher` serves a whole run. It

* accepts only ``http`` and ``https`` URLs, on every redirect hop too;
* follows redirects itself (so each hop is checked, paced and reported);
* retries timeouts, connection errors, 429 and 5xx a bounded number of
  times with exponential backoff, honouring ``Retry-After`` up to a cap;
* streams bodies and aborts beyond a size cap (checked on decoded bytes, so
  a compressed bomb is caught too);
* gives each response a total deadline, headers and body together: a
  watchdog shuts the socket when it passes, so a server that sends one byte
  just inside every read timeout cannot hold a run forever;
* keeps a delay between requests to the same host, across threads;
* sends conditional requests (``If-None-Match`` / ``If-Modified-Since``)
  from an on-disk cache and reuses the cached body on ``304``.

``requests`` is imported only when the first request is made: ``skillcite
check`` imports this package's CLI and must stay fast (measured by bench/check_speed.py).
"""

from __future__ import annotations

import datetime as dt
import email.utils
import re
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

from .httpcache import CacheEntry, HostGate, HttpCache

DEFAULT_MAX_BYTES = 20 * 1024 * 1024
REDIRECT_CODES = frozenset({301, 302, 303, 307, 308})
PERMANENT_REDIRECTS = frozenset({301, 308})
_CHUNK = 64 * 1024


def tool_version() -> str:
    """The skillcite version, for the User-Agent."""
    from .. import __version__

    return __version__


def project_url() -> str | None:
    """The project's home page from the installed metadata, if declared."""
    from importlib.metadata import PackageNotFoundError, metadata

    for dist in ("skillcite", "ml-debug"):  # installed alone, or with the ml-debug skill
        try:
            md = metadata(dist)
            break
        except PackageNotFoundError:
            continue
    else:
        return None
    for entry in md.get_all("Project-URL") or []:
        # "Homepage, https://..." - take the first declared URL.
        _, _, url = str(entry).partition(",")
        if url.strip():
            return url.strip()
    home = md.get_all("Home-page") or []
    return str(home[0]) if home else None


def default_user_agent() -> str:
    """``skillcite/<version> (+<url>)``: names the tool so site owners can reach us."""
    url = project_url()
    return f"skillcite/{tool_version()} (+{url})" if url else f"skillcite/{tool_version()} (ml-debug evidence refresh)"


def default_cache_dir() -> Path | None:
    """``http/`` in skillcite's cache folder (shared with ``check``'s cache), or None.

    The folder is ``$SKILLCITE_CACHE_DIR``, else ``$XDG_CACHE_HOME/skillcite``,
    else ``~/.cache/skillcite``; ``SKILLCITE_NO_CACHE=1`` turns caching off.
    """
    from ..check.parsing.cache import cache_dir, enabled

    return cache_dir() / "http" if enabled() else None


@dataclass(slots=True)
class FetchConfig:
    """Limits and politeness for one run; tests shrink every delay."""

    timeout: float = 20.0  # connect and read timeout, per socket operation
    retries: int = 3  # further attempts after the first, per URL
    backoff: float = 1.0  # first retry wait; doubles after each attempt
    max_wait: float = 60.0  # cap on any one wait, Retry-After included
    max_bytes: int = DEFAULT_MAX_BYTES
    host_delay: float = 1.0  # least gap between two requests to one host
    max_redirects: int = 10
    total_timeout: float | None = None  # whole-response deadline, headers and body; None: 6 x timeout
    cache_dir: Path | None = field(default_factory=default_cache_dir)  # None: no cache
    user_agent: str = field(default_factory=default_user_agent)
    sleep: Callable[[float], None] = time.sleep  # injectable so tests can record waits


@dataclass(frozen=True, slots=True)
class Redirect:
    """One redirect hop as the server sent it."""

    status: int
    source: str
    target: str

    @property
    def permanent(self) -> bool:
        """301 and 308 say the resource moved for good; 302/303/307 do not."""
        return self.status in PERMANENT_REDIRECTS


@dataclass(slots=True)
class FetchResult:
    """What came back for one URL: a final status and body, or an error."""

    url: str
    final_url: str
    status: int | None = None  # last HTTP status (304 when the cache answered)
    reason: str = ""
    content_type: str = ""  # full Content-Type header of the body
    body: bytes = b""
    redirects: list[Redirect] = field(default_factory=list)
    from_cache: bool = False
    attempts: int = 0  # requests made for the last hop, retries included
    error: str | None = None  # set when no usable HTTP answer was obtained

    @property
    def has_body(self) -> bool:
        """True when :attr:`body` holds the resource (200-class, or 304 with cache)."""
        if self.error is not None or self.status is None:
            return False
        return 200 <= self.status < 300 or (self.status == 304 and self.from_cache)

    @property
    def moved_to(self) -> str | None:
        """The final URL when any hop was a permanent redirect."""
        if any(r.permanent for r in self.redirects):
            return self.final_url
        return None


# --- waits -----------------------------------------------------------------


def parse_retry_after(value: str | None, now: dt.datetime | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta-seconds or HTTP date)."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)
    now = now or dt.datetime.now(dt.UTC)
    return max(0.0, (when - now).total_seconds())


def retry_wait(config: FetchConfig, attempt: int, retry_after: float | None) -> float:
    """Wait before retry number ``attempt + 1``: Retry-After if given, else backoff; capped."""
    wait = retry_after if retry_after is not None else config.backoff * (2**attempt)
    return max(0.0, min(wait, config.max_wait))


# --- fetching --------------------------------------------------------------


class _Transient(Exception):
    """A failure worth retrying (timeout, reset connection)."""


class _Fatal(Exception):
    """A failure retrying cannot fix (size cap, bad URL, a server past the deadline)."""


# The deadline of the response being fetched in this thread, if any; the
# watched connections below report themselves to it.
_watch = threading.local()


class Deadline:
    """A total time limit for one response, enforced from another thread.

    Read timeouts apply to each socket read, so a server that sends a byte
    every half second never trips them. When the deadline passes, the timer
    thread shuts down the socket of the connection this thread registered:
    the blocked read returns at once and the request fails.
    """

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.expired = False
        self.connection: Any = None  # set by the connection when it sends the request
        self._lock = threading.Lock()
        self._done = False
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True

    def __enter__(self) -> Deadline:
        _watch.deadline = self
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        with self._lock:  # after this, the timer can no longer touch the connection
            self._done = True
        self._timer.cancel()
        _watch.deadline = None

    def _expire(self) -> None:
        with self._lock:
            if self._done:
                return
            self.expired = True
            sock = getattr(self.connection, "sock", None)
            if sock is not None:
                try:
                    # The plain socket's shutdown, also under TLS: it only
                    # wakes the reader; closing is left to the reading thread.
                    socket.socket.shutdown(sock, socket.SHUT_RDWR)
                except OSError:
                    pass


def _watched_adapter() -> Any:
    """A requests adapter whose connections register with the thread's :class:`Deadline`."""
    from requests.adapters import HTTPAdapter
    from urllib3.connection import HTTPConnection, HTTPSConnection
    from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
    from urllib3.poolmanager import ProxyManager

    def register(conn: Any) -> None:
        deadline = getattr(_watch, "deadline", None)
        if deadline is not None:
            deadline.connection = conn

    class WatchedHTTPConnection(HTTPConnection):
        def request(self, *args: Any, **kwargs: Any) -> None:
            register(self)
            super().request(*args, **kwargs)

    class WatchedHTTPSConnection(HTTPSConnection):
        def request(self, *args: Any, **kwargs: Any) -> None:
            register(self)
            super().request(*args, **kwargs)

    class WatchedHTTPPool(HTTPConnectionPool):
        ConnectionCls = WatchedHTTPConnection

    class WatchedHTTPSPool(HTTPSConnectionPool):
        ConnectionCls = WatchedHTTPSConnection

    pools = {"http": WatchedHTTPPool, "https": WatchedHTTPSPool}

    class WatchedAdapter(HTTPAdapter):
        def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
            super().init_poolmanager(*args, **kwargs)
            self.poolmanager.pool_classes_by_scheme = pools

        def proxy_manager_for(self, proxy: str, **kwargs: Any) -> Any:
            manager = super().proxy_manager_for(proxy, **kwargs)
            if type(manager) is ProxyManager:  # a SOCKS manager keeps its own pools
                manager.pool_classes_by_scheme = pools
            return manager

    return WatchedAdapter(max_retries=0)  # retries are ours, with backoff and Retry-After


@dataclass(slots=True)
class _Answer:
    status: int
    reason: str
    headers: dict[str, str]
    body: bytes


class Fetcher:
    """Fetches URLs under one :class:`FetchConfig`; safe to share between threads."""

    def __init__(self, config: FetchConfig | None = None) -> None:
        self.config = config or FetchConfig()
        self.gate = HostGate(self.config.host_delay, self.config.sleep)
        self.cache = HttpCache(self.config.cache_dir)
        # requests.Session is not documented as thread-safe: one per thread.
        self._local = threading.local()

    def _session(self) -> Any:
        session = getattr(self._local, "session", None)
        if session is None:
            import requests

            session = requests.Session()
            session.headers["User-Agent"] = self.config.user_agent
            session.headers["Accept"] = "text/html,application/xhtml+xml,text/plain;q=0.9,text/markdown;q=0.9,*/*;q=0.5"
            adapter = _watched_adapter()
            session.mount("http://", adapter)
            session.mount("https://", adapter)
            # Environment proxies and CA bundles still apply (trust_env), but
            # a truthy auth stops requests from sending ~/.netrc credentials
            # to the sites we cite.
            session.auth = _no_auth
            self._local.session = session
        return session

    def fetch(self, url: str) -> FetchResult:
        """GET ``url`` following redirects; never raises for network trouble."""
        result = FetchResult(url, url)
        current = url
        for _ in range(self.config.max_redirects + 1):
            try:
                parts = urlsplit(current)
                host = parts.hostname
            except ValueError as exc:  # e.g. an unclosed [IPv6 bracket
                result.error = f"invalid URL {current}: {exc}"
                return result
            if parts.scheme.lower() not in ("http", "https"):
                result.error = f"unsupported URL scheme {parts.scheme + ':' if parts.scheme else '(none)'} in {current} (only http and https)"
                return result
            if not host:
                result.error = f"URL has no host: {current}"
                return result
            cached = self.cache.get(current)
            answer = self._with_retries(current, parts.netloc.lower(), cached, result)
            if answer is None:
                return result
            result.status, result.reason = answer.status, answer.reason
            location = answer.headers.get("location")
            if answer.status in REDIRECT_CODES and location:
                target = urljoin(current, location.strip())
                result.redirects.append(Redirect(answer.status, current, target))
                result.final_url = current = target
                continue
            if answer.status == 304:
                if cached is None:
                    result.error = "HTTP 304 Not Modified, but there is no cached copy"
                    return result
                result.from_cache = True
                result.body, result.content_type = cached.body, cached.content_type
                return result
            result.body = answer.body
            result.content_type = answer.headers.get("content-type", "")
            if 200 <= answer.status < 300:
                etag, modified = answer.headers.get("etag"), answer.headers.get("last-modified")
                if etag or modified:
                    self.cache.put(CacheEntry(current, etag, modified, result.content_type, answer.body))
            return result
        result.error = f"more than {self.config.max_redirects} redirects"
        return result

    def _with_retries(self, url: str, host: str, cached: CacheEntry | None, result: FetchResult) -> _Answer | None:
        """One hop with retries; None (and ``result.error`` set) when it failed."""
        cfg = self.config
        result.attempts = 0
        answer: _Answer | None = None
        error = ""
        for attempt in range(cfg.retries + 1):
            result.attempts += 1
            retry_after: float | None = None
            try:
                answer = self._once(url, host, cached)
            except _Fatal as exc:
                result.error = str(exc)
                return None
            except _Transient as exc:
                answer, error = None, str(exc)
            else:
                if answer.status != 429 and answer.status < 500:
                    return answer
                retry_after = parse_retry_after(answer.headers.get("retry-after"))
            if attempt < cfg.retries:
                cfg.sleep(retry_wait(cfg, attempt, retry_after))
        if answer is not None:
            return answer  # still 429/5xx: the caller reports the status
        tries = f" after {result.attempts} attempts" if result.attempts > 1 else ""
        result.error = f"{error}{tries}"
        return None

    def _once(self, url: str, host: str, cached: CacheEntry | None) -> _Answer:
        import requests

        cfg = self.config
        headers: dict[str, str] = {}
        if cached is not None:
            if cached.etag:
                headers["If-None-Match"] = cached.etag
            if cached.last_modified:
                headers["If-Modified-Since"] = cached.last_modified
        with self.gate.slot(host), Deadline(self.deadline) as deadline:
            try:
                resp = self._session().get(
                    url, headers=headers, timeout=(cfg.timeout, cfg.timeout), stream=True, allow_redirects=False
                )
            except requests.Timeout as exc:
                self._past(deadline, url)
                raise _Transient(f"timed out ({cfg.timeout:g} s) fetching {url}") from exc
            except (requests.exceptions.InvalidURL, requests.exceptions.InvalidSchema, requests.exceptions.MissingSchema) as exc:
                raise _Fatal(f"invalid URL {url}: {exc}") from exc
            except requests.RequestException as exc:
                self._past(deadline, url)
                raise _Transient(f"connection error ({host}): {_short(exc)}") from exc
            with resp:
                answer = _Answer(resp.status_code, resp.reason or "", {k.lower(): v for k, v in resp.headers.items()}, b"")
                if 200 <= resp.status_code < 300:
                    answer.body = self._read_body(resp, url, deadline)
            self._past(deadline, url)  # a body cut short by the watchdog may look complete
        return answer

    @property
    def deadline(self) -> float:
        """Seconds one response may take in total, headers and body."""
        cfg = self.config
        return cfg.total_timeout if cfg.total_timeout is not None else 6 * cfg.timeout

    def _past(self, deadline: Deadline, url: str) -> None:
        """Raise when the watchdog ended the response: retrying a server that slow would only wait again."""
        if deadline.expired:
            raise _Fatal(f"no complete response within the {deadline.seconds:g} s deadline from {url} (the server sends too slowly)")

    def _read_body(self, resp: Any, url: str, deadline: Deadline) -> bytes:
        """Stream the body, aborting beyond the size cap or the total deadline."""
        import requests

        cfg = self.config
        declared = resp.headers.get("Content-Length", "")
        if declared.isdigit() and int(declared) > cfg.max_bytes:
            raise _Fatal(f"body too large: Content-Length {int(declared):,} bytes exceeds the {cfg.max_bytes:,}-byte cap")
        chunks: list[bytes] = []
        size = 0
        try:
            for chunk in resp.iter_content(_CHUNK):
                size += len(chunk)
                if size > cfg.max_bytes:
                    raise _Fatal(f"body too large: more than the {cfg.max_bytes:,}-byte cap")
                self._past(deadline, url)
                chunks.append(chunk)
        except requests.RequestException as exc:
            self._past(deadline, url)
            if "timed out" in str(exc).lower():
                raise _Transient(f"timed out ({cfg.timeout:g} s) reading the body of {url}") from exc
            raise _Transient(f"connection error while reading the body: {_short(exc)}") from exc
        return b"".join(chunks)


def _no_auth(request: Any) -> Any:
    """An auth hook that adds nothing (see :meth:`Fetcher._session`)."""
    return request


def _short(exc: BaseException) -> str:
    """The innermost useful line of a requests/urllib3 error chain."""
    text = str(exc)
    m = re.search(r"\[Errno -?\d+\] ([^'\")]+)", text)
    if m:
        return m.group(1).strip()
    return text.splitlines()[0][:200] if text else type(exc).__name__
