"""One LLM run of one layer: prompt, structured completion with repairs, scored run."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping, Sequence

from humangr.contracts import ActionContext, Finding, LayerID, LayerRunResult, LayerVerdict
from humangr.engine.llm import LLMClient, LLMRequest, complete_structured, render_layer_request
from humangr.engine.metrics import Metrics
from humangr.engine.review import error_run, make_run

__all__ = ["layer_request", "llm_layer_run"]


def layer_request(
    layer_id: LayerID,
    action: ActionContext,
    *,
    prior_findings: Sequence[Finding] = (),
    rule_findings: Sequence[Finding] = (),
    tags: Mapping[str, str],
) -> LLMRequest:
    """The request of ``layer_id`` on ``action`` that every run of one task shares: rendered
    once per task, each run only adds its number to the tags (``llm_layer_run(request=...)``)."""
    return render_layer_request(
        layer_id,
        action,
        prior_findings=prior_findings,
        rule_findings=rule_findings,
        schema=LayerVerdict,
        tags={**tags, "layer": layer_id.value},
    )


async def llm_layer_run(
    llm: LLMClient,
    layer_id: LayerID,
    action: ActionContext,
    number: int,
    *,
    prior_findings: Sequence[Finding] = (),
    rule_findings: Sequence[Finding] = (),
    tags: Mapping[str, str],
    max_repairs: int = 2,
    metrics: Metrics | None = None,
    request: LLMRequest | None = None,
) -> LayerRunResult:
    """Run ``layer_id`` once on ``action``; a reply still invalid after the repairs, or an LLM
    failure, is an ``error`` run — never a clean one. ``rule_findings`` (the layer's findings of
    the local checks) are shown to the model as already found. The run's ``model`` is the one
    that answered (the last reply's, an invalid one's included). ``request``, when given, is
    ``layer_request`` of the same layer, action, findings and ``tags`` (rendered once for all
    the runs of a task); this run's number is added to its tags."""
    if request is None:
        request = layer_request(
            layer_id,
            action,
            prior_findings=prior_findings,
            rule_findings=rule_findings,
            tags=tags,
        )
    request = dataclasses.replace(request, tags={**request.tags, "run": str(number)})
    started = time.perf_counter()
    outcome = await complete_structured(llm, request, max_repairs=max_repairs, metrics=metrics)
    elapsed = (time.perf_counter() - started) * 1000
    if outcome.error is not None or not isinstance(outcome.value, LayerVerdict):
        return error_run(
            layer_id,
            number,
            outcome.error or "no structured verdict",
            usage=outcome.usage,
            elapsed_ms=elapsed,
            repairs=outcome.repairs,
            model=outcome.model or "",
        )
    return make_run(
        layer_id,
        number,
        outcome.value.findings,
        usage=outcome.usage,
        elapsed_ms=elapsed,
        repairs=outcome.repairs,
        model=outcome.model or "",
        tool=action.tool_call.name if action.tool_call is not None else None,
    )
