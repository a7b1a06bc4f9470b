"""The commands Python code runs once the taint engine resolved its names and folded its
constant text (``sinks_resolved``), judged by the shell rules like the literal commands the
code readers see: ``getattr(os, "sys" + "tem")("rm -rf ~")``, ``os.system("~ fr- mr"[::-1])``
or a helper that wraps ``os.system`` get the verdict ``os.system("rm -rf ~")`` gets, whether
the code is run (``run_python``) or written to a file. Pure, bounded, never raises."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from humangr.contracts import Severity

from ..base import CheckInput, Hit
from ..sinks_resolved import RESOLVED
from .shell_rules import Context, Flag

__all__ = ["resolved_hits"]

_MAX_COMMANDS = 64
_SEVERITIES = list(Severity)


def resolved_hits(
    ctx: CheckInput, base: Context, judge: Callable[[str, Context], list[Flag]]
) -> Iterator[Hit]:
    """The shell rules' flags of each command the action's Python code resolves to, on the
    line (and so the argument) of the call that runs it; one hit per line (``judge``: the
    shell check's, handed in so the modules import no cycle)."""
    seen: dict[tuple[str | None, int], set[str]] = {}
    judged = 0
    for ev in ctx.taint().events:
        if ev.check != RESOLVED or judged >= _MAX_COMMANDS:
            continue
        line = ev.frag.node_line(ev.node)
        if line is None:
            continue
        judged += 1
        flags: list[Flag] = judge(ev.detail, Context(base.workspace, base.allowed_hosts))
        titles = seen.setdefault((ev.file.path, line), set())
        flags = [f for f in flags if f.title not in titles and f.severity >= Severity.MEDIUM]
        if not flags:
            continue
        titles.update(f.title for f in flags)
        flags.sort(key=lambda f: -_SEVERITIES.index(f.severity))
        top = flags[0]
        detail = f"{top.detail} The code runs `{ev.detail[:200]}` once its names are resolved."
        yield Hit(top.severity, top.title, detail, top.fix, file=ev.file.path, line=line)
