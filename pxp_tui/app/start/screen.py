"""The start screen: a new run (task, dataset, models, human, n, k, context), an unfinished run, or the review."""

from __future__ import annotations

import asyncio
import getpass
from typing import TYPE_CHECKING, Any

from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.css.query import NoMatches
from textual.lazy import Lazy
from textual.screen import Screen
from textual.widgets import Button, Checkbox, Input, Label, OptionList, Select, Static
from textual.widgets.option_list import Option

from pxp_tui.app.shared.breakpoints import apply_breakpoints
from pxp_tui.app.shared.browser import RESUME, REVIEW, SUBMIT, named_key, served_keys
from pxp_tui.app.shared.fitting_footer import FittingFooter
from pxp_tui.app.shared.header import header
from pxp_tui.app.shared.host import host
from pxp_tui.app.shared.look import read_settings, write_settings
from pxp_tui.app.start import fields as form_help
from pxp_tui.app.start.form_fields import FormFields
from pxp_tui.common.kinds import HumanKind
from pxp_tui.common.visible import visible
from pxp_tui.config import DEFAULTS
from pxp_tui.tasks import TASKS

if TYPE_CHECKING:
    from pxp_tui.blackboard.records import RunSummary

INTRO = (
    "For each instance the machine sends a prediction and an explanation; you answer RATIFY, REFUTE, "
    "REVISE or REJECT with your own, until both ratify, one rejects, or n messages. "
)
#: what enter does: start the form's run, or (with unfinished runs listed) resume the one selected
INTRO_START = "Press enter to start on the bundled demo with the offline machine (no key, no network)."
INTRO_RESUME = (
    f"Press enter to resume the unfinished run selected on the right, or {named_key(SUBMIT)} to start the run of the form."
)

CONTEXTS = [("all earlier sessions (the papers)", "all"), ("none", "none"), ("last 3 sessions", "last:3")]


def available_tasks() -> list[str]:
    """The tasks the start screen offers: every registered one (``pxp_tui.tasks.TASKS``)."""
    return list(TASKS)


def default_name() -> str:
    """The name the form offers: the one this OS user last started a run with (``expert`` in the settings file,
    ``app/shared/look.py``), else the login name."""
    kept = read_settings().get(EXPERT_SETTING)
    if isinstance(kept, str) and kept.strip():
        return kept
    try:
        return getpass.getuser() or "expert"
    except Exception:  # noqa: BLE001 - no user database (containers)
        return "expert"


#: the key of the settings file that keeps the expert's name between launches
EXPERT_SETTING = "expert"


