"""``pxp serve``: where it listens, what it says about it, and whom it answers (no browser needed here)."""

from __future__ import annotations

import http.client
import re
import socket
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from pxp_harness.browser import Served
from pxp_harness.cli_helpers import pxp
from pxp_tui.app.shell import serve

from ..conftest import ROOT


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2", "localhost", "::1", "[::1]"])
def test_loopback_is_served_without_a_warning(host: str) -> None:
    assert serve.warning(host) is None


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.20", "::", "pxp.example.org"])
def test_any_other_address_is_warned_of_with_what_to_do(host: str) -> None:
    caution = serve.warning(host) or ""
    assert "plain http" in caution
    assert "reverse proxy" in caution and "ssh tunnel" in caution
    page = re.search(r"docs/[\w-]+\.md", caution)
    assert page, caution
    how = (ROOT / page.group(0)).read_text()  # the page it names shows both
    assert "ssh -N -L" in how and "proxy_pass" in how


class _Recorded:
    """Stands in for the server in the command's tests: the arguments it was made with; serving returns at once."""

    made: list[dict] = []

    def __init__(self, db_path: Path, **kwargs: object) -> None:
        self.made.append({"db_path": db_path, **kwargs})
        self.socket = socket.socket()

    def serve(self) -> None:
        self.socket.close()


@pytest.mark.parametrize(
    ("arguments", "warned"),
    [((), False), (("--bind", "192.168.1.20"), True), (("--bind", "0.0.0.0", "--public-url", "https://pxp.example.org"), True)],
)
def test_the_command_warns_on_stderr_only_when_bound_beyond_loopback(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, db_path: Path, arguments: tuple[str, ...], warned: bool
) -> None:
    monkeypatch.setattr(serve, "PXPServer", _Recorded)
    _Recorded.made.clear()
    code, _, err = pxp(capsys, "serve", "--db", db_path, *arguments)
    assert code == 0, err
    assert ("warning" in err and "plain http" in err) is warned
    assert _Recorded.made[0]["host"] == (arguments[1] if arguments else "127.0.0.1")
    assert _Recorded.made[0]["port"] == 8470
    assert db_path.exists()  # made before serving: a file that is not a blackboard is said before any tab opens


def test_every_interface_needs_the_address_browsers_open_and_no_file_is_made(
    capsys: pytest.CaptureFixture[str], db_path: Path
) -> None:
    code, _, err = pxp(capsys, "serve", "--bind", "0.0.0.0", "--db", db_path)
    assert code == 2
    assert "needs --public-url" in err
    code, _, err = pxp(capsys, "serve", "--public-url", "ftp://pxp.example.org", "--db", db_path)
    assert code == 2
    assert "not an http:// or https:// address" in err
    code, _, err = pxp(capsys, "serve", "--port", "70000", "--db", db_path)
    assert code == 2
    assert "70000 is not a port number" in err
    assert not db_path.exists()


def test_a_port_in_use_is_said_at_once_and_no_file_is_made(capsys: pytest.CaptureFixture[str], db_path: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        code, _, err = pxp(capsys, "serve", "--port", port, "--db", db_path)
    assert code == 1
    assert err.strip() == f"pxp: error: cannot listen on 127.0.0.1:{port}: Address already in use"
    assert not db_path.exists()


def _get(url: str, path: str, headers: dict[str, str]) -> tuple[int, str]:
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=30)
    try:
        connection.request("GET", path, headers=headers)
        response = connection.getresponse()
        return response.status, response.read().decode("utf-8", "replace")
    finally:
        connection.close()


def test_the_server_answers_its_own_names_only_and_its_page_loads_nothing_from_elsewhere(tmp_path: Path) -> None:
    served = Served(tmp_path / "sessions.db", tmp_path)
    try:
        port = urlsplit(served.url).port
        key = urlsplit(served.url).path  # /KEY/
        status, page = _get(served.url, key, {"Host": f"127.0.0.1:{port}"})
        assert status == 200
        assert f"ws://127.0.0.1:{port}{key}ws" in page  # the websocket where the page was loaded from
        assert "googleapis" not in page and "https://" not in page  # the font is served from here
        status, page = _get(served.url, key, {"Host": "localhost:2222"})  # an ssh tunnel's local port
        assert status == 200
        assert f"ws://localhost:2222{key}ws" in page
        status, _ = _get(served.url, key, {"Host": f"attacker.example:{port}"})  # a DNS name rebound to this machine
        assert status == 403
        status, _ = _get(served.url, key + "ws", {"Host": f"127.0.0.1:{port}", "Origin": "https://attacker.example", **UPGRADE})
        assert status == 403  # another site's page in the expert's browser cannot open the app
        status, _ = _get(
            served.url, key + "download/anything", {"Host": f"127.0.0.1:{port}", "Origin": "https://attacker.example"}
        )
        assert status == 403
        for asset in re.findall(
            r'(?:src|href)="http://127\.0\.0\.1:\d+(/[^"]+)"', _get(served.url, key, {"Host": f"127.0.0.1:{port}"})[1]
        ):
            assert _get(served.url, asset, {"Host": f"127.0.0.1:{port}"})[0] == 200, asset  # everything the page loads
    finally:
        assert served.stop() == 0


