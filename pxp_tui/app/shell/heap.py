"""The garbage collector while the first session starts: the objects that live as long as the app are left out of it.

Python's cyclic collector walks every tracked object it holds at each full collection, and a young collection runs
every 700 allocations. Between the first frame and the machine's first message the app imports its modules and
builds two screens: about 250 young collections and one or two full ones (walking every module's objects) ran then,
some 0.15-0.3 s of CPU on a loop that paints the screen. The modules, the first screen and the classes of the
session's widgets stay until the app closes: :func:`settle` moves them to the collector's permanent generation
(``gc.freeze``), which it no longer walks, and young collections run less often. A cycle made afterwards is still
collected.

Each moment freezes once per process: an app made again in the same process (the tests make hundreds) would
otherwise freeze the garbage the previous one left, which the collector would then never free.
"""

from __future__ import annotations

import gc

#: allocations between two young collections (Python's default is 700); the two older generations keep their ratios
YOUNG = 10_000


#: the moments (:func:`settle`'s ``moment``) that have frozen the heap in this process
_settled: set[str] = set()


def settle(moment: str) -> None:
    """Leave what is alive now out of the collector's walks, and collect the young generation less often; once per
    process for each ``moment`` (the first frame, the modules preloaded)."""
    if moment in _settled:
        return
    _settled.add(moment)
    gc.freeze()
    young, older, oldest = gc.get_threshold()
    if young < YOUNG:
        gc.set_threshold(YOUNG, older, oldest)
