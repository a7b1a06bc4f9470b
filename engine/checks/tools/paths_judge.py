"""How severe one path of a file tool call is: the catalogue's rule for it, the workspace it
may leave (changes anywhere outside it, reads of files in a home folder outside it: HIGH), and
the folders whose deletion is irreversible (``/``, a home, the workspace and its parents, a
top-level folder: CRITICAL).

Every reading of the path counts (as written, with NUL bytes cut or dropped, look-alike
characters folded, a glob's instances) and the worst wins, so a spelling cannot hide a path.
A relative path with no workspace is also read where it may land: ``../../etc/passwd`` as
``/etc/passwd``, ``.bashrc`` as the home's (at most HIGH: the working folder is unknown).
"""

from __future__ import annotations

from dataclasses import dataclass

from humangr.contracts import Severity

from ..base import is_test_path, snippet
from .egress_files import backup_file
from .paths_args import Op, Target
from .paths_catalogue import CATALOGUE
from .paths_glob import glob_root, instances
from .paths_norm import Place, inside, resolve, spellings
from .paths_own_home import own_home_file
from .paths_reports import report_out
from .paths_rule import Rule, word_set
from .scratch_places import scratch_file

__all__ = ["Verdict", "Workspace", "judge", "workspace_place"]

C = Severity.CRITICAL
H = Severity.HIGH

_NOUN: dict[Op, str] = {
    "write": "write to",
    "edit": "edit of",
    "delete": "delete of",
    "read": "read of",
    "search": "search of",
    "list": "listing of",
    "move": "move of",
    "copy": "copy of",
}
_CHANGES = frozenset({"write", "edit", "delete", "move"})
_READS = frozenset({"read", "search", "copy", "move"})
_PRIVATE = "another project's or person's files are not the agent's to read"
_TOP_SYSTEM = word_set("etc root proc sys dev boot var usr home users private system run snap nix")
_TOP_WINDOWS = frozenset({"windows", "program files", "program files (x86)", "programdata"})
_HOME_NAMES = frozenset({"library", "appdata", "documents", "onedrive"})
_USER_DATA = word_set(
    "documents desktop downloads pictures music videos movies library appdata onedrive dropbox "
    ".config .local .ssh .gnupg projects src code dev git repos workspace work go"
)
_PROBES = (
    "credentials",
    "config",
    "config.json",
    "environ",
    "hosts.yml",
    "credentials.db",
    "id_rsa",
    "login data",
    "private-keys-v1.d",
)


@dataclass(frozen=True, slots=True)
class Verdict:
    """One finding about one path."""

    severity: Severity
    title: str
    description: str
    suggestion: str


@dataclass(frozen=True, slots=True)
class Workspace:
    """The workspace as given (cleaned) and resolved."""

    text: str
    place: Place


def workspace_place(workspace: str | None) -> Workspace | None:
    """The workspace resolved, or None when there is none or it is not absolute."""
    if not workspace:
        return None
    readings, problems = spellings(workspace)
    if not readings or problems:
        return None
    place = resolve(readings[0].text)
    return Workspace(readings[0].text, place) if place.root else None


def _rule(place: Place, op: Op, *, after_system: bool = False) -> Rule | None:
    """The catalogue's first rule for ``place``; ``after_system``: the first one after a whole
    system folder's rule that is not one (``/opt/app/.env`` is an environment file too)."""
    key, tail = place.key, place.tail
    for rule in CATALOGUE:
        if after_system and rule.system:
            continue
        text = key if rule.anchored else tail
        if rule.match(text) is None or (rule.unless is not None and rule.unless(text)):
            continue
        if rule.fixtures and op in ("read", "search", "copy") and _fixture(place.show()):
            return None
        return rule
    return None


def _severity(rule: Rule, op: Op) -> Severity | None:
    if op in ("write", "edit"):
        return rule.write
    if op == "delete":
        return rule.delete
    if op == "list":
        return H if rule.read is C else None
    if op == "move":
        found = [s for s in (rule.read, rule.delete) if s is not None]
        return max(found) if found else None
    return rule.read


