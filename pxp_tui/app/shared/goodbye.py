"""A bound on an app's goodbye: once it starts leaving, the process ends within :data:`GOODBYE` seconds.

Textual's last frames wait for the terminal to take them, and a terminal that has stopped reading (a
stalled ssh connection, a paused multiplexer) or has closed never does: the app's shutdown then waited
for ever. Whoever leaves has saved what matters first (every message is committed when it is shown).
"""

from __future__ import annotations

import os
import threading
import time

#: seconds an app has to say goodbye (pause its runs, restore the terminal) before the process ends anyway
GOODBYE = 10.0


def bound_goodbye(code: int = 0) -> None:
    """End the process with ``code`` in :data:`GOODBYE` seconds, unless it has ended by then."""
    threading.Thread(target=_exit_after, args=(GOODBYE, code), name="pxp-goodbye", daemon=True).start()


def _exit_after(seconds: float, code: int) -> None:
    time.sleep(seconds)
    os._exit(code)
