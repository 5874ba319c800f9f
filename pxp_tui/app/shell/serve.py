"""``pxp serve``: the app in a web browser, through textual-serve.

Each browser tab that opens the page gets an app process of its own (``python -m pxp_tui app --db FILE``,
driven by Textual's web driver), on the one blackboard: several experts at once, one tab each, every
message committed as in the terminal. :class:`PXPServer` is textual-serve's server with what an expert's
machine needs around it:

- The socket is bound before anything else (a port in use is said at once; port 0 picks a free one, and
  the address printed is the real one).
- Requests are answered only for the names the server is reached by: loopback names (any port: an ssh
  tunnel may use another one) for a loopback address, the address itself, and ``--public-url``'s host. A
  web page of another site cannot open the app's websocket in the expert's browser (its ``Origin`` is
  checked), nor reach it by a DNS name rebound to this machine (the ``Host`` is checked).
- The page points the browser back at the address it was loaded from (its websocket, its scripts), or at
  ``--public-url`` behind a reverse proxy; and it loads nothing from other sites (textual-serve's page
  asks a web font service for its font: the same font is served from here instead).
- The page gives the terminal the keyboard as soon as the terminal exists: the first keys typed reach the app
  without a click first.

textual-serve has no authentication of its own: bound to anything but a loopback address, anyone who can
reach the port drives the app. ``docs/usage.md`` says how to put it behind an ssh tunnel or a reverse proxy.
"""

from __future__ import annotations

import ipaddress
import logging
import os
import re
import shlex
import socket
import sys
from pathlib import Path
from urllib.parse import urlsplit

import aiohttp_jinja2
from aiohttp import web
from textual_serve.server import Server

#: names of this machine's loopback interface, as a browser on it writes them in a URL
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "[::1]", "::1"})
#: the web font textual-serve's page fetches from a font service, replaced by the same font served from here
_FONT_LINK = re.compile(r'<link[^>]*href="https?://fonts\.googleapis\.com/[^"]*"[^>]*>', re.S)
_FONT_FACE = """<style>
      @font-face {{ font-family: "Roboto Mono"; font-style: normal; font-weight: 100 700;
        src: url("{static}fonts/RobotoMono-VariableFont_wght.ttf") format("truetype"); }}
      @font-face {{ font-family: "Roboto Mono"; font-style: italic; font-weight: 100 700;
        src: url("{static}fonts/RobotoMono-Italic-VariableFont_wght.ttf") format("truetype"); }}
    </style>
    <link rel="preload" href="{static}fonts/RobotoMono-VariableFont_wght.ttf" as="font" type="font/ttf" crossorigin>"""

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
        f"pxp serve: warning: listening on {host}, not on this machine's loopback: textual-serve has no authentication "
        "of its own, so anyone who can reach this port drives the app and reads the blackboard. Put it behind a reverse "
        "proxy that authenticates, or bind 127.0.0.1 and reach it through an ssh tunnel (docs/usage.md, 'In a browser')."
    )


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
        """The address to open in a browser."""
        return self.public_url + "/"

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

    # -- the page and the websocket ---------------------------------------------------------------
    def _page_root(self, request: web.Request) -> str:
        """Where the page's links point: ``--public-url``, else the address the browser loaded the page from."""
        if self.behind_proxy:
            return self.public_url
        return f"{request.scheme}://{request.host}"

    async def handle_index(self, request: web.Request) -> web.StreamResponse:
        self._check(request)
        root = self._page_root(request)
        static = root + "/static/"
        websocket = ("wss:" if root.startswith("https:") else "ws:") + root.split(":", 1)[1] + "/ws"
        try:
            font_size = int(request.query.get("fontsize", "16"))
        except ValueError:
            font_size = 16
        context = {
            "font_size": font_size,
            "app_websocket_url": websocket,
            "config": {"static": {"url": static}},
            "application": {"name": "PXP"},
        }
        response = aiohttp_jinja2.render_template("app_index.html", request, context)
        response.text = _FONT_LINK.sub(_FONT_FACE.format(static=static), response.text or "", count=1)
        response.text = (response.text or "").replace("</body>", _FOCUS_TERMINAL + "</body>", 1)
        response.headers["Cache-Control"] = "no-store"
        response.headers["Referrer-Policy"] = "no-referrer"
        return response

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        self._check(request)
        return await super().handle_websocket(request)

    async def handle_download(self, request: web.Request) -> web.StreamResponse:
        self._check(request)
        return await super().handle_download(request)

    # -- running ----------------------------------------------------------------------------------
    async def application(self) -> web.Application:
        """textual-serve's aiohttp application (its routes, templates and static files), to run on :attr:`socket`.

        Relies on textual-serve's private ``Server._make_app``, which its own ``serve`` runs on a host and port
        it binds itself; the one use, canaried in tests/test_serve.py.
        """
        return await self._make_app()

    async def on_startup(self, app: web.Application) -> None:
        where = f" (listening on {self.listening})" if self.behind_proxy else ""
        print(f"pxp serve: the app on {self.db_path} at {self.url}{where}", flush=True)
        print("pxp serve: each browser tab runs an app of its own; ctrl+c stops the server (and every app)", flush=True)

    def serve(self, debug: bool = False) -> None:
        """Serve until ctrl+c or SIGTERM (each tab's app is told to quit: every message was committed when shown)."""
        import asyncio
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
        web.run_app(self.application(), sock=self.socket, handle_signals=False, loop=loop, print=None)
