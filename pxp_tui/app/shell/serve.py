"""``pxp serve``: the app in a web browser, through textual-serve.

Each browser tab that opens the page gets an app process of its own (``python -m pxp_tui app --db FILE``,
driven by Textual's web driver, started by textual-serve's ``AppService``), on the one blackboard: several
experts at once, one tab each, every message committed as in the terminal. :class:`PXPServer` is
textual-serve's server with what an expert's machine needs around it:

- The socket is bound before anything else (a port in use is said at once; port 0 picks a free one, and
  the address printed is the real one).
- Only its owner opens it: every address it answers holds a secret key, made at start and printed once in
  the address to open (``http://127.0.0.1:8470/KEY/``, as Jupyter prints its token). A request without it,
  the bare ``http://127.0.0.1:8470/`` included, is refused (403) before anything else is done; the key is
  compared in constant time, and written nowhere else (no access log; the pages ask browsers to send no
  ``Referer``). Another account of the machine can reach the port, not the app.
- Requests are answered only for the names the server is reached by: loopback names (any port: an ssh
  tunnel may use another one) for a loopback address, the address itself, and ``--public-url``'s host. A
  web page of another site cannot open the app's websocket in the expert's browser (its ``Origin`` is
  checked), nor reach it by a DNS name rebound to this machine (the ``Host`` is checked).
- The page is pxp's own (``web/templates/page.html``): textual-serve's, with xterm.js and its image addon
  (``web/static/terminal.js``, built by ``scripts/build_web.py`` from ``web/package-lock.json``), so that
  pictures are drawn in pixels (Sixel). Before a tab's app starts, the page's terminal is asked what it
  draws (:mod:`~pxp_tui.app.shell.page_terminal`). The page points the browser back at the address it was
  loaded from (its websocket, its scripts), or at ``--public-url`` behind a reverse proxy, and loads nothing
  from other sites (textual-serve's font is served from here).
- The page gives the terminal the keyboard as soon as the terminal exists: the first keys typed reach the app
  without a click first.
- A file a tab opens (``v``: the original picture) is streamed from the tab's app one piece at a time; each piece
  is waited for up to :data:`DOWNLOAD_PATIENCE` (textual-serve gave up after 4 s, and a busy machine's app can take
  longer to answer: the tab then never finished loading).

Bound to anything but a loopback address, anyone who can reach the port and learns the address can drive the
app over plain http: ``docs/browser.md`` says how to put it behind an ssh tunnel or a reverse proxy.
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import logging
import os
import secrets
import shlex
import socket
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from urllib.parse import urlsplit

import aiohttp_jinja2
import jinja2
import textual_serve
import textual_serve.download_manager
from aiohttp import web
from textual_serve.app_service import AppService
from textual_serve.server import Server

from pxp_tui.app.shell import page_terminal, textual_serve_internals

#: names of this machine's loopback interface, as a browser on it writes them in a URL
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "[::1]", "::1"})
#: pxp's page: its template, and the built terminal (scripts/build_web.py)
WEB = Path(__file__).resolve().parent / "web"
#: what the page loads, by the name it asks for: the built terminal, and textual-serve's font and background
_TEXTUAL_SERVE = Path(str(textual_serve.__file__)).resolve().parent / "static"
STATIC = {
    "terminal.js": WEB / "static" / "terminal.js",
    "xterm.css": WEB / "static" / "xterm.css",
    "fonts/RobotoMono-VariableFont_wght.ttf": _TEXTUAL_SERVE / "fonts" / "RobotoMono-VariableFont_wght.ttf",
    "fonts/RobotoMono-Italic-VariableFont_wght.ttf": _TEXTUAL_SERVE / "fonts" / "RobotoMono-Italic-VariableFont_wght.ttf",
    "images/background.png": _TEXTUAL_SERVE / "images" / "background.png",
}
#: how long a piece of a file a tab opens is waited for from the tab's app (seconds): a bound against a dead app
DOWNLOAD_PATIENCE = 60
textual_serve.download_manager.DOWNLOAD_TIMEOUT = DOWNLOAD_PATIENCE  # read by its download loop at each piece

#: what a request without the key is told (nothing of the app: not even whether the path exists)
REFUSED = "pxp serve: open the address pxp serve printed when it started (it holds the key)\n"

#: added to the page: the terminal takes the keyboard as soon as it exists (textual-serve's page focused nothing: the
#: first keys went nowhere until a click)
_FOCUS_TERMINAL = """<script>
(function () {
  function focusTerminal() {
    var field = document.querySelector("textarea.xterm-helper-textarea");
    if (field && document.activeElement !== field) { field.focus({ preventScroll: true }); }
    return Boolean(field);
  }
  window.addEventListener("load", focusTerminal);  // after textual-serve's own onload, which makes the terminal
  var tries = 0;
  var looking = setInterval(function () { if (focusTerminal() || ++tries > 400) { clearInterval(looking); } }, 25);
  window.addEventListener("focus", focusTerminal);
})();
</script>
"""

log = logging.getLogger("pxp-serve")
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def is_loopback(host: str) -> bool:
    """Whether ``host`` (an address or ``localhost``) is this machine's loopback interface."""
    if host.strip("[]").lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def is_wildcard(host: str) -> bool:
    """Whether ``host`` means every interface (``0.0.0.0``, ``::``, or empty)."""
    try:
        return not host or ipaddress.ip_address(host.strip("[]")).is_unspecified
    except ValueError:
        return False


