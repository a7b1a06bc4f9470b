"""The string a call's first argument builds, when interpreter code builds it from literals and
simple variables: ``system("r"."m -rf /")`` (Perl's ``.``), ``os.system(cmd + " /")``, ``$c="rm";
system("$c -rf ~")`` (interpolation), Lua's ``..`` — so the command is read whole, not as its
first piece. An environment variable read (``os.getenv("HOME")``) stands for ``$HOME``.
Straight-line code only: a variable is the last literal assigned to it before the
call; anything else (a function's result, a branch) leaves the argument unread here."""

from __future__ import annotations

import re
import shlex

__all__ = ["Variables", "assigned", "cloud_deletes", "folded", "loop_deletes", "value_before"]

Variables = list[tuple[int, str, str]]
"""Literal assignments in code order: (offset, name without its sigil, value)."""

_MAX_VARIABLES = 256
_MAX_PIECES = 64
_ASSIGN = re.compile(
    r"""(?:\b(?:my|our|local|var|let|const)\s+)?[$@]?([A-Za-z_]\w{0,63})\s*:?=\s*"""
    r"""(?:"((?:[^"\\\n]|\\.){0,4000})"|'((?:[^'\\\n]|\\.){0,4000})')\s*(?=[;\n)]|$)"""
)
_TERM = re.compile(
    r"""\s*(?:"((?:[^"\\\n]|\\.){0,4000})"|'((?:[^'\\\n]|\\.){0,4000})'"""
    r"""|`([^`]{0,4000})`|[$@]?\{?([A-Za-z_]\w{0,63})\}?)"""
)
_ENV_TERM = re.compile(
    r"""\s*(?:(?:os\.getenv|os\.environ\.get|getenv|System\.getenv|ENV\.fetch)\(\s*["'](\w+)["']"""
    r"""\s*\)|(?:os\.environ|ENV|\$_ENV|\$_SERVER)\[\s*["'](\w+)["']\s*\]"""
    r"""|\$ENV\{\s*["']?(\w+)["']?\s*\}|process\.env\.(\w+))"""
)
"""A read of an environment variable: it stands for the shell's ``$NAME``."""
_JOIN = re.compile(r"\s*(?:\.\.|\.(?!\w*\()|\+|&|~|\|\|)\s*")
_INTERPOLATED = re.compile(r"\$\{(\w{1,64})\}|\$(\w{1,64})|#\{(\w{1,64})\}")


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), text)


def assigned(code: str) -> Variables:
    """Every ``name = "literal"`` of ``code`` (Perl, PHP, Python, Ruby, JavaScript, Lua, Go's
    ``:=``), in order."""
    out: Variables = []
    for m in _ASSIGN.finditer(code):
        value = m.group(2) if m.group(2) is not None else m.group(3)
        out.append((m.start(), m.group(1), _unescape(value or "")))
        if len(out) >= _MAX_VARIABLES:
            break
    return out


def value_before(variables: Variables, name: str, before: int) -> str | None:
    found = None
    for offset, key, value in variables:
        if offset >= before:
            break
        if key == name:
            found = value
    return found


def folded(region: str, variables: Variables, at: int) -> str | None:
    """The string the first argument in ``region`` (a call's argument text, the call at
    offset ``at`` of its code) builds from literals and variables joined by a concatenation
    operator or interpolated; ``None`` when it is a single plain literal or not built of
    literals alone."""
    pos, built = 0, False
    pieces: list[str] = []
    while len(pieces) < _MAX_PIECES:
        env = _ENV_TERM.match(region, pos)
        if env is not None:
            pieces.append("$" + next(g for g in env.groups() if g))
            pos, built = env.end(), True
            join = _JOIN.match(region, pos)
            if join is None:
                break
            pos = join.end()
            continue
        m = _TERM.match(region, pos)
        if m is None:
            return None
        double, single, backtick, name = m.groups()
        if name is not None:
            value = value_before(variables, name, at)
            if value is None:
                return None
            pieces.append(value)
            built = True
        elif single is not None:
            pieces.append(_unescape(single))
        else:
            text = _unescape(double if double is not None else backtick)
            replaced = _INTERPOLATED.sub(lambda v: _interpolate(v, variables, at), text)
            built = built or replaced != text
            pieces.append(replaced)
        pos = m.end()
        join = _JOIN.match(region, pos)
        if join is None:
            break
        pos, built = join.end(), True
    rest = region[pos:].lstrip()
    if rest and rest[0] not in ",)};":
        return None
    return "".join(pieces) if built else None


def _interpolate(m: re.Match[str], variables: Variables, at: int) -> str:
    name = next(g for g in m.groups() if g)
    value = value_before(variables, name, at)
    return m.group(0) if value is None else value


_LOOP = re.compile(r"\bfor\s+(\w{1,64})\s+in\s+[(\[]([^()\[\]]{1,2000})[)\]]\s*:")
_QUOTED = re.compile(r"""["']([^"'\n]{1,500})["']""")
_DELETE_CALL = (
    r"(?:rmtree|rm_rf|rimraf|rmSync|remove|unlink|rmdir)\(\s*(?:os\.path\.expanduser\()?\s*{name}\b"
)


def loop_deletes(code: str) -> list[str]:
    """``for d in ('~/a', '/etc'): shutil.rmtree(os.path.expanduser(d))``: the delete of each
    literal the loop goes over, as a shell command."""
    out: list[str] = []
    for m in _LOOP.finditer(code):
        name, items = m.group(1), m.group(2)
        if re.search(_DELETE_CALL.format(name=re.escape(name)), code[m.end() : m.end() + 2_000]):
            out.extend(f"rm -rf {shlex.quote(item)}" for item in _QUOTED.findall(items)[:16])
        if len(out) >= 32:
            break
    return out


_BUCKET = re.compile(r"""\bBucket\(\s*(?:Name\s*=\s*)?["']([\w.-]{3,63})["']\s*\)""")
_GCS_BUCKET = re.compile(r"""\.(?:bucket|get_bucket)\(\s*["']([\w.-]{3,63})["']\s*\)""")
_EMPTIED = re.compile(r"\.(?:object_versions|objects)(?:\.all\(\))?\.delete\(|\.delete_objects\(")
_REMOVED = re.compile(r"\.delete\(\s*(?:force\s*=\s*True)?\s*\)|\.delete_bucket\(")
_DELETE_BUCKET = re.compile(r"""\.delete_bucket\(\s*Bucket\s*=\s*["']([\w.-]{3,63})["']""")


def cloud_deletes(code: str) -> list[str]:
    """Storage emptied or removed through a cloud SDK (boto3, google-cloud-storage), as the
    CLI command that does the same: ``Bucket('b').objects.all().delete()`` → ``aws s3 rm
    s3://b --recursive``."""
    out: list[str] = []
    for name in _DELETE_BUCKET.findall(code)[:8]:
        out.append(f"aws s3 rb s3://{name} --force")
    for pattern, scheme in ((_BUCKET, "aws"), (_GCS_BUCKET, "gsutil")):
        for name in pattern.findall(code)[:8]:
            if scheme == "aws" and _EMPTIED.search(code):
                out.append(f"aws s3 rm s3://{name} --recursive")
            if _REMOVED.search(code):
                out.append(
                    f"aws s3 rb s3://{name} --force"
                    if scheme == "aws"
                    else f"gsutil rm -r gs://{name}"
                )
    return out
