"""The expert's answer: a tag, their prediction and explanation, checked as typed, and the guard helper."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message as TextualMessage
from textual.widgets import Button, Input, Label, Static, TextArea

from pxp_tui.app.picture.widget import Picture
from pxp_tui.app.session import guards
from pxp_tui.app.session.widgets.answer_fields import ExplanationArea, LabelList, PredictionInput
from pxp_tui.app.session.widgets.guard_helper import GuardHelper
from pxp_tui.app.session.widgets.tag_choice import TagChoice
from pxp_tui.app.shared.browser import SUBMIT, named_key
from pxp_tui.app.shared.css import beside
from pxp_tui.common.instance import Instance
from pxp_tui.common.visible import visible
from pxp_tui.engine import Message
from pxp_tui.protocol import Tag, allowed_tags
from pxp_tui.tasks.base import Task


@dataclass(frozen=True)
class Answer:
    """What the expert is about to send."""

    tag: Tag | None
    prediction: str
    explanation: str
    guards: dict[str, bool] | None = None


def reject_reason(j: int, k: int) -> str:
    return f"after message {k} (now {j})"


class TagPicker(Vertical):
    """At the expert's turn: choose a tag (``1``-``4``), edit the prediction and explanation, send.

    The fields start from the expert's previous message in the session; at their first message
    (``j = 2``), from the machine's. RATIFY agrees with the machine: it sends the machine's prediction and
    explanation as the machine wrote them, whatever the fields hold (the screen asks first when they were
    edited), so that RATIFY is one key and a send.
    """

    DEFAULT_CSS = beside(__file__)
    BORDER_TITLE = "Your answer"
    keys_where = "your answer"  # where the help lists its keys
    BINDINGS = [
        Binding("g", "toggle_guards", "Guards", id="picker.guards"),
        # from an answer field back to the tag list, so that a 4 meant as REJECT is not typed in a field
        Binding("escape", "to_tags", "Back to the tags", id="picker.tags", show=False),
    ]

    @dataclass
    class Send(TextualMessage):
        """The expert asked to send ``answer`` (the screen checks it against the protocol)."""

        answer: Answer

    @dataclass
    class Edited(TextualMessage):
        """The expert changed their answer (a tag, a field): ``answer`` holds the fields as typed (a draft)."""

        answer: Answer

    def __init__(self, prediction_label: str = "Prediction", *, id: str | None = None) -> None:
        # disabled from the start (no turn yet): disabling it once mounted restyled all of it, before the first message
        super().__init__(id=id, disabled=True)
        self.prediction_label = prediction_label
        self.pxp_task: Task | None = None
        self.instance: Any = None
        self.j, self.k = 0, 1
        self.machine: Message | None = None
        self.own: Message | None = None
        self._draft_timer: Any = None
        self._guard_timer: Any = None
        self.guards = guards.Guards()  # the expert's AGREE override, while its texts stay the same
        self.prefilled = ("", "")  # the fields as the turn opened (the prediction and the explanation as shown)

    def compose(self) -> ComposeResult:
        yield Static("", id="picker-head")
        yield TagChoice(id="picker-tags")
        yield Static(self.prediction_label, id="prediction-check", classes="field-label")
        yield PredictionInput(id="answer-prediction", placeholder=self.prediction_label.lower())
        yield LabelList(id="answer-labels")
        yield Picture(caption="your reactants", id="answer-picture")
        yield Label("Explanation", classes="field-label")
        yield ExplanationArea(id="answer-explanation")
        yield GuardHelper(id="picker-guards")
        with Horizontal(id="picker-actions"):
            yield Button(f"Send ({named_key(SUBMIT)})", id="picker-send", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#answer-picture").display = False
        self.wait("waiting for the machine")

    def set_prediction_label(self, label: str) -> None:
        self.prediction_label = label
        self.query_one("#answer-prediction", Input).placeholder = label.lower()
        self._check_prediction(self.query_one("#answer-prediction", Input).value)

    # -- turns ------------------------------------------------------------------------------------
    def wait(self, note: str) -> None:
        """Not the expert's turn: show why, and take no input (its keys go on to the screen)."""
        self.query_one("#picker-head", Static).update(Content.styled(visible(note), "$text-muted"))
        self.disabled = True

    def clear(self) -> None:
        """Forget the last turn's answer (a new session): no tag chosen, empty fields."""
        self.machine = self.own = None
        self.guards.clear()
        self.query_one(TagChoice).select(None)
        with self.prevent(Input.Changed, TextArea.Changed):
            self.query_one("#answer-prediction", Input).value = ""
            self.query_one("#answer-explanation", TextArea).text = ""
        self._check_prediction("")

    def prepare(self, task: Task, instance: Instance, j: int, n: int, k: int, machine: Message, own: Message | None) -> None:
        """Open the expert's turn at message ``j``, replying to ``machine``; ``own`` is their message at ``j-2``."""
        self.pxp_task, self.instance, self.j, self.k, self.machine, self.own = task, instance, j, k, machine, own
        start = own or machine
        self.disabled = False
        where = "" if self.screen.has_class("-narrow") else f" · message {j} of {n}"  # narrow: in the header
        self.query_one("#picker-head", Static).update(
            Content.assemble(("Your turn", "bold $accent"), f"{where} · 1-4 tag · {named_key(SUBMIT)} send")
        )
        choice = self.query_one(TagChoice)
        choice.reset()
        choice.allow_reject(Tag.REJECT in allowed_tags(j, k), reject_reason(j, k))
        self.query_one(LabelList).set_labels(task.prediction_choices, start.prediction)
        with self.prevent(Input.Changed, TextArea.Changed):  # shown as text (a model's escapes are data)
            self.query_one("#answer-prediction", Input).value = visible(start.prediction, one_line=True)
            self.query_one(ExplanationArea).prefill(visible(start.explanation))
        self.prefilled = (visible(start.prediction, one_line=True), visible(start.explanation))
        self._check_prediction(start.prediction)
        self.guards.clear()
        self._refresh_guards()
        self.screen.set_focus(choice)  # now, not at the next idle (``focus()``): in the same frame as the rest

    def restore(self, answer: Answer, *, draft: bool = False) -> None:
        """Put back an answer that was sent but never stored (the write failed, or was cancelled), or (``draft``)
        the answer the expert was typing when the app closed: the tag and the texts as the expert left them, for
        sending again. Call after :meth:`prepare` of the same turn."""
        if answer.tag is not None:
            self.query_one(TagChoice).select(answer.tag)
        self.query_one(LabelList).show_for(answer.prediction)
        with self.prevent(Input.Changed, TextArea.Changed):
            self.query_one("#answer-prediction", Input).value = answer.prediction
            self.query_one(ExplanationArea).prefill(answer.explanation)
        if draft:  # the expert's own words: a focus does not select them all, for typing to replace
            self.query_one(ExplanationArea).fresh = False
        self._check_prediction(answer.prediction)
        self._refresh_guards()

    def answer(self) -> Answer:
        """What would be sent, with the guards of exactly these texts (worked out again now): for RATIFY, the
        machine's prediction and explanation; else the fields'."""
        helper = self.query_one(GuardHelper)
        tag = self.query_one(TagChoice).selected
        if tag is Tag.RATIFY and self.machine is not None:
            prediction, explanation = self.machine.prediction, self.machine.explanation
        else:
            prediction, explanation = self._prediction(), self._explanation()
        values = self._guard_values(prediction, explanation)
        return Answer(tag, prediction, explanation, guards.as_columns(values) if helper.in_use and values is not None else None)

    def edited(self) -> bool:
        """Whether the expert changed a field since the turn opened (typed, pasted, picked a label, a draft put back)."""
        shown = (self.query_one("#answer-prediction", Input).value, self.query_one("#answer-explanation", TextArea).text)
        return shown != self.prefilled

    def doubts(self, answer: Answer) -> list[str]:
        """Why ``answer`` deserves a question before it is sent (REVISE unchanged, a tag its guards contradict)."""
        texts = self._guard_texts(answer.prediction, answer.explanation)
        if answer.tag is None or texts is None or self.pxp_task is None:
            return []
        unchanged = not guards.computed(self.pxp_task, texts)["changed"] and not texts.first_reply
        recorded = {name: bool(answer.guards[f"guard_{name}"]) for name in guards.NAMES} if answer.guards else None
        return guards.doubts(answer.tag, self.j, self.k, unchanged, recorded)

    def typed(self) -> Answer:
        """The answer as the fields show it (what a draft keeps: the prediction as typed, not the label it names)."""
        return Answer(
            self.query_one(TagChoice).selected,
            self.query_one("#answer-prediction", Input).value,
            self.query_one("#answer-explanation", TextArea).text,
        )

    def _edited(self) -> None:
        if not self.disabled:
            self.post_message(self.Edited(self.typed()))

    def request_send(self) -> None:
        self.post_message(self.Send(self.answer()))

    # -- checking as typed ------------------------------------------------------------------------
    def _prediction(self) -> str:
        """The prediction as it will be sent: a label picked from the task's labels ("thor" means Pneumothorax)."""
        typed = self._as_prefilled(self.query_one("#answer-prediction", Input).value, "prediction", one_line=True)
        labels = self.query_one(LabelList)
        return (labels.only or typed) if labels.labels else typed

    def _explanation(self) -> str:
        return self._as_prefilled(self.query_one("#answer-explanation", TextArea).text, "explanation")

    def _as_prefilled(self, text: str, field: str, *, one_line: bool = False) -> str:
        """``text`` as it will be sent: the prefilled message's own text while the field still shows it as prefilled
        (escapes the field shows for a model's control characters are how it was shown, not an edit)."""
        start = self.own or self.machine
        if start is not None:
            exact = str(getattr(start, field))
            if text == visible(exact, one_line=one_line):
                return exact
        return text

    def _guard_texts(self, prediction: str | None = None, explanation: str | None = None) -> guards.GuardTexts | None:
        """What the guards compare, with ``prediction`` and ``explanation`` as sent (default: the fields')."""
        if self.machine is None:
            return None
        prediction = self._prediction() if prediction is None else prediction
        explanation = self._explanation() if explanation is None else explanation
        return guards.GuardTexts.of(self.j, self.machine, self.own, prediction, explanation)

    def _guard_values(self, prediction: str | None = None, explanation: str | None = None) -> dict[str, bool] | None:
        texts = self._guard_texts(prediction, explanation)
        if texts is None or self.pxp_task is None:
            return None
        return self.guards.values(self.pxp_task, texts)

    def _refresh_guards(self) -> None:
        """The guard helper's answers for the texts as they are now (MATCH, AGREE suggested or the expert's, Changed)."""
        texts, values = self._guard_texts(), self._guard_values()
        if texts is None or values is None:
            return
        overridden = self.guards.overridden("agree", texts)
        self.query_one(GuardHelper).prepare(
            self.j, self.k, values["match"], values["agree"], values["changed"], overridden=overridden
        )

    def _check_prediction(self, value: str) -> None:
        """The field's label, with the task's verdict on what is typed (for DRUG: valid SMILES?)."""
        problem = self.pxp_task.validate_prediction(value) if self.pxp_task is not None else None
        if problem:
            verdict = Content.styled(f"✗ {visible(problem, one_line=True)}", "$error")
        else:
            verdict = Content.styled("✓ well formed", "$success") if value.strip() else Content("")
        self.query_one("#prediction-check", Static).update(Content.assemble(self.prediction_label, "  ", verdict))
        self._schedule_draft(None if problem else value)

    def _schedule_draft(self, value: str | None) -> None:
        if self._draft_timer is not None:
            self._draft_timer.stop()
        self._draft_timer = self.set_timer(0.3, lambda: self._draw_draft(value))

    def _draw_draft(self, value: str | None) -> None:
        picture = self.query_one("#answer-picture", Picture)
        task, instance = self.pxp_task, self.instance
        if task is None or instance is None or not task.draws_predictions or not value or not value.strip():
            picture.display = False
            return
        picture.display = self.machine is None or not task.match(value, self.machine.prediction)
        if picture.display:
            picture.show(lambda size: task.draw_prediction(instance, value, size))

    def on_input_changed(self, event: Input.Changed) -> None:
        self.query_one(LabelList).show_for(event.value)
        self._check_prediction(event.value)
        self._refresh_guards()
        self._edited()

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        # after a pause in typing: the checker reads the whole explanation (worked out again at send anyway)
        if self._guard_timer is not None:
            self._guard_timer.stop()
        self._guard_timer = self.set_timer(0.15, self._refresh_guards)
        self._edited()

    # -- events -----------------------------------------------------------------------------------
    def on_guard_helper_overridden(self, event: GuardHelper.Overridden) -> None:
        event.stop()
        texts = self._guard_texts()
        if texts is not None and event.name in guards.OVERRIDABLE:
            self.guards.override(event.name, event.value, texts)
        self._refresh_guards()

    def on_guard_helper_proposed(self, event: GuardHelper.Proposed) -> None:
        event.stop()
        self.query_one(TagChoice).select(event.tag)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "picker-send":
            event.stop()
            self.request_send()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        picked = self.query_one(LabelList).highlighted_label
        if picked is not None:
            self._pick(picked)
        self.query_one(ExplanationArea).focus()

    def on_prediction_input_step(self, event: PredictionInput.Step) -> None:
        event.stop()
        self.query_one(LabelList).move(event.step)

    def on_label_list_typed(self, event: LabelList.Typed) -> None:
        event.stop()
        field = self.query_one("#answer-prediction", PredictionInput)
        if field.disabled:
            return
        if not field.has_focus:
            field.focus_typing()
        field.insert_text_at_cursor(event.character)

    def on_label_list_picked(self, event: LabelList.Picked) -> None:
        event.stop()
        self._pick(event.label)
        self.query_one(ExplanationArea).focus()

    def _pick(self, label: str) -> None:
        self.query_one("#answer-prediction", Input).value = label

    def on_tag_choice_chosen(self, event: TagChoice.Chosen) -> None:
        """REFUTE and REVISE come with the expert's own answer: the prediction field takes the focus."""
        event.stop()
        self._edited()
        if event.tag in (Tag.REFUTE, Tag.REVISE):
            self.query_one("#answer-prediction", Input).focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "to_tags":  # only from an answer field
            focused = self.screen.focused
            return focused is not None and focused is not self.query_one(TagChoice) and self in focused.ancestors
        return True

    def action_to_tags(self) -> None:
        self.query_one(TagChoice).focus()

    def action_toggle_guards(self) -> None:
        helper = self.query_one(GuardHelper)
        helper.collapsed = not helper.collapsed