def url_host(host: str) -> str:
    """``host`` as written in a URL (an IPv6 address in brackets)."""
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def app_command(db_path: Path) -> str:
    """The shell command textual-serve runs for each browser tab: this Python's ``pxp app`` on ``db_path``."""
    return shlex.join([sys.executable, "-m", "pxp_tui", "app", "--db", str(db_path)])


def warning(host: str) -> str | None:
    """What ``pxp serve`` says when bound to ``host``: None on loopback, else that nothing guards the port."""
    if is_loopback(host):
        return None
    return (
        f"pxp serve: warning: listening on {host}, not on this machine's loopback: the address holds a key, but travels "
        "in plain http, so anyone on the network path can read it, then drive the app and read the blackboard. Put it "
        "behind a reverse proxy with TLS that authenticates, or bind 127.0.0.1 and reach it through an ssh tunnel "
        "(docs/browser.md)."
    )


class PageAppService(AppService):
    """textual-serve's app process for one tab, told what the page's terminal draws (its environment); the page's
    answers that came too late are kept from its keys (:func:`~pxp_tui.app.shell.page_terminal.after_start`)."""

    def __init__(self, command: str, page: page_terminal.PageTerminal, **kwargs: object) -> None:
        super().__init__(command, **kwargs)  # type: ignore[arg-type]
        self.page = page
        self.page_environment = page_terminal.app_environment(page)

    def _build_environment(self, width: int = 80, height: int = 24) -> dict[str, str]:
        return {**super()._build_environment(width=width, height=height), **self.page_environment}

    async def stop(self) -> None:
        """As textual-serve's (the app told to quit, its output read to the end), then its process waited for: it
        has ended, and been reaped, when the tab's handler returns (and before the server's loop closes)."""
        process = textual_serve_internals.app_process(self)
        await super().stop()
        if process is not None:
            await process.wait()

    async def send_bytes(self, data: bytes) -> bool:
        text = page_terminal.after_start(self.page, data.decode("utf-8", "surrogateescape"))
        return await super().send_bytes(text.encode("utf-8", "surrogateescape")) if text else True


