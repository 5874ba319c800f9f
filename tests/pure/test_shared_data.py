"""The tests that need the papers' data or text skip where ../shared is missing, and fail under CI, which has it."""

from __future__ import annotations

from pathlib import Path

import pytest

from .. import conftest


@pytest.mark.parametrize("fixture", ["shared_data", "shared_papers"])
@pytest.mark.parametrize("ci", ["true", "1"])
def test_missing_shared_files_fail_under_ci(
    fixture: str, ci: str, request, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(conftest, "SHARED_DATA", tmp_path / "absent")
    monkeypatch.setattr(conftest, "SHARED_PAPERS", tmp_path / "absent")
    monkeypatch.setenv("CI", ci)
    with pytest.raises(BaseException) as stopped:  # a skip too, which must not be what happens
        request.getfixturevalue(fixture)
    assert stopped.type is pytest.fail.Exception and "CI is set" in str(stopped.value)


@pytest.mark.parametrize("fixture", ["shared_data", "shared_papers"])
@pytest.mark.parametrize("ci", [None, "", "false", "0"])
def test_missing_shared_files_skip_elsewhere(
    fixture: str, ci: str | None, request, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(conftest, "SHARED_DATA", tmp_path / "absent")
    monkeypatch.setattr(conftest, "SHARED_PAPERS", tmp_path / "absent")
    if ci is None:
        monkeypatch.delenv("CI", raising=False)
    else:
        monkeypatch.setenv("CI", ci)
    with pytest.raises(BaseException) as stopped:  # a failure too, which must not be what happens
        request.getfixturevalue(fixture)
    assert stopped.type is pytest.skip.Exception and "not found at" in str(stopped.value)


def test_present_shared_files_are_given(request, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(conftest, "SHARED_DATA", tmp_path)
    monkeypatch.setenv("CI", "true")
    assert request.getfixturevalue("shared_data") == tmp_path
