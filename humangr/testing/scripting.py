"""``LayerScripting``: the test kit's small vocabulary for what each layer answers.

Every rule becomes ``ScriptedLLM`` lines in the kit's ``ScriptBook``; the real consensus and
gate then decide. A critical finding is the layer's full veto power (strong on HL4, HL6, HL7);
a high finding is a medium veto on any layer with at least medium power.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from humangr.contracts import LayerID, VetoLevel
from humangr.engine.errors import ConfigError
from humangr.engine.review import LAYERS

from .replies import ReplyLike, ScriptBook, finding, match_of, to_reply

__all__ = ["LayerScripting"]


class LayerScripting:
    """Script the layers of an engine whose LLM is ``book`` and whose layers are ``layers``."""

    def __init__(self, book: ScriptBook | None, layers: tuple[LayerID, ...]) -> None:
        self.llm = book
        """The scripted LLM (``None`` when running on local checks only or your own client)."""
        self._layers = layers

    def script(
        self,
        layer: LayerID | str | None = None,
        reply: ReplyLike | None = None,
        *,
        run: int | None = None,
        delay_ms: float = 0,
    ) -> None:
        """From now on every run of ``layer`` (every layer with ``None``; one run with ``run``)
        answers ``reply``: a ``finding(...)``, a list of them, ``clean()``, ``unparseable()``
        or ``llm_error()``. A more specific rule wins. Script before submitting."""
        book = self._book()
        if layer is not None:
            self._layer(layer)
        book.set(
            match_of(layer, run), [to_reply(reply) if reply is not None else to_reply([])], delay_ms
        )

    def script_lines(self, lines: Iterable[Mapping[str, Any]]) -> None:
        """Add raw script lines (the README's "LLM scripts" format), e.g. a reply sequence."""
        self._book().add_raw(lines)

    def approve_all(self) -> None:
        """Forget every rule: every layer answers a clean verdict (local checks still run)."""
        self._book().reset()

    def reject(
        self,
        layer: LayerID | str = LayerID.HL4,
        title: str = "Rejected by the test script",
        **where: Any,
    ) -> None:
        """``layer`` reports a critical finding: a strong veto, so the action is rejected.
        Only HL4, HL6 and HL7 hold a strong veto. ``where``: ``file``, ``line``, ``description``."""
        lid = self._layer(layer, need=VetoLevel.STRONG, to="reject an action on its own")
        self.script(lid, finding("critical", title, **where))

    def needs_review(
        self,
        layer: LayerID | str = LayerID.HL2,
        title: str = "A human should look at this",
        **where: Any,
    ) -> None:
        """``layer`` reports a high finding: a medium veto, so (alone) a human must decide."""
        lid = self._layer(layer, need=VetoLevel.MEDIUM, to="ask for a human review")
        self.script(lid, finding("high", title, **where))

    def _book(self) -> ScriptBook:
        if self.llm is None:
            raise ConfigError(
                "this engine has no scripted LLM (llm=None runs local checks only, or you gave "
                "your own client); start it with humangr() to script layer replies"
            )
        return self.llm

    def _layer(
        self, layer: LayerID | str, *, need: VetoLevel = VetoLevel.NONE, to: str = ""
    ) -> LayerID:
        lid = LayerID(match_of(layer, None)["layer"])
        if lid not in self._layers:
            raise ConfigError(
                f"{lid} does not run in this engine (layers: {', '.join(self._layers)})"
            )
        power = LAYERS[lid].veto_power
        if power < need:
            able = ", ".join(s.id for s in LAYERS.values() if s.veto_power >= need)
            raise ConfigError(f"{lid}'s veto power is {power}: it cannot {to}; use {able}")
        return lid