class PXPServer(Server):
    """textual-serve's server for ``pxp app --db db_path`` (see the module): bound at once, to ``host``:``port``."""

    def __init__(self, db_path: Path, *, host: str, port: int, public_url: str | None = None) -> None:
        self.db_path = Path(db_path).resolve()
        if public_url is not None:
            parts = urlsplit(public_url)
            if parts.scheme not in ("http", "https") or not parts.hostname or parts.query or parts.fragment:
                raise ValueError(f"--public-url {public_url!r} is not an http:// or https:// address (https://HOST[:PORT])")
        if is_wildcard(host) and public_url is None:
            raise ValueError(
                f"listening on every interface ({host or 'all'}) needs --public-url, the address the experts' browsers "
                "open (http://HOST:PORT, or the reverse proxy's https://...)"
            )
        family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
        try:
            self.socket = socket.create_server((host.strip("[]"), port), family=family)
        except OSError as exc:
            reason = os.strerror(exc.errno) if exc.errno else str(exc)
            raise OSError(exc.errno, f"cannot listen on {url_host(host)}:{port}: {reason}") from None
        port = self.socket.getsockname()[1]
        super().__init__(app_command(self.db_path), host=host, port=port, title="PXP", public_url=public_url)
        self.listening = f"http://{url_host(host)}:{port}/"
        self.public_url = (public_url or self.listening).rstrip("/")
        self.behind_proxy = public_url is not None
        self.names = self._names(host)
        #: the key every address holds (see the module): URL-safe, 256 random bits
        self._key = secrets.token_urlsafe(32)

    def _names(self, host: str) -> frozenset[str]:
        """The host names (lower case, an IPv6 address without brackets) a request may name in ``Host``/``Origin``."""
        names = {urlsplit(self.public_url).hostname or ""}
        if not is_wildcard(host):
            names.add(host.strip("[]").lower())
        if is_loopback(host):
            names |= {name.strip("[]") for name in LOOPBACK_NAMES}
        return frozenset(name for name in names if name)

    @property
    def url(self) -> str:
        """The address to open in a browser: the only one that opens the app (it holds the key)."""
        return f"{self.public_url}/{self._key}/"

    # -- who may ask ------------------------------------------------------------------------------
    def _allowed(self, netloc: str | None) -> bool:
        if not netloc:
            return False
        return (urlsplit(f"//{netloc}").hostname or "") in self.names

    def _check(self, request: web.Request) -> None:
        """Refuse (403) a request whose ``Host``, or ``Origin`` when a browser sends one, is not this server's."""
        if not self._allowed(request.host):
            raise web.HTTPForbidden(text=f"pxp serve does not answer for {request.host!r}\n")
        origin = request.headers.get("Origin")
        if origin is not None and not self._allowed(urlsplit(origin).netloc):
            raise web.HTTPForbidden(text=f"pxp serve does not answer pages of {origin!r}\n")

    def holds_key(self, path: str) -> bool:
        """Whether ``path``'s first part is the key (``/KEY/...``), compared in constant time."""
        given = path[1:].split("/", 1)[0] if path.startswith("/") else ""
        return hmac.compare_digest(given.encode("utf-8", "surrogateescape"), self._key.encode())

    @web.middleware
    async def _guard(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        """Every request: its key first (403 without it, whatever the path), then its ``Host`` and ``Origin``."""
        if not self.holds_key(request.path):
            raise web.HTTPForbidden(text=REFUSED)
        self._check(request)
        response = await handler(request)
        response.headers["Referrer-Policy"] = "no-referrer"  # the address, key and all, sent to no other site
        return response

    # -- the page and the websocket ---------------------------------------------------------------
    def _page_root(self, request: web.Request) -> str:
        """Where the page's links point: ``--public-url``, else the address the browser loaded the page from."""
        if self.behind_proxy:
            return f"{self.public_url}/{self._key}"
        return f"{request.scheme}://{request.host}/{self._key}"

    async def handle_index(self, request: web.Request) -> web.StreamResponse:
        root = self._page_root(request)
        try:
            font_size = int(request.query.get("fontsize", "16"))
        except ValueError:
            font_size = 16
        context = {
            "title": self.title,
            "font_size": max(6, min(font_size, 72)),
            "static": root + "/static/",
            "websocket": ("wss:" if root.startswith("https:") else "ws:") + root.split(":", 1)[1] + "/ws",
            "downloads": root + "/download/",
        }
        response = aiohttp_jinja2.render_template("page.html", request, context)
        response.text = (response.text or "").replace("</body>", _FOCUS_TERMINAL + "</body>", 1)
        response.headers["Cache-Control"] = "no-store"
        return response

    async def handle_to_index(self, request: web.Request) -> web.StreamResponse:
        raise web.HTTPFound(f"/{self._key}/")

    async def handle_static(self, request: web.Request) -> web.StreamResponse:
        path = STATIC.get(request.match_info["name"])
        if path is None:
            raise web.HTTPNotFound()
        return web.FileResponse(path, headers={"Cache-Control": "private, max-age=3600"})

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        """The tab's websocket: the page's terminal asked what it draws, then the tab's app started and driven
        (textual-serve's protocol, as its own ``handle_websocket``)."""
        websocket = web.WebSocketResponse(heartbeat=15)

        def number(name: str, default: int) -> int:
            try:
                return max(1, min(int(request.query.get(name, default)), 1000))
            except ValueError:
                return default

        width, height = number("width", 80), number("height", 24)
        app_service: AppService | None = None
        try:
            await websocket.prepare(request)
            page = await page_terminal.ask(websocket)
            if page.closed:
                return websocket
            width, height = page.size or (width, height)
            app_service = PageAppService(
                self.command,
                page,
                write_bytes=websocket.send_bytes,
                write_str=websocket.send_str,
                close=websocket.close,
                download_manager=self.download_manager,
                debug=self.debug,
            )
            await app_service.start(width, height)
            if page.typed:
                await app_service.send_bytes(page.typed.encode("utf-8"))
            if page.focus == "focus":
                await app_service.focus()
            await textual_serve_internals.process_messages(self, websocket, app_service)
        except asyncio.CancelledError:
            await websocket.close()
        except Exception:
            log.exception("a tab's app failed")
        finally:
            if app_service is not None:
                await app_service.stop()
        return websocket

    # -- running ----------------------------------------------------------------------------------
    async def application(self) -> web.Application:
        """The server's aiohttp application: every route under the key, the key checked first (:meth:`_guard`)."""
        app = web.Application(middlewares=[self._guard])
        aiohttp_jinja2.setup(app, loader=jinja2.FileSystemLoader(WEB / "templates"))
        app.add_routes(
            [
                web.get("/{secret}", self.handle_to_index),
                web.get("/{secret}/", self.handle_index),
                web.get("/{secret}/ws", self.handle_websocket),
                web.get("/{secret}/download/{key}", self.handle_download),  # textual-serve's, by the delivery's key
                web.get("/{secret}/static/{name:.+}", self.handle_static),
            ]
        )
        app.on_startup.append(self.on_startup)
        app.on_shutdown.append(self.on_shutdown)
        return app

    async def on_startup(self, app: web.Application) -> None:
        where = f" (listening on {self.listening})" if self.behind_proxy else ""
        print(f"pxp serve: the app on {self.db_path} at {self.url}{where}", flush=True)
        print(
            "pxp serve: only this address opens it (it holds a key made now): keep it to yourself; "
            "each browser tab runs an app of its own; ctrl+c stops the server (and every app)",
            flush=True,
        )

    def serve(self, debug: bool = False) -> None:
        """Serve until ctrl+c or SIGTERM (each tab's app is told to quit: every message was committed when shown)."""
        import signal

        self.debug = debug
        logging.basicConfig(level=logging.WARNING, format="pxp serve: %(message)s")
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        for signum in (signal.SIGINT, signal.SIGTERM):
            try:
                loop.add_signal_handler(signum, self.request_exit)
            except (NotImplementedError, RuntimeError):  # no signal handlers here (Windows)
                continue
        # no access log: every address holds the key
        web.run_app(self.application(), sock=self.socket, handle_signals=False, loop=loop, print=None, access_log=None)
