"""How a DRUG instance reads in a prompt, and its target read back (the offline baseline reads its prompt as an LLM would)."""

from __future__ import annotations

#: the line of an instance message that names the target
TARGET = "Target SMILES:"


def instance_text(name: str, smiles: str) -> str:
    """The instance message: the target molecule's name and SMILES."""
    return f"Target molecule: {name}\n{TARGET} {smiles}"


def target_of(content: str) -> str | None:
    """The target SMILES named in an instance message."""
    for line in content.splitlines():
        if line.startswith(TARGET):
            return line.split(":", 1)[1].strip()
    return None