def _landings(place: Place) -> list[tuple[Place, Severity | None, str]]:
    """Where a relative path with no workspace may land: (place, cap, note)."""
    if place.root == "/" and place.parts and place.parts[0].startswith("."):
        return [(place, None, ""), (resolve("~/" + "/".join(place.parts)), None, "")]
    if place.root:
        return [(place, None, "")]
    out: list[tuple[Place, Severity | None, str]] = [(place, None, "")]
    n = place.escapes
    rest = place.parts[n:]
    if not rest:
        return out
    first, joined = rest[0].lower(), "/".join(rest)
    note = " (climbing out of the working folder with `..`)"
    if n:
        if first in _TOP_SYSTEM:
            out.append((resolve("/" + joined), None, note))
        if first in _TOP_WINDOWS:
            out.append((resolve("c:/" + joined), None, note))
    if first.startswith(".") or first in _HOME_NAMES:
        if n:
            out.append((resolve("~/" + joined), None, note))
        else:
            out.append((resolve("~/" + joined), H, " (if the working folder is the home folder)"))
    return out


def _delete_target(place: Place, ws: Place | None) -> str | None:
    """What an irreversible delete of ``place`` destroys, or None."""
    parts = place.parts
    if not place.root:
        if all(p == ".." for p in parts):
            return "the working folder" if not parts else "a folder holding the working folder"
        return None
    if not parts:
        return "a home folder" if place.home else "the root of the file system"
    if ws is not None and inside(ws, place):
        return "the workspace" if len(parts) == len(ws.parts) else "a folder holding the workspace"
    if len(parts) == 1 and not place.home:
        return f"the top-level folder `{place.show()}`"
    if len(parts) == 1 and parts[0].lower() in _USER_DATA:
        return f"the user's `{parts[0]}` folder"
    return None


_OUTPUTS = frozenset(
    {"build", "dist", "target", "out", "node_modules", ".cache", "cache", "tmp", "temp",
     ".pytest_cache", "__pycache__", "coverage", ".next", ".tox", ".venv", "venv"}
)  # fmt: skip


def _rebuilt(path: str) -> bool:
    """``path`` lies in a build output, cache or scratch folder: what is there is made again."""
    return any(part.lower() in _OUTPUTS for part in path.replace("\\", "/").split("/")[:-1])


def _verdict(op: Op, what: str, why: str, severity: Severity, shown: str, note: str) -> Verdict:
    if severity is C:
        advice = "Leave it alone; if this is really wanted, a human should do it by hand."
        if op in ("read", "search", "copy", "list", "move"):
            advice = "Do not read credentials from an agent; ask a human for what you need."
    else:
        advice = "A human should confirm this path is meant; work inside the workspace if not."
    why_text = f": {why}" if why else ""
    return Verdict(
        severity, f"{_NOUN[op]} {what}", f"`{snippet(shown, 120)}`{note}{why_text}.", advice
    )


