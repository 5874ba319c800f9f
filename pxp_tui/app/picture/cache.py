"""Pictures kept per instance and size, and the next instance's picture drawn while the expert answers.

A picture is drawn (RDKit for a molecule, Pillow for an X-ray) and decoded in a thread; what comes out
(a loaded Pillow image, characters, or nothing) is kept in :data:`CACHE`, a bounded LRU keyed by what
is drawn (the task, the instance, the prediction) and the surface it was drawn for (cells, pixels,
renderer). A picture found there is shown at once, on the UI loop, without drawing again.

:func:`prefetch_next` draws the next instance of a run for the surface the current one has, in a
worker, while the expert is still answering: when the next session opens, its picture is in the
cache. The cache never blocks the UI loop: drawing happens outside its lock, and a picture drawn twice
at once (a prefetch and a show) is simply kept once.
"""

from __future__ import annotations

import asyncio
import io
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from typing import TYPE_CHECKING, Any

from pxp_tui.tasks.pictures import CellPicture, Surface

if TYPE_CHECKING:
    from pxp_tui.app.picture.widget import Picture
    from pxp_tui.common.instance import Instance

#: a drawn picture, ready to show: a loaded Pillow image, half-cell lines, characters, or None (no picture)
Prepared = Any

#: how many pictures are kept (an instance and a few predictions at a couple of sizes, for a few instances)
SIZE = 48


def prepare(data: Any, surface: Surface | None = None) -> Prepared:
    """What a task's drawing returned, ready to show (in the caller's thread): image bytes decoded and
    loaded; for half-cell blocks, the lines to paint on ``surface`` (:mod:`pxp_tui.app.picture.halfcell`)."""
    if data is None or isinstance(data, CellPicture):
        return data
    from PIL import Image

    image = data if isinstance(data, Image.Image) else Image.open(io.BytesIO(data))
    image.load()
    if surface is not None and surface.renderer == "halfcell":
        from pxp_tui.app.picture.halfcell import halfcell_picture

        return halfcell_picture(image, surface.cols, surface.rows)
    return image


class PictureCache:
    """A bounded LRU of prepared pictures, keyed by (what, surface); safe to use from threads."""

    def __init__(self, size: int = SIZE) -> None:
        self.size = size
        self._items: OrderedDict[tuple[Hashable, Surface], Prepared] = OrderedDict()
        self._lock = threading.Lock()
        self.draws = 0  # pictures drawn through :meth:`draw` (a miss), for the curious and the tests

    def __len__(self) -> int:
        return len(self._items)

    def lookup(self, key: Hashable, surface: Surface) -> tuple[bool, Prepared]:
        """(True, the picture) if it is kept (it becomes the most recent), else (False, None)."""
        with self._lock:
            if (key, surface) not in self._items:
                return False, None
            self._items.move_to_end((key, surface))
            return True, self._items[(key, surface)]

    def put(self, key: Hashable, surface: Surface, picture: Prepared) -> None:
        with self._lock:
            self._items[(key, surface)] = picture
            self._items.move_to_end((key, surface))
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def draw(self, key: Hashable, surface: Surface, draw: Callable[[Surface], Any]) -> Prepared:
        """The kept picture, or ``draw(surface)`` prepared and kept (call it in a thread: it may draw)."""
        found, picture = self.lookup(key, surface)
        if found:
            return picture
        picture = prepare(draw(surface), surface)
        with self._lock:
            self.draws += 1
        self.put(key, surface, picture)
        return picture

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


#: the app's pictures (one app per process)
CACHE = PictureCache()


def instance_key(task: Any, instance: Instance) -> Hashable:
    """What identifies the picture of ``instance`` in ``task``."""
    return (task.name, instance.dataset, instance.id, instance.key, "instance")


def prediction_key(task: Any, instance: Instance, prediction: str) -> Hashable:
    """What identifies the picture of ``prediction`` for ``instance`` in ``task`` (DRUG: the reaction)."""
    return (task.name, instance.dataset, instance.id, instance.key, "prediction", prediction)


# -- the next instance, drawn ahead ---------------------------------------------------------------------
def prefetch_next(picture: Picture, task: Any, plan: Sequence[int], order: int) -> None:
    """Draw the picture of the run's instance after session ``order``, in a worker, for the sizes the
    current instance's ``picture`` is shown at, once the pictures shown now are drawn.

    Nothing to do at the last instance, or with pictures off. A new prefetch replaces one still
    running (the worker group is exclusive).
    """
    from pxp_tui.app.picture.graphics import renderer

    if order + 1 >= len(plan) or task is None or renderer() == "none":
        return
    picture.run_worker(
        _prefetch(picture, task, plan[order + 1]),
        group="picture-prefetch",
        exclusive=True,
        exit_on_error=False,  # a picture drawn ahead is a nicety: failing, it is drawn when shown
    )


#: how long a prefetch waits for the pictures on screen to be drawn (the expert is answering meanwhile)
SETTLE = 10.0


async def _prefetch(picture: Picture, task: Any, instance_id: int) -> None:
    from pxp_tui.app.shared.host import host

    instances = await host(picture.app).read_board(_instances, [instance_id])  # a reader of its own, in a thread
    if not instances:
        return
    instance = instances[0]
    # the sizes to draw for are known once the pictures on screen are drawn (their layout depends on them)
    siblings = list(picture.parent.query(type(picture))) if picture.parent is not None else [picture]
    waited = 0.0
    while any(p.busy for p in siblings) and waited < SETTLE:
        await asyncio.sleep(0.05)
        waited += 0.05
    await _draw_ahead(picture, instance_key(task, instance), lambda s: task.draw_instance(instance, s))


def draw_ahead(picture: Picture, key: Hashable, draw: Callable[[Surface], Any]) -> None:
    """Draw what ``picture`` will show next (``key``, drawn by ``draw``), in a worker, for the surfaces it
    has now: when it is shown, it is found in the cache. A new one replaces one still running."""
    from pxp_tui.app.picture.graphics import renderer

    if renderer() == "none":
        return
    picture.run_worker(_draw_ahead(picture, key, draw), group=f"draw-ahead-{picture.id}", exclusive=True, exit_on_error=False)


async def _draw_ahead(picture: Picture, key: Hashable, draw: Callable[[Surface], Any]) -> None:
    for surface in dict.fromkeys(s for s in (picture.frame_surface(), *picture.shown_on) if s is not None):
        await asyncio.to_thread(CACHE.draw, key, surface, draw)


def _instances(board: Any, ids: list[int]) -> list[Instance]:
    return list(board.instances(ids))
