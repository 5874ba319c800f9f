"""The task interface: what a domain supplies (prompt assembly, parsing, MATCH, demo data, rendering)."""

from __future__ import annotations

import hashlib
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from pxp_tui.common.instance import Instance
from pxp_tui.engine import Message, SessionRecord, Turn
from pxp_tui.engine.types import distribution_of
from pxp_tui.tasks.pictures import Drawing, Surface

if TYPE_CHECKING:
    from pxp_tui.tasks.distribution import ReadDistribution

__all__ = ["DatasetRow", "Task"]

#: who the other agent is, as an agent reads its messages: the human (or the proxy) for the machine; in a
#: machine-machine session (EVINCE's debate) both agents read "The other expert"
HUMAN, OTHER_EXPERT = "Human", "The other expert"
#: how the closing instruction of the prompt opens after the first message (:meth:`Task.ask_content`): facing
#: the human (an expert or the proxy), and facing another machine
ASK_AGAIN, ASK_AGAIN_OTHER = "Considering the human's reply", "Considering the other agent's reply"
_ASKS_AGAIN = re.compile("\n\n(?:" + "|".join(map(re.escape, (ASK_AGAIN, ASK_AGAIN_OTHER))) + ")")
#: the opening of the other agent's message as an agent reads it (:meth:`Task.reply_content`), with its tag
HUMAN_REPLY = re.compile(rf"^(?:{HUMAN}|{OTHER_EXPERT}) \((?P<tag>[A-Z]+)\)\.", re.M)


def _distribution_line(message: Message) -> str:
    """``\nDistribution: a: 0.6, b: 0.4`` for a message that states a distribution (JSON or a mapping), else ''."""
    value = distribution_of(message.meta)
    if not value:
        return ""
    return "\nDistribution: " + ", ".join(f"{label}: {float(p):.2f}" for label, p in value.items())


def before_ask(text: str) -> str:
    """A prompt message's text without the closing instruction the machine agent appends to it.

    The offline baselines read their prompt as an LLM would, and the instruction is not part of the exchange.
    """
    return _ASKS_AGAIN.split(text, 1)[0]


@dataclass(frozen=True)
class DatasetRow:
    """One instance as read from a file, before it is stored."""

    key: str
    split: str
    input: str
    reference_prediction: str
    reference_explanation: str
    image: bytes | None = None
    image_mime: str = "image/png"
    meta: Mapping[str, Any] = field(default_factory=dict)
    #: an image left on disk until it is stored (an import holds one image at a time), with its sha256
    image_file: Path | None = None
    image_sha256: str = ""
    #: how :attr:`image_file`'s bytes become the picture stored (a DICOM file's PNG); None: stored as they are
    image_convert: Callable[[bytes], bytes] | None = None

    @property
    def has_image(self) -> bool:
        return self.image is not None or self.image_file is not None

    def image_bytes(self) -> bytes | None:
        """The image to store: held, or read from :attr:`image_file` (ValueError if it changed since it was checked)
        and converted by :attr:`image_convert`."""
        if self.image is not None or self.image_file is None:
            return self.image
        try:
            data = self.image_file.read_bytes()
        except OSError as exc:
            raise ValueError(f"{self.image_file} cannot be read any more ({exc.strerror or exc}); nothing imported") from None
        if hashlib.sha256(data).hexdigest() != self.image_sha256:
            raise ValueError(f"{self.image_file} changed during the import; nothing imported")
        return data if self.image_convert is None else self.image_convert(data)

    def stored_sha256(self, data: bytes) -> str:
        """The sha256 of ``data``, the picture :meth:`image_bytes` gave (known already unless it was converted)."""
        if self.image_sha256 and self.image_convert is None:
            return self.image_sha256
        return hashlib.sha256(data).hexdigest()


