"""Opening a picture in the desktop's image viewer: when there is a desktop, and what is said otherwise.

The viewer is never launched: the opener is injected.
"""

from __future__ import annotations

import io
import os
import shlex
import socket
import stat
import tempfile
from pathlib import Path

import pytest
from PIL import Image

from pxp_tui.app.picture import desktop
from pxp_tui.common.instance import Instance
from pxp_tui.tasks import get_task

PARACETAMOL = Instance(1, "demo-drug", "paracetamol", input="CC(=O)Nc1ccc(O)cc1", meta={"name": "Paracetamol"})


def xray() -> Instance:
    buffer = io.BytesIO()
    Image.new("L", (63, 57), 120).save(buffer, format="JPEG")
    return Instance(2, "xray", "case_1", image=buffer.getvalue(), image_mime="image/jpeg")


def has(*names: str):
    return lambda name: f"/usr/bin/{name}" if name in names else None


def test_the_command_for_each_kind_of_desktop(tmp_path: Path) -> None:
    path = tmp_path / "x.png"
    assert desktop.viewer_command(path, env={}, platform="darwin") == ["open", str(path)]
    linux = {"DISPLAY": ":0"}
    assert desktop.viewer_command(path, env=linux, platform="linux", which=has("xdg-open")) == ["xdg-open", str(path)]
    wayland = {"WAYLAND_DISPLAY": "wayland-0"}
    assert desktop.viewer_command(path, env=wayland, platform="linux", which=has("xdg-open")) == ["xdg-open", str(path)]


def test_without_a_desktop_it_says_why() -> None:
    path = Path("/tmp/x.png")
    reason = desktop.viewer_command(path, env={}, platform="linux", which=has("xdg-open"))
    assert isinstance(reason, str) and "DISPLAY" in reason and "WAYLAND_DISPLAY" in reason
    over_ssh = desktop.viewer_command(path, env={"SSH_CONNECTION": "1 2 3 4"}, platform="linux", which=has("xdg-open"))
    assert "ssh" in over_ssh
    no_tool = desktop.viewer_command(path, env={"DISPLAY": ":0"}, platform="linux", which=has())
    assert isinstance(no_tool, str) and "xdg-open" in no_tool


def test_an_xray_is_opened_as_its_original_file_without_waiting(tmp_path: Path) -> None:
    launched: list[list[str]] = []
    instance = xray()
    outcome = desktop.open_picture(
        get_task("rad"),
        instance,
        env={"DISPLAY": ":0"},
        platform="linux",
        which=has("xdg-open"),
        opener=launched.append,
        where=tmp_path,
    )
    assert outcome.opened and outcome.path == tmp_path / "xray-case_1.jpg"
    assert outcome.path.read_bytes() == instance.image  # the original bytes, not a copy shrunk for the screen
    assert launched == [["xdg-open", str(outcome.path)]]
    assert str(outcome.path) in outcome.message


def test_over_ssh_the_file_is_written_and_its_path_given_for_scp(tmp_path: Path) -> None:
    launched: list[list[str]] = []
    outcome = desktop.open_picture(
        get_task("rad"),
        xray(),
        env={"SSH_CONNECTION": "1 2 3 4"},
        platform="linux",
        which=has("xdg-open"),
        opener=launched.append,
        where=tmp_path,
    )
    assert not outcome.opened and not launched
    assert outcome.path is not None and outcome.path.exists()
    assert "scp" in outcome.message and str(outcome.path) in outcome.message


def test_a_molecule_is_drawn_large_by_rdkit_and_a_reaction_too(tmp_path: Path) -> None:
    launched: list[list[str]] = []
    task = get_task("drug")
    outcome = desktop.open_picture(task, PARACETAMOL, platform="darwin", opener=launched.append, where=tmp_path)
    assert outcome.opened and launched == [["open", str(outcome.path)]]
    with Image.open(outcome.path) as image:
        assert image.format == "PNG" and max(image.size) >= 1000
    reaction = desktop.open_picture(
        task, PARACETAMOL, "CC(=O)Cl.Nc1ccc(O)cc1", platform="darwin", opener=launched.append, where=tmp_path
    )
    assert reaction.path is not None and reaction.path.name == "demo-drug-paracetamol-proposal.png"
    assert reaction.path.read_bytes() != outcome.path.read_bytes()


