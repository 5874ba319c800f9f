"""What the app loads after its first paint, in a thread: the tasks (RDKit), the run wiring, drawing and charts.

litellm is not among them: its import takes seconds of CPU, which the first session's modules would share
on a machine of two cores. An offline run never needs it (the offline baseline answers without it:
``agents/llm.py``); a model's client starts importing it in a thread of its own as soon as a model is named
(on the start screen, or when a run's client is made: ``agents/llm.py`` ``start_loading_litellm``).
"""

from __future__ import annotations

from importlib import import_module

#: modules slow to import that the session screen needs (the chart), besides terminal images and the tasks' own
HEAVY = ("textual_plotext",)


def load(tasks: list[str]) -> None:
    """Import everything a session needs but litellm, so that nothing slow is imported on the UI loop later."""
    from pxp_tui.app.picture import graphics
    from pxp_tui.app.shell import heap
    from pxp_tui.tasks import get_task

    for name in tasks:
        get_task(name).warm_up()  # DRUG: RDKit's worker processes start, and import RDKit beside what follows
    import_module("pxp_tui.runs.execute")  # the run wiring (agents, blackboard): the first session's first need
    import_module("pxp_tui.app.session.screen")  # the session screen and its widgets: not imported on the UI loop

    graphics.load()  # textual-image, numpy, Pillow: the terminal's answers replayed to it

    modules = list(HEAVY)
    for name in tasks:
        modules += get_task(name).slow_modules  # loading it: RDKit for DRUG
    for module in modules:
        import_module(module)
    heap.settle("preloaded")  # what was imported here lives as long as the app: left out of the collector's walks


def expect_model(model: str | None) -> None:
    """A model named for a run (the start screen's machine or checker, an unfinished run's): unless it is the offline
    baseline, litellm starts loading now, in a thread of its own, for its first call."""
    from pxp_tui.common.models import is_offline

    if model and model.strip() and not is_offline(model.strip()):
        from pxp_tui.agents.llm import start_loading_litellm

        start_loading_litellm()