class StartScreen(Screen):
    """Choose what to run; ``enter`` on Start (focused first) starts the demo at once, or, when there are unfinished
    runs, resumes the one selected in their list (focused once they are read); ``ctrl+s`` starts a new run."""

    CSS_PATH = "screen.tcss"
    # Start has the focus from the first frame. Textual's default focuses the first focusable widget, the
    # scrolling body, whose focus (then its loss) restyles everything in it: about 0.1 s before the first paint.
    AUTO_FOCUS = "#start-button"
    BINDINGS = [
        Binding(served_keys(SUBMIT), "start", "Start a new run", id="start.start"),
        Binding(served_keys(RESUME), "resume", "Resume run", id="start.resume"),
        Binding(served_keys(REVIEW), "app.open_review", "Review runs", id="start.review"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.tasks = available_tasks()
        self.fields = FormFields(id="start-grid")

    def compose(self) -> ComposeResult:
        apply_breakpoints(self)  # its layout from the first frame
        yield header()
        with VerticalScroll(id="start-body"):
            yield Static(INTRO + INTRO_START, id="start-intro")
            with Horizontal(id="start-columns"):
                with Vertical(id="start-form"):
                    with Vertical(id="start-fields"), Lazy(self.fields):  # mounted just after the first frame
                        yield Label("Task")
                        yield Select(
                            [(t.upper(), t) for t in self.tasks], value=self.tasks[0], allow_blank=False, id="start-task"
                        )
                        yield Label("Dataset")
                        yield Select([("bundled demo", "")], value="", allow_blank=False, id="start-dataset")
                        yield Label("Instances")
                        with Horizontal(id="start-instances-row"):
                            yield Select(
                                form_help.instance_choices(None), value=form_help.ALL, allow_blank=False, id="start-instances"
                            )
                            yield Input("3", id="start-limit", type="integer", disabled=True, tooltip="N")
                        yield Label("Machine")
                        yield Input(DEFAULTS.model, id="start-model", placeholder="offline, gpt-4o-mini, ollama/llava, ...")
                        yield Label("Checker")
                        yield Input("", id="start-checker", placeholder="the machine's model (offline: TF-IDF)")
                        yield Label("Human")
                        yield Select(
                            [
                                (kind.label, kind.value) for kind in HumanKind if kind is not HumanKind.MODEL
                            ],  # the live expert first; a second model: `pxp run --human model:...`
                            value=HumanKind.LIVE.value,
                            allow_blank=False,
                            id="start-human",
                        )
                        yield Label("Your name")
                        yield Input(default_name(), id="start-name")
                        yield Label("n, k")
                        with Horizontal(id="start-nk"):
                            yield Input(str(DEFAULTS.n), id="start-n", type="integer", tooltip="messages per session at most")
                            yield Input(str(DEFAULTS.k), id="start-k", type="integer", tooltip="REJECT allowed after message k")
                        yield Label("Context")
                        yield Select(CONTEXTS, value=DEFAULTS.context, allow_blank=False, id="start-context")
                        yield Label("Learn gate")
                        yield Checkbox("keep a session only if val accuracy holds", DEFAULTS.learn_gate, id="start-learn-gate")
                    yield Static(form_help.help_line(None), id="start-help")
                    yield Static("", id="start-error")
                    yield Button("Start (enter)", id="start-button", variant="primary")
                with Vertical(id="start-runs"):
                    yield OptionList(Option(Content.styled("…", "$text-muted"), disabled=True), id="start-unfinished")
                    yield Button(f"Resume (enter or {named_key(RESUME)})", id="resume-button")
                    yield Button(f"Review past runs ({named_key(REVIEW)})", id="review-button")
        yield FittingFooter()

    def takes_keys(self) -> bool:
        """Keys typed before the fields are mounted wait for them (``app/shared/keys_in_order.py``): a tab typed
        at the first frame moves through the fields, and what follows lands in the field it reaches."""
        return self.fields.mounted.is_set()

    def on_mount(self) -> None:
        self.sub_title = "new run"
        self.query_one("#start-form").border_title = "New run"
        self.query_one("#start-runs").border_title = "Unfinished runs"
        self.load_board()

    # -- what the blackboard holds -----------------------------------------------------------------
    @work(group="start-board", exclusive=True)
    async def load_board(self) -> None:
        await host(self.app).painted()  # opening the file imports sqlite-utils: not before the first frame
        try:
            datasets, runs = await host(self.app).read_board(_board_contents)
        except Exception as exc:
            from pxp_tui.blackboard import BlackboardError  # imported by now, in the reading thread

            if not isinstance(exc, BlackboardError):
                raise
            # not a blackboard, a newer schema...: say so, start nothing
            try:
                self.query_one("#start-error", Static).update(Content.styled(visible(str(exc)), "$error"))
                self.query_one("#start-button", Button).disabled = True
            except NoMatches:  # the form was taken down meanwhile (the expert quit at once): nobody to tell
                pass
            return
        self._datasets = datasets
        await self.fields.mounted.wait()
        try:
            self._show_board(runs)
        except NoMatches:  # the form was taken down meanwhile (the expert quit at once): nothing left to fill in
            return

    def _show_board(self, runs: list) -> None:
        """The blackboard's datasets in the form, its unfinished runs in the list (the latest highlighted)."""
        self._fill_datasets()
        unfinished = self.query_one("#start-unfinished", OptionList)
        unfinished.clear_options()
        # listed, not offered: a copy merged from another file (continued there), and a run another pxp is writing now
        # (another expert's, just started: resumed here it would be refused, and enter would not start the form's run)
        for run, skipped in runs:
            offered = _resumable(run)
            unfinished.add_option(Option(_run_label(run, skipped), id=str(run.run.id) if offered else None, disabled=not offered))
        resumable = [i for i, (run, _) in enumerate(runs) if _resumable(run)]
        for i in resumable:  # resumed, its model's first call waits for litellm no longer than its import
            host(self.app).expect_model(runs[i][0].run.config.model)
            host(self.app).expect_model(runs[i][0].run.config.checker)
        if resumable:
            unfinished.highlighted = resumable[0]  # the latest: enter or ctrl+r resumes it without selecting it first
            if self.focused is None or self.focused.id == "start-button":  # not while the expert fills the form
                unfinished.focus()
                self.query_one("#start-button", Button).label = f"Start a new run ({named_key(SUBMIT)})"
                self.query_one("#start-intro", Static).update(INTRO + INTRO_RESUME)
        else:
            unfinished.add_option(Option(Content.styled("none", "$text-muted"), disabled=True))

    def _fill_datasets(self) -> None:
        task = self.query_one("#start-task", Select).value
        options = [("bundled demo", "")] + [
            (Content(visible(f"{d['name']} ({d['instances']})", one_line=True)), d["name"])
            for d in getattr(self, "_datasets", [])
            if d["task"] == task
        ]
        self.query_one("#start-dataset", Select).set_options(options)
        self.query_one("#start-dataset", Select).value = ""
        self._fill_instances()

    def _fill_instances(self) -> None:
        name = self.query_one("#start-dataset", Select).value
        found = next((d for d in getattr(self, "_datasets", []) if d["name"] == name), None) if name else None
        choice = self.query_one("#start-instances", Select)
        before = choice.value
        options = form_help.instance_choices(found)
        choice.set_options(options)
        choice.value = before if any(value == before for _, value in options) else form_help.ALL

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id == "start-task":
            self._fill_datasets()
        elif event.select.id == "start-dataset":
            self._fill_instances()
        elif event.select.id == "start-instances":
            self.query_one("#start-limit", Input).disabled = event.value != form_help.FIRST
        elif event.select.id == "start-human":
            self.query_one("#start-name", Input).disabled = event.value != HumanKind.LIVE.value

    # -- starting ---------------------------------------------------------------------------------
    def form(self) -> dict[str, Any]:
        """The form as ``RunConfig`` fields; ValueError with a one-line reason, in the form's words, for a bad value."""
        values: dict[str, Any] = {}
        for field in ("n", "k"):
            values[field] = form_help.whole_number(field, self.query_one(f"#start-{field}", Input).value)
        human = self.query_one("#start-human", Select).value
        if human == HumanKind.LIVE.value and not self.query_one("#start-name", Input).value.strip():
            raise ValueError("Your name is empty: type the name to store with the run")
        chosen = str(self.query_one("#start-instances", Select).value)
        values.update(form_help.instances(chosen, self.query_one("#start-limit", Input).value))
        return {
            "task": self.query_one("#start-task", Select).value,
            "dataset": self.query_one("#start-dataset", Select).value or None,
            "model": self.query_one("#start-model", Input).value.strip() or DEFAULTS.model,
            "checker": self.query_one("#start-checker", Input).value.strip() or None,
            "human_kind": HumanKind(human),
            "expert": None if human != HumanKind.LIVE.value else self.query_one("#start-name", Input).value.strip(),
            "context": self.query_one("#start-context", Select).value,
            "learn_gate": self.query_one("#start-learn-gate", Checkbox).value,
            **values,
        }

    def action_start(self) -> None:
        self.start_run()

    def on_input_blurred(self, event: Input.Blurred) -> None:
        if event.input.id in ("start-model", "start-checker"):
            host(self.app).expect_model(event.value)  # litellm starts loading, unless it is the offline baseline

    @work(group="start", exclusive=True)
    async def start_run(self) -> None:
        error = self.query_one("#start-error", Static)
        await self.fields.mounted.wait()  # enter pressed at once starts with what the fields show
        try:
            fields = self.form()
        except ValueError as exc:
            error.update(Content.styled(visible(str(exc)), "$error"))
            return
        host(self.app).expect_model(fields["model"])
        host(self.app).expect_model(fields["checker"])
        error.update(Content.styled("preparing the run…", "$text-muted"))
        await host(self.app).loaded()
        await host(self.app).stop_engines()  # a run open underneath pauses: one writer at a time
        from pxp_tui.blackboard import BlackboardError
        from pxp_tui.config import RunConfig
        from pxp_tui.runs.create import create_run

        try:
            board = await host(self.app).blackboard()
            run_id = await asyncio.to_thread(create_run, board, RunConfig(**fields))
        except (ValueError, BlackboardError) as exc:
            error.update(Content.styled(visible(str(exc)), "$error"))
            return
        error.update("")
        host(self.app).open_run(run_id)
        if fields["expert"] is not None:
            await self._keep_name(fields["expert"])

    async def _keep_name(self, name: str) -> None:
        """Keep the expert's name for the next launch (the form offers it again)."""
        if read_settings().get(EXPERT_SETTING) == name:
            return
        try:
            await asyncio.to_thread(write_settings, **{EXPERT_SETTING: name})
        except OSError as exc:
            self.notify(f"Your name is not kept for next time: {exc}", severity="warning", markup=False)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "start-button":
            self.start_run()
        elif event.button.id == "resume-button":
            self.action_resume()
        elif event.button.id == "review-button":
            host(self.app).action_open_review()

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        """The focused field's line of help under the form."""
        field = next((n.id for n in event.widget.ancestors_with_self if n.id and n.id.startswith("start-")), None)
        if field is not None:
            self.query_one("#start-help", Static).update(form_help.help_line(field.removeprefix("start-")))

    def help_intro(self) -> str:
        """The help's text for this screen (``?``, ``f1``): what each field means."""
        return "The fields of a new run:\n" + form_help.explained()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.start_run()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option.id:
            host(self.app).open_run(int(event.option.id))

    def action_resume(self) -> None:
        runs = self.query_one("#start-unfinished", OptionList)
        option = runs.highlighted_option
        if option is None or not option.id:
            self.notify("no unfinished run selected", severity="warning")
            return
        host(self.app).open_run(int(option.id))


def _board_contents(board: Any) -> tuple[list[dict[str, Any]], list[tuple[RunSummary, int]]]:
    """The datasets, and the unfinished runs (newest first) with their counts, sessions planned and skipped."""
    from pxp_tui.blackboard import notes, review

    runs = [r for r in review.runs(board) if not r.run.finished]
    return board.datasets(), [(r, notes.skipped(board, r.run.id)) for r in sorted(runs, key=lambda r: -r.run.id)]


def progress_words(done: int, skipped: int, planned: int) -> str:
    """How far a run has got, in words: the sessions behind it (finished or skipped) of those planned."""
    behind = f"{done + skipped} of {planned} sessions"
    return f"{behind}, {skipped} skipped" if skipped else behind


def _resumable(summary: RunSummary) -> bool:
    """Whether enter may resume the run here: not a copy (continued in its own file), not written by a living pxp."""
    return summary.run.copy_of is None and str(summary.run.status) != "running"


def _run_label(summary: RunSummary, skipped: int) -> Content:
    run = summary.run
    origin = run.copy_of
    state = str(run.status) if origin is None else f"copy: continue it in {origin.get('file', 'its own file')}"
    if origin is None and state == "running":
        state = "running in another pxp"
    return Content.assemble(
        (f"run {run.id}", "bold"),
        "  ",  # apart from what the file says (shown as text, on one line)
        visible(f"{run.config.task.upper()}  {run.config.model}  {run.human}", one_line=True),
        "  ",
        f"{progress_words(summary.counts.sessions, skipped, summary.planned)}  {state}",  # muted: unreadable highlighted
    )