def test_a_viewer_that_cannot_start_is_reported(tmp_path: Path) -> None:
    def broken(command) -> None:
        raise FileNotFoundError(2, "No such file or directory", command[0])

    outcome = desktop.open_picture(get_task("rad"), xray(), platform="darwin", opener=broken, where=tmp_path)
    assert not outcome.opened and "Could not run open" in outcome.message and str(outcome.path) in outcome.message


# -- the pictures folder: private, or refused -----------------------------------------------------------
def opened_over_ssh(where: Path | None = None) -> desktop.Outcome:
    return desktop.open_picture(get_task("rad"), xray(), env={"SSH_CONNECTION": "1 2 3 4"}, platform="linux", where=where)


def test_pictures_go_to_a_private_folder_in_the_users_cache(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "my cache; rm -rf ~"))
    outcome = opened_over_ssh()
    assert outcome.path == tmp_path / "my cache; rm -rf ~" / "pxp-tui" / "pictures" / "xray-case_1.jpg"
    assert stat.S_IMODE(outcome.path.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(outcome.path.stat().st_mode) == 0o600
    assert os.listdir(outcome.path.parent) == ["xray-case_1.jpg"]  # no partial file left beside it
    # the scp line pastes as one argument, whatever the folder's name holds
    pasted = outcome.message.split("copy it with: ")[1].rstrip(")")
    assert shlex.split(pasted) == ["scp", f"{socket.gethostname()}:{outcome.path}", "."]


def test_without_a_cache_folder_a_private_one_in_tmp(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "file").write_text("not a folder")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "file"))  # the cache cannot be made under a file
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    outcome = opened_over_ssh()
    assert outcome.path is not None and outcome.path.parent == tmp_path / "tmp" / f"pxp-pictures-{os.getuid()}"
    assert stat.S_IMODE(outcome.path.parent.stat().st_mode) == 0o700
    own = tmp_path / "tmp" / f"pxp-pictures-{os.getuid()}"
    own.chmod(0o755)  # this user's own, readable by others: made private again
    assert opened_over_ssh().path == outcome.path and stat.S_IMODE(own.stat().st_mode) == 0o700


PLANTS = {
    "a symbolic link": "is a symbolic link",
    "another user's folder": "belongs to another user (uid 4242)",
    "a folder anyone may write": "may be written by other users (mode 0777)",
}


@pytest.mark.parametrize("plant", sorted(PLANTS))
@pytest.mark.parametrize("where", ["tmp", "cache"])
def test_a_planted_pictures_folder_is_refused_and_nothing_is_written_through_it(
    tmp_path: Path, monkeypatch, plant: str, where: str
) -> None:
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "xray-case_1.jpg").write_bytes(b"the victim's file")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    if where == "tmp":
        (tmp_path / "file").write_text("")
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "file"))
        folder = tmp / f"pxp-pictures-{os.getuid()}"
    else:
        folder = tmp_path / "cache" / "pxp-tui" / "pictures"
        folder.parent.mkdir(parents=True)
    if plant == "a symbolic link":
        folder.symlink_to(victim)
    else:
        folder.mkdir()
        (folder / "xray-case_1.jpg").symlink_to(victim / "xray-case_1.jpg")
        if plant == "another user's folder":
            os.chown(folder, 4242, 4242)
            folder.chmod(0o700)
        else:
            folder.chmod(0o777)
    outcome = opened_over_ssh()
    assert not outcome.opened and outcome.path is None
    assert outcome.message == f"Pictures are not written to {folder}: it {PLANTS[plant]}. Remove it, and pxp makes a private one."
    assert (victim / "xray-case_1.jpg").read_bytes() == b"the victim's file"
    assert sorted(p.name for p in victim.iterdir()) == ["xray-case_1.jpg"]


def test_a_link_at_the_pictures_name_is_replaced_never_followed(tmp_path: Path) -> None:
    victim = tmp_path / "victim.jpg"
    victim.write_bytes(b"the victim's file")
    own = tmp_path / "pictures"
    own.mkdir(mode=0o700)
    (own / "xray-case_1.jpg").symlink_to(victim)
    outcome = opened_over_ssh(own)
    assert victim.read_bytes() == b"the victim's file"
    assert outcome.path is not None and not outcome.path.is_symlink() and outcome.path.read_bytes() == xray().image