def _place_verdicts(
    target: Target,
    place: Place,
    cap: Severity | None,
    note: str,
    workspace: Workspace | None,
    first: bool,
) -> list[Verdict]:
    """The verdicts on one place a path may land (``first``: where it lands if nothing is
    guessed)."""
    op, shown = target.op, place.show()
    if op == "write" and report_out(shown):
        return []  # a report for people to read, on a data volume
    ws = workspace.place if workspace is not None else None
    out: list[Verdict] = []
    rule = _rule(place, op)
    severity = _severity(rule, op) if rule is not None else None
    in_ws = ws is not None and inside(place, ws)
    exempt = rule is not None and rule.system and in_ws and ws is not None and bool(ws.parts)
    if rule is not None and severity is not None and not exempt:
        severity = min(severity, cap) if cap is not None else severity
        out.append(_verdict(op, rule.what, rule.why, severity, shown, note))
    deeper = _rule(place, op, after_system=True) if rule is not None and rule.system else None
    level = _severity(deeper, op) if deeper is not None else None
    if deeper is not None and level is not None:
        level = min(level, cap) if cap is not None else level
        out.append(_verdict(op, deeper.what, deeper.why, level, shown, note))
    elif rule is None and place.root == "~root" and op in _CHANGES and not in_ws:
        out.append(_verdict(op, "the root user's home folder", "", C, shown, note))
    if op == "search":
        for probe in _PROBES:
            inner = _rule(Place(place.root, (*place.parts, probe), place.fold), "read")
            if inner is not None and inner.anchored and inner.read is not None:
                out.append(_verdict(op, inner.what, inner.why, inner.read, shown, note))
                break
    if op == "delete":
        gone = _delete_target(place, ws)
        if gone is not None:
            out.append(_verdict(op, gone, "the delete cannot be undone", C, shown, note))
        elif backup_file(shown) and first and not is_test_path(shown) and not _rebuilt(shown):
            why = "backups, database files and migrations are what a restore needs"
            out.append(_verdict(op, "data that cannot be rebuilt", why, H, shown, note))
    if op in _READS and ws is not None and place.home and not in_ws and first:
        out.append(
            _verdict(op, "a file in a home folder outside the workspace", _PRIVATE, H, shown, note)
        )
    if op in _CHANGES:
        if workspace is not None and ws is not None and place.root and not in_ws:
            if (
                (rule is None or not rule.temp)
                and not (op == "delete" and scratch_file(place.parts))
                and not (rule is None and own_home_file(place, ws, op))
            ):
                out.append(
                    _verdict(
                        op,
                        "a path outside the workspace",
                        "",
                        H,
                        shown,
                        f" is outside the workspace `{snippet(workspace.text, 120)}`",
                    )
                )
        elif ws is None and not place.root and place.escapes and first:
            out.append(
                _verdict(
                    op,
                    "a path above the working folder",
                    "",
                    H,
                    shown,
                    " climbs out of the working folder with `..`",
                )
            )
    return out


_FIXTURE_DIRS = frozenset({"testdata", "fixtures", "__fixtures__", "test_data", "test-fixtures"})


def _fixture(path: str) -> bool:
    """A test's file: in a test folder, or in a folder of test data (``testdata/``)."""
    return is_test_path(path) or bool(_FIXTURE_DIRS.intersection(path.lower().split("/")[:-1]))


def judge(target: Target, workspace: Workspace | None) -> list[Verdict]:
    """The findings about ``target``: its worst verdict and what its spelling hides."""
    readings, problems = spellings(target.raw)
    out: list[Verdict] = []
    if "nul" in problems:
        out.append(
            Verdict(
                H,
                "path hides a NUL byte",
                "the path is cut at its first NUL byte by "
                "the system, so it may name another file than it shows.",
                "Pass the path without NUL bytes.",
            )
        )
    if "hidden" in problems:
        out.append(
            Verdict(
                H,
                "path hides invisible characters",
                "control or format characters in the path make it look like another path.",
                "Pass the path without invisible characters.",
            )
        )
    if "long" in problems:
        out.append(
            Verdict(
                H,
                "path too long to review",
                "the path is longer than the review reads; what follows may name any file.",
                "Pass a shorter path.",
            )
        )
    worst: Verdict | None = None
    for reading in readings:
        texts = (
            instances(reading.text) if target.pattern or target.op == "delete" else [reading.text]
        )
        if target.op == "delete" and (root := glob_root(reading.text)) is not None:
            texts.insert(0, root)
        for text in texts:
            resolved = resolve(text, workspace.text if workspace else None)
            landings = _landings(resolved)
            if workspace is not None and (alone := resolve(text)).escapes:
                landings += _landings(alone)[1:]
            for i, (place, cap, note) in enumerate(landings):
                extra = note + (" (spelled with look-alike characters)" if reading.folded else "")
                for v in _place_verdicts(target, place, cap, extra, workspace, i == 0):
                    if worst is None or v.severity > worst.severity:
                        worst = v
    if target.op == "delete" and worst is None:
        head = readings[0].text if readings else ""
        if head[:1] in ("$", "%") and not resolve(head).root:
            worst = _verdict(
                "delete", "a path named by a variable", "what it names is unknown", H, head, ""
            )
    if worst is not None:
        out.insert(0, worst)
    return out
