"""Builders shared by the local-check tests: diffs, actions, finding lookups."""

from __future__ import annotations

import textwrap
from collections.abc import Collection
from pathlib import Path

from humangr.contracts import ActionContext, Finding, LayerID
from humangr.engine.checks import run_checks

FIXTURES = Path(__file__).parent / "fixtures"


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def new_file(path: str, source: str) -> str:
    """A git diff creating ``path`` with ``source`` (dedented)."""
    lines = textwrap.dedent(source).strip("\n").split("\n")
    body = "".join(f"+{ln}\n" for ln in lines)
    return (
        f"diff --git a/{path} b/{path}\nnew file mode 100644\nindex 0000000..1111111\n"
        f"--- /dev/null\n+++ b/{path}\n@@ -0,0 +1,{len(lines)} @@\n{body}"
    )


def modify(path: str, hunk: str, *, start: int = 1, heading: str = "") -> str:
    """A git diff changing ``path``: ``hunk`` lines start with ' ', '+' or '-' (dedented)."""
    lines = textwrap.dedent(hunk).strip("\n").split("\n")
    old = sum(1 for ln in lines if ln[:1] in " -")
    new = sum(1 for ln in lines if ln[:1] in " +")
    head = f" {heading}" if heading else ""
    body = "".join(f"{ln}\n" for ln in lines)
    return (
        f"diff --git a/{path} b/{path}\nindex 1111111..2222222 100644\n--- a/{path}\n"
        f"+++ b/{path}\n@@ -{start},{old} +{start},{new} @@{head}\n{body}"
    )


def action(
    diff: str | None, *, description: str = "Update the code.", files: list[str] | None = None
) -> ActionContext:
    return ActionContext(
        agent_id="dev",
        action_type="code_change",
        action_description=description,
        code_diff=diff,
        affected_files=files or [],
    )


def run(
    diff: str | None,
    layers: Collection[LayerID] | None = None,
    **kw: object,
) -> dict[LayerID, list[Finding]]:
    return run_checks(action(diff, **kw), layers)  # type: ignore[arg-type]


def rule(diff: str | None, layer: LayerID, name: str, **kw: object) -> list[Finding]:
    """The findings of one rule (``<layer>-R-<name>-<n>``)."""
    prefix = f"{layer.value}-R-{name}-"
    return [f for f in run(diff, [layer], **kw)[layer] if f.id.startswith(prefix)]


def where(findings: list[Finding]) -> list[tuple[str | None, int | None]]:
    return [(f.file, f.line) for f in findings]


def all_findings(result: dict[LayerID, list[Finding]]) -> list[Finding]:
    return [f for fs in result.values() for f in fs]