#: a websocket's opening request (what a browser sends to /ws)
UPGRADE = {
    "Connection": "Upgrade",
    "Upgrade": "websocket",
    "Sec-WebSocket-Version": "13",
    "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
}


def test_only_the_printed_address_opens_the_app_and_it_is_printed_once(tmp_path: Path) -> None:
    """The bare address, the page's files, the websocket, a wrong or truncated key: all refused (403); the key is in
    the address printed, and nowhere else the server writes (its output after, the blackboard)."""
    db = tmp_path / "sessions.db"
    served = Served(db, tmp_path)
    try:
        host = {"Host": urlsplit(served.url).netloc}
        key = urlsplit(served.url).path.strip("/")
        assert len(key) >= 40  # 256 random bits
        assert _get(served.url, f"/{key}/", host)[0] == 200
        assert _get(served.url, f"/{key}", host)[0] == 302  # to the page
        refused = ["/", "/ws", "/static/terminal.js", "/download/anything", f"/{key[:-1]}/", f"/{key}x/", f"/{key.upper()}/"]
        refused += [f"/x/{key}/", f"//{key}/", "/" + "a" * len(key) + "/"]
        for path in refused:
            status, body = _get(served.url, path, host)
            assert status == 403, path
            assert "open the address pxp serve printed" in body and key not in body
        assert _get(served.url, "/ws", {**host, **UPGRADE})[0] == 403  # no app started for it
    finally:
        assert served.stop() == 0
    assert served.process.stdout is not None
    rest = served.process.stdout.read() + served.log.read_text()
    assert "only this address opens it" in rest
    assert key not in rest  # printed once, in the address; no access log
    assert key.encode() not in db.read_bytes()


def test_behind_a_reverse_proxy_the_page_points_the_browser_at_the_public_address(tmp_path: Path) -> None:
    """docs/browser.md's nginx example: the proxy passes the public Host; the page's websocket is the proxy's wss://."""
    served = Served(tmp_path / "sessions.db", tmp_path, "--public-url", "https://pxp.example.org")
    try:
        assert served.url.startswith("https://pxp.example.org/")  # what the server prints: the address the experts open
        listening = served.listening
        key = urlsplit(served.url).path
        status, page = _get(listening, key, {"Host": "pxp.example.org"})
        assert status == 200
        assert f"wss://pxp.example.org{key}ws" in page and f"https://pxp.example.org{key}static/" in page
        status, _ = _get(listening, key, {"Host": "other.example.org"})
        assert status == 403
    finally:
        assert served.stop() == 0


@pytest.mark.slow
async def test_a_file_a_tab_opens_arrives_whole_from_an_app_slower_than_textual_serves_four_seconds() -> None:
    """``v`` streams the original picture from the tab's app a piece at a time: a busy machine's app that answers a
    piece after 5 s still delivers the whole file (textual-serve alone gave up after 4 s, mid-file)."""
    import asyncio

    from textual_serve.download_manager import DownloadManager

    picture = b"\x89PNG" + bytes(range(256)) * 4
    manager = DownloadManager()
    pieces = [picture[:600], picture[600:], b""]

    class SlowApp:  # the tab's app as textual-serve sees it: asked for a piece, it answers later
        app_service_id = "tab"

        async def send_meta(self, meta: dict) -> bool:
            piece = pieces.pop(0)
            delay = 5.0 if piece == picture[600:] else 0.0
            asyncio.get_running_loop().call_later(delay, lambda: asyncio.ensure_future(manager.chunk_received("key", piece)))
            return True

    await manager.create_download(
        app_service=SlowApp(),  # type: ignore[arg-type]
        delivery_key="key",
        file_name="x.png",
        open_method="browser",
        mime_type="image/png",
    )
    received = b"".join([piece async for piece in manager.download("key")])
    assert received == picture
    assert serve.DOWNLOAD_PATIENCE > 5.0
