"""Another account of the machine cannot reach the app ``pxp serve`` runs: the port answers it, the app does not.

A user made for the test (``useradd``; the test runs as root, else it is skipped) asks the server as a browser would,
without the key (the bare address, the websocket, a guess), and looks for the key wherever an account may look
(every process's command line and environment it can read): every request is refused, and the key is found nowhere.
The owner's printed address opens the app meanwhile.
"""

from __future__ import annotations

import http.client
import json
import os
import pwd
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from pxp_harness.browser import Served

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(os.geteuid() != 0, reason="making another user of the machine needs root"),
    pytest.mark.skipif(shutil.which("useradd") is None, reason="no useradd here"),
    pytest.mark.skipif(not Path("/usr/bin/python3").exists(), reason="no /usr/bin/python3 for the other user to run"),
]

#: what the other user runs (the system's Python, whose standard library is all it needs): it asks the server at
#: argv[1] without the key, and reads every process's command line and environment it may
INTRUDER = r"""
import http.client, json, os, sys
host, port = sys.argv[1], int(sys.argv[2])
def ask(path, headers=()):
    connection = http.client.HTTPConnection(host, port, timeout=60)
    connection.request("GET", path, headers=dict(headers))
    response = connection.getresponse()
    status = response.status
    connection.close()
    return status
upgrade = {"Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
           "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="}
statuses = {path: ask(path) for path in ("/", "/static/terminal.js", "/download/x", "/guess/", "/" + "A" * 43 + "/")}
statuses["/ws (websocket)"] = ask("/ws", upgrade)
seen = []
for pid in filter(str.isdigit, os.listdir("/proc")):
    for name in ("cmdline", "environ"):
        try:
            with open(f"/proc/{pid}/{name}", "rb") as file:
                seen.append(file.read().decode("utf-8", "replace"))
        except OSError:
            pass
print(json.dumps({"statuses": statuses, "seen": seen}))
"""


@pytest.fixture
def other_user() -> Iterator[pwd.struct_passwd]:
    name = f"pxp-other-{os.getpid()}"
    subprocess.run(["useradd", "--no-create-home", "--shell", "/usr/sbin/nologin", name], check=True, capture_output=True)
    try:
        yield pwd.getpwnam(name)
    finally:
        subprocess.run(["userdel", name], check=False, capture_output=True)


def _status(url: str) -> int:
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=60)
    try:
        connection.request("GET", parts.path)
        return connection.getresponse().status
    finally:
        connection.close()


def test_another_user_of_the_machine_cannot_reach_the_app(tmp_path: Path, other_user: pwd.struct_passwd) -> None:
    served = Served(tmp_path / "sessions.db", tmp_path)
    try:
        parts = urlsplit(served.url)
        key = parts.path.strip("/")
        intruder = subprocess.run(
            ["/usr/bin/python3", "-I", "-c", INTRUDER, parts.hostname or "", str(parts.port)],
            user=other_user.pw_uid,
            group=other_user.pw_gid,
            extra_groups=[],
            cwd="/",
            env={"PATH": "/usr/bin:/bin"},
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        found = json.loads(intruder.stdout)
        assert found["statuses"] and set(found["statuses"].values()) == {403}, found["statuses"]
        assert found["seen"], "the other user read no process's command line"
        assert not [text for text in found["seen"] if key in text]  # the key is in no command line, no environment
        assert _status(served.url) == 200  # the owner's address opens the app
    finally:
        assert served.stop() == 0
