"""Opening a picture in the desktop's image viewer: when there is a desktop, and what is said otherwise.

The viewer is never launched: the opener is injected.
"""

from __future__ import annotations

import io
from pathlib import Path

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
