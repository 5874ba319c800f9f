"""What the app loads after its first paint, in a thread: litellm, the tasks (RDKit), drawing and charts."""

from __future__ import annotations

from importlib import import_module

#: modules slow to import that the session screen needs (the chart), besides terminal images and the tasks' own
HEAVY = ("textual_plotext",)


def load(tasks: list[str]) -> None:
    """Import everything a session needs, so that nothing slow is imported on the UI loop later."""
    from pxp_tui.agents import offline
    from pxp_tui.agents.llm import load_litellm
    from pxp_tui.app.picture import graphics
    from pxp_tui.tasks import get_task

    for name in tasks:
        get_task(name).warm_up()  # DRUG: RDKit's worker processes start, and import RDKit beside what follows
    graphics.load()  # textual-image, numpy, Pillow: the terminal's answers replayed to it

    modules = list(HEAVY)
    for name in tasks:
        modules += get_task(name).slow_modules  # loading it: RDKit for DRUG
    for module in modules:
        import_module(module)
    import pxp_tui.runs.execute  # noqa: F401 - the run wiring (agents, blackboard)

    offline.warm_up(load_litellm())  # about 2 s, and litellm's first call (0.25 s) not in the run's first message
