"""Pictures inside tmux: its version, what it knows of the terminal around it, and kitty's graphics through it.

tmux draws its panes itself, so a picture reaches the terminal around it only if tmux redraws it (Sixel, tmux
3.4+ built with it) or passes it on untouched. kitty's graphics can be passed on: tmux (3.3+, with
``allow-passthrough`` on) hands a sequence wrapped as ``ESC P tmux; ... ESC \\`` (every ESC inside doubled) to
the terminal around it, and textual-image places its kitty pictures by Unicode placeholders, characters tmux
draws and redraws like any text, whose 24-bit colour names the picture. So pxp sends kitty's graphics through
tmux where the terminal around it is kitty 0.28 or later (tmux asks its name and version, XTVERSION, and
keeps the answer as ``client_termtype``), passthrough is allowed, and colours reach it in 24 bits; where one
of these is missing the picture's header says which line would fix it.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass

#: the first kitty that draws pictures placed by Unicode placeholders, as textual-image places them
KITTY_PLACEHOLDERS = (0, 28)
#: what tmux is asked of the client terminal and the pane (tab-separated)
FORMAT = "#{client_termtype}\t#{allow-passthrough}\t#{client_termfeatures}"


def tmux_version(env: dict[str, str] | None = None) -> str | None:
    """tmux's version (``3.3a``) when pxp runs inside tmux (``""`` if it cannot be told), else None.

    tmux sets ``TMUX`` in its panes, and ``TERM_PROGRAM=tmux`` with ``TERM_PROGRAM_VERSION``; else ``tmux -V`` says.
    """
    env = dict(os.environ) if env is None else env
    if not env.get("TMUX"):
        return None
    if env.get("TERM_PROGRAM") == "tmux" and env.get("TERM_PROGRAM_VERSION"):
        return env["TERM_PROGRAM_VERSION"]
    out = _tmux("-V")
    found = re.search(r"tmux\s+(\S+)", out or "")
    return found[1] if found else ""


def version_tuple(text: str) -> tuple[int, int]:
    """``3.3a`` as (3, 3); (0, 0) where no version can be read."""
    found = re.match(r"(?:next-)?(\d+)\.(\d+)", text)
    return (int(found[1]), int(found[2])) if found else (0, 0)


def kitty_version(name: str) -> tuple[int, int] | None:
    """kitty's version in an XTVERSION answer (``kitty(0.35.2)``), or None for another terminal."""
    found = re.fullmatch(r"kitty\((\d+)\.(\d+)[\w.+-]*\)", name.strip())
    return (int(found[1]), int(found[2])) if found else None


@dataclass(frozen=True)
class AroundTmux:
    """What tmux says of the terminal around it (the client's answer to XTVERSION, ``kitty(0.35.2)``, ``""`` if
    none) and of passing things to it: ``allow-passthrough`` on, and 24-bit colour (``RGB`` in its features)."""

    terminal: str = ""
    passthrough: bool = False
    rgb: bool = False

    @property
    def kitty(self) -> bool:
        """The terminal around tmux is a kitty that draws textual-image's pictures."""
        version = kitty_version(self.terminal)
        return version is not None and version >= KITTY_PLACEHOLDERS

    def passes_kitty(self, env: dict[str, str] | None = None) -> bool:
        """kitty's pictures pass through tmux to the kitty around it: nothing of :func:`kitty_missing` is missing."""
        return self.kitty and not kitty_missing(self, env)


def around_tmux(env: dict[str, str] | None = None) -> AroundTmux | None:
    """What tmux says of the terminal around the pane pxp runs in; None outside tmux or when tmux does not answer."""
    env = dict(os.environ) if env is None else env
    if not env.get("TMUX"):
        return None
    socket = ["-S", env["TMUX"].split(",")[0]]  # ``TMUX`` is the server's socket, its pid and the session's number
    pane = ["-t", env["TMUX_PANE"]] if env.get("TMUX_PANE") else []
    out = _tmux(*socket, "display-message", "-p", *pane, FORMAT)
    if out is None or out.count("\t") != 2:
        return None
    terminal, passthrough, features = out.rstrip("\n").split("\t")
    return AroundTmux(terminal, passthrough.strip() not in ("", "0", "off"), "RGB" in features.split(","))


def truecolor(env: dict[str, str] | None = None) -> bool:
    """Whether the app writes 24-bit colours (``COLORTERM``, or Textual's ``TEXTUAL_COLOR_SYSTEM``): inside tmux
    ``TERM`` names 256 colours, and a kitty picture's placeholders need their 24-bit colour to name it."""
    env = dict(os.environ) if env is None else env
    forced = env.get("TEXTUAL_COLOR_SYSTEM", "auto").strip().lower()
    if forced not in ("", "auto"):
        return forced == "truecolor"
    return env.get("COLORTERM", "").strip().lower() in ("truecolor", "24bit")


def kitty_missing(around: AroundTmux, env: dict[str, str] | None = None) -> list[str]:
    """What keeps kitty's pictures from passing through tmux to the kitty around it, each as the line that would
    fix it; ``[]`` when nothing does (and the terminal around tmux is kitty 0.28+)."""
    missing = []
    if not around.passthrough:
        missing.append("set -g allow-passthrough on")
    if not around.rgb:
        missing.append("set -as terminal-features ',xterm-kitty:RGB'")
    if not truecolor(env):
        missing.append("export COLORTERM=truecolor")
    return missing


def kitty_fix(missing: list[str]) -> str:
    """Where each missing line goes: ``in tmux.conf set -g allow-passthrough on, and where pxp runs export ...``."""
    places = [("in tmux.conf", [line for line in missing if line.startswith("set ")])]
    places.append(("where pxp runs", [line for line in missing if not line.startswith("set ")]))
    return ", and ".join(f"{place} {'; '.join(lines)}" for place, lines in places if lines)


def through_tmux(sequence: str) -> str:
    """``sequence`` wrapped for tmux's passthrough: tmux hands it, unwrapped, to the terminal around it."""
    return "\x1bPtmux;" + sequence.replace("\x1b", "\x1b\x1b") + "\x1b\\"


def _tmux(*args: str) -> str | None:
    try:
        done = subprocess.run(["tmux", *args], capture_output=True, text=True, timeout=2, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None
