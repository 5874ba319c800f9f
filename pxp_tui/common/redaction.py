"""Keep secrets out of anything written: blackboard, logs, exports, error messages."""

from __future__ import annotations

import os
import re

_SECRET_NAME = re.compile(r"(API_KEY|_KEY|TOKEN|SECRET|PASSWORD)$", re.IGNORECASE)


def secrets() -> list[str]:
    """Values of environment variables that look like credentials (at least 8 characters)."""
    return [v for k, v in os.environ.items() if _SECRET_NAME.search(k) and len(v) >= 8]


def redact(text: str) -> str:
    """``text`` with every credential value from the environment replaced by ``[redacted]``."""
    for value in secrets():
        if value in text:
            text = text.replace(value, "[redacted]")
    return re.sub(r"\b(sk|pk|rk)-[A-Za-z0-9_\-]{16,}", "[redacted]", text)