class Task(ABC):
    """A domain. New domains implement this interface in one module and register in ``pxp_tui.tasks``."""

    name: ClassVar[str]
    title: ClassVar[str]
    #: what the prediction is called in prompts ("Prediction", "Pathway")
    prediction_label: ClassVar[str] = "Prediction"
    #: the predictions there are, where they are a closed set (RAD's five conditions): picked, not typed
    prediction_choices: ClassVar[tuple[str, ...]] = ()
    #: what explanations are called when the checker compares them ("reports", "pathways")
    explanation_noun: ClassVar[str] = "explanations"
    #: generation settings from the papers (overridable per run)
    generation: ClassVar[Mapping[str, Any]] = {}
    #: modules the task imports lazily that are slow to import (its drawing code): the app loads them
    #: in a thread after its first paint, so that the session screen never waits on them
    slow_modules: ClassVar[tuple[str, ...]] = ()
    #: the labels in their order, for an ordered ground metric of the Wasserstein distance between
    #: distributions (None: the labels have no order; see :mod:`pxp_tui.protocol.information`)
    label_order: ClassVar[tuple[str, ...] | None] = None
    #: the task's choice of ground metric: ``discrete`` (any two labels 1 apart: the total variation) or
    #: ``ordered`` (labels at positions 0, 1, ... of :attr:`label_order`); ``--ground-metric`` overrides it
    ground_metric: ClassVar[str] = "discrete"
    #: a distribution's labels are :meth:`normalise`'s form of a prediction (DRUG: canonical SMILES), so the
    #: debate evaluation compares them with the reference's :meth:`reference_key`; False: with the reference as
    #: written, ASCII case and surrounding spaces aside
    keyed_references: ClassVar[bool] = False

    @property
    def history_first(self) -> bool:
        """Whether a prompt puts the earlier exchanges first, as texts (no instance, no picture), then the system prompt
        and the request (the reference scripts' layout, ``--prompts reference``); False: pxp's, the system prompt
        first and each session opening with its instance. :meth:`session_messages` then gives the exchange only."""
        return False

    @property
    def offline_name(self) -> str:
        """The offline baseline of this task as litellm knows it (``pxp-offline/<offline_name>``): the task's name;
        a variant with other prompts has its own (:mod:`pxp_tui.tasks.variants`)."""
        return self.name

    def variant(self, prompts: str = "pxp", rad_question: str = "disease", shots: Sequence[tuple[str, str, str]] = ()) -> Task:
        """This task worded as ``prompts`` says (``pxp``, ``paper``, ``reference``), RAD asked ``rad_question``, with
        DRUG's few-shot ``shots`` (target, reactants, explanation); the task itself when all are pxp's."""
        if prompts != "pxp":
            raise ValueError(f"--prompts {prompts}: the papers word only RAD and DRUG, not {self.name}")
        return self

    def reference(self, instance: Instance) -> tuple[str, str]:
        """The dataset's answer for ``instance`` as the proxy gives it: (prediction, explanation)."""
        return instance.reference_prediction, instance.reference_explanation

    # -- prompt assembly (ASSEMBLE_PROMPT) -------------------------------------------------------
    @abstractmethod
    def system_prompt(self) -> str: ...

    @abstractmethod
    def instance_content(self, instance: Instance, *, in_context: bool = False) -> str | list[dict[str, Any]]:
        """The user content presenting ``instance`` (text, and an image part where the task has one)."""

    def reply_content(self, message: Message, other: str = HUMAN) -> str:
        """How the other agent's message reads to an agent (UPDATE_CONTEXT): the human's to the machine, by
        default; with its distribution when it gave one (EVINCE's measures)."""
        return (
            f"{other} ({message.tag.value}).\n{self.prediction_label}: {message.prediction}\nExplanation: {message.explanation}"
            + _distribution_line(message)
        )

    def answer_content(self, message: Message) -> str:
        """How an agent's own earlier message reads in its context."""
        return f"{self.prediction_label}: {message.prediction}\nExplanation: {message.explanation}" + _distribution_line(message)

    def ask_content(self, turn: Turn, other: str = HUMAN) -> str:
        """The closing instruction of the prompt at message ``turn.j``, to an agent facing ``other``."""
        if turn.j == 1:
            return f"Give your {self.prediction_label.lower()} and explanation, in the format above."
        return (
            f"{ASK_AGAIN_OTHER if other == OTHER_EXPERT else ASK_AGAIN}, give your {self.prediction_label.lower()} and explanation again, "
            "revised if the reply convinces you, in the format above."
        )

    def session_messages(
        self, instance: Instance, messages: Sequence[Message], *, in_context: bool, seat: str = "machine", other: str = HUMAN
    ) -> list[dict]:
        """One session rendered as chat messages from ``seat`` (the machine's, or the human's for a model
        sitting there): the instance, then the exchange, the seat's own messages as the assistant's."""
        chat: list[dict[str, Any]] = [{"role": "user", "content": self.instance_content(instance, in_context=in_context)}]
        for message in messages:
            if message.sender.value == seat:
                chat.append({"role": "assistant", "content": self.answer_content(message)})
            else:
                chat.append({"role": "user", "content": self.reply_content(message, other)})
        return chat

    def context_messages(self, record: SessionRecord, seat: str = "machine", other: str = HUMAN) -> list[dict]:
        """An earlier session, as carried in an agent's context (the machine's, by default)."""
        return self.session_messages(record.instance, record.messages, in_context=True, seat=seat, other=other)

    # -- distributions (EVINCE) -------------------------------------------------------------------
    def distribution_instruction(self, k: int) -> str | None:
        """What the system prompt adds to ask for a top-``k`` distribution with each answer (None: the task
        has no distributions)."""
        return None

    def read_distribution(self, text: str, prediction: str, instance: Instance | None, k: int) -> ReadDistribution | None:
        """The distribution in a reply about ``prediction`` (marked ``missing``, and empty, when none is readable);
        None if the task has no distributions."""
        return None

    # -- reading replies, comparing predictions ----------------------------------------------------
    @abstractmethod
    def parse(self, text: str, instance: Instance | None = None) -> tuple[str, str]:
        """(prediction, explanation) from a model's reply about ``instance``; :class:`ParseError` if none."""

    @abstractmethod
    def normalise(self, prediction: str) -> str:
        """The canonical form of a prediction (what MATCH compares)."""

    def match(self, a: str, b: str) -> bool:
        """MATCH: the two predictions are the same."""
        return self.normalise(a) == self.normalise(b)

    def reference_key(self, reference: str) -> str | None:
        """The reference as the debate evaluation compares a distribution's labels with it: :meth:`normalise`'s
        form where :attr:`keyed_references`, else None (compared as written)."""
        return self.normalise(reference) if self.keyed_references else None

    def validate_prediction(self, prediction: str) -> str | None:
        """A message for the expert if ``prediction`` is not well formed, else None."""
        return None

    # -- data and display --------------------------------------------------------------------------
    @abstractmethod
    def demo_rows(self) -> list[DatasetRow]:
        """The bundled demo dataset."""

    def read_dataset(
        self, path: Path, *, images_dir: Path | None = None, encoding: str = "utf-8", progress: Any = None
    ) -> list[DatasetRow]:
        """The instances in a dataset file; :class:`pxp_tui.tasks.csvdata.DatasetProblemsError` lists every problem.

        ``progress`` is a :data:`pxp_tui.tasks.csvdata.ImportProgress` callback, told how far the check has got.
        """
        raise NotImplementedError(f"the {self.name} task cannot read dataset files")

    def warm_up(self) -> None:  # noqa: B027 - optional: most tasks have nothing to start
        """Start what the task's work needs (a worker process, say), so that its first use does not wait:
        called by the app off the UI loop, after its first paint."""

    def describe(self, instance: Instance) -> dict[str, str]:
        """Metadata shown beside the instance (name, formula, ...)."""
        return {"name": instance.name}

    def offline_answer(self, messages: list[dict[str, Any]]) -> str:
        """The offline baseline's reply to a prompt (see ``pxp_tui.agents.offline``)."""
        raise NotImplementedError(f"the {self.name} task has no offline baseline")

    def offline_second_answer(self, messages: list[dict[str, Any]]) -> str:
        """The offline model in the human's seat of a machine-machine run (``--human model:offline``), registered
        as ``pxp-offline/<name>-second``: the baseline itself unless the task has a genuinely different one."""
        return self.offline_answer(messages)

    # -- pictures (slow: callers run these off the UI loop) ----------------------------------------
    # Each is a pure function of its arguments (the surface included): a caller may cache the result
    # per (task, instance, prediction, surface) and draw the next instance's pictures ahead of time.
    def draw_instance(self, instance: Instance, surface: Surface | tuple[int, int]) -> Drawing:
        """A picture of ``instance`` for ``surface`` (image bytes in any Pillow-readable format, or characters), or None.

        A tuple is a size in pixels (an image file). The default is the instance's own image, which the
        terminal scales to the surface.
        """
        return instance.image

    def draw_prediction(self, instance: Instance, prediction: str, surface: Surface | tuple[int, int]) -> Drawing:
        """A picture of ``prediction`` for ``instance`` (DRUG: the reaction), or None if the task draws none."""
        return None

    def original_picture(self, instance: Instance) -> bytes | None:
        """The instance's picture as stored (an X-ray's own file): what is zoomed into, and opened outside.

        None when the task draws its pictures (a molecule): they are drawn again at the size wanted.
        """
        return instance.image

    @property
    def draws_predictions(self) -> bool:
        """Whether the task draws predictions at all (it overrides :meth:`draw_prediction`)."""
        return type(self).draw_prediction is not Task.draw_prediction
