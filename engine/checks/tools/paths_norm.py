"""File paths of tool calls as the path rules read them: cleaned, resolved and spelled one way.

A path is resolved without touching the disk: quotes and blanks around it go, NUL bytes cut it
(as C does), invisible characters are dropped, look-alike characters are folded (NFKC and a
table of Cyrillic and Greek letters that look Latin), backslashes become slashes, ``file://``
is stripped, ``~``, ``$HOME``, ``%USERPROFILE%`` and their kin name the home folder, ``.`` and
``..`` are applied (``..`` above the root stays at the root, as the kernel does) and a relative
path is joined to the workspace when one is known. The result, ``Place``, says which root the
path hangs from (``/``, a home folder, a Windows drive, a share, or nothing: relative) and its
parts; ``Place.key`` is the lower-case spelling the rules match
(``/etc/shadow``, ``~/.ssh/id_rsa``, ``c:/windows/system32``, ``src/app.py``).

Pure: no I/O, work linear in the path's length, never raises.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from urllib.parse import unquote

__all__ = [
    "MAX_PATH_CHARS",
    "TAIL_PARTS",
    "Place",
    "Spelling",
    "as_written",
    "inside",
    "resolve",
    "spellings",
]

MAX_PATH_CHARS = 65_536
"""Longer paths are read up to here and reported as not fully reviewed."""
TAIL_PARTS = 16
_NAME_MAX = 255

_CONFUSABLES = str.maketrans(
    {
        **dict.fromkeys("аᴀ", "a"),
        **dict.fromkeys("еҽ", "e"),
        **dict.fromkeys("оοσ", "o"),
        **dict.fromkeys("рρ", "p"),
        **dict.fromkeys("сϲ", "c"),
        **dict.fromkeys("уγ", "y"),
        **dict.fromkeys("хχ", "x"),
        **dict.fromkeys("іιӏ", "i"),
        **dict.fromkeys("ѕ", "s"),
        **dict.fromkeys("ј", "j"),
        **dict.fromkeys("ԁ", "d"),
        **dict.fromkeys("һ", "h"),
        **dict.fromkeys("ԛ", "q"),
        **dict.fromkeys("ԝ", "w"),
        **dict.fromkeys("νѵ", "v"),
        **dict.fromkeys("κк", "k"),
        **dict.fromkeys("ɡ", "g"),
        **dict.fromkeys("тτ", "t"),
        **dict.fromkeys("ⅼ", "l"),
        **dict.fromkeys("∕⁄⧸╱", "/"),
        **dict.fromkeys("⧵⑊", "\\"),
        **dict.fromkeys("∼˜⁓", "~"),
        **dict.fromkeys("。｡", "."),
    }
)
_VARIABLE = re.compile(
    r"^(?:\$\{?env:(?P<ps>[A-Za-z_][A-Za-z0-9_]*)\}?|%(?P<cmd>[A-Za-z_][A-Za-z0-9_()]*)%"
    r"|\$\{?(?P<sh>[A-Za-z_][A-Za-z0-9_]*)\}?)",
    re.IGNORECASE,
)
_EXPANSIONS = {
    "home": "~",
    "userprofile": "~",
    "homepath": "~",
    "xdg_config_home": "~/.config",
    "xdg_data_home": "~/.local/share",
    "appdata": "~/appdata/roaming",
    "localappdata": "~/appdata/local",
    "systemroot": "c:/windows",
    "windir": "c:/windows",
    "systemdrive": "c:",
    "programfiles": "c:/program files",
    "programfiles(x86)": "c:/program files (x86)",
    "programdata": "c:/programdata",
    "allusersprofile": "c:/programdata",
    "tmpdir": "/tmp",
    "temp": "/tmp",
    "tmp": "/tmp",
}
_HOME_PARENTS = {("home",), ("users",), ("export", "home"), ("usr", "home")}
_ROOT_HOMES = {("root",), ("var", "root")}


@dataclass(frozen=True, slots=True)
class Place:
    """A resolved path: its root and its parts (``..`` kept only at the start of a relative
    path, where it leaves the folder the path starts from)."""

    root: str
    """``/``, ``~`` (some home), ``~name`` (that user's home), ``c:``, ``//server/share``, or
    ``""`` for a relative path."""
    parts: tuple[str, ...]
    fold: bool = False
    """Names compare without case (a Windows path)."""

    @property
    def home(self) -> bool:
        return self.root.startswith("~")

    @property
    def escapes(self) -> int:
        """How many folders a relative path climbs above the one it starts from."""
        n = 0
        for part in self.parts:
            if part != "..":
                break
            n += 1
        return n

    @property
    def key(self) -> str:
        """The spelling the rules match: lower case, homes as ``~``, each name cut to the
        255 characters a file system accepts."""
        root = "~" if self.home else self.root
        body = "/".join(p[:_NAME_MAX] for p in self.parts)
        if not root:
            return body.casefold()
        if root == "/":
            return ("/" + body).casefold()
        return (root + "/" + body).rstrip("/").casefold() if body else root.casefold()

    @property
    def tail(self) -> str:
        """The last ``TAIL_PARTS`` names of ``key``, for the rules that match anywhere."""
        if len(self.parts) <= TAIL_PARTS:
            return self.key
        return "/".join(p[:_NAME_MAX] for p in self.parts[-TAIL_PARTS:]).casefold()

    def show(self) -> str:
        """The path as the report shows it."""
        body = "/".join(self.parts)
        if not self.root:
            return body or "."
        if self.root == "/":
            return "/" + body
        return f"{self.root}/{body}" if body else self.root


@dataclass(frozen=True, slots=True)
class Spelling:
    """One reading of a raw path, and what was hidden in it."""

    text: str
    folded: bool
    """Look-alike characters were folded to reach this reading."""


def _clean(raw: str) -> tuple[str, bool]:
    """``raw`` cut at its first NUL (as the system reads it), without control and format
    characters; and whether there were any."""
    raw = raw.split("\x00", 1)[0]
    hidden = False
    out = []
    for ch in raw:
        if ch.isprintable() or ch == " ":
            out.append(ch)
        else:
            hidden = True
    return "".join(out), hidden


def spellings(raw: str) -> tuple[list[Spelling], set[str]]:
    """The readings of ``raw`` worth matching, and the problems found in it
    (``nul``, ``hidden``, ``long``)."""
    problems: set[str] = set()
    if len(raw) > MAX_PATH_CHARS:
        problems.add("long")
        raw = raw[:MAX_PATH_CHARS]
    readings: list[str] = []
    if "\x00" in raw:
        problems.add("nul")
        readings.append(raw.replace("\x00", ""))
    text, hidden = _clean(raw)
    if hidden:
        problems.add("hidden")
    readings.insert(0, text)
    out: list[Spelling] = []
    seen: set[str] = set()
    for reading in readings:
        cleaned = _clean(reading)[0].strip().strip("\"'`").strip()
        folded = unicodedata.normalize("NFKC", cleaned)
        skeleton = unicodedata.normalize("NFKC", folded.translate(_CONFUSABLES))
        for text_, was_folded in ((cleaned, False), (folded, True), (skeleton, True)):
            if text_ not in seen:
                seen.add(text_)
                out.append(Spelling(text_, was_folded and bool(out)))
    return out, problems


def _expand(text: str) -> str:
    """``text`` with a leading home or system variable replaced, and ``file://`` stripped."""
    if text[:7].lower() == "file://":
        text = _clean(unquote(text[7:]))[0]
        if text[:10].lower() == "localhost/":
            text = text[9:]
        if re.match(r"^/[A-Za-z]:", text):
            text = text[1:]
    for _ in range(3):
        m = _VARIABLE.match(text)
        if m is None:
            break
        name = (m.group("sh") or m.group("cmd") or m.group("ps") or "").lower()
        rest = text[m.end() :]
        if name == "homedrive" and rest.lower().startswith("%homepath%"):
            name, rest = "userprofile", rest[len("%homepath%") :]
        value = _EXPANSIONS.get(name)
        if value is None:
            break
        text = value + rest
    return text


def _split(text: str) -> tuple[str, list[str]]:
    """The root and raw segments of ``text`` (slashes forward; a share written with
    backslashes arrives marked by a leading SOH character). A home is spelled as the folder
    it is, so that ``..`` can climb out of it."""
    low = text.lower()
    for prefix in ("//?/unc/", "//./unc/"):
        if low.startswith(prefix):
            text, low = "\x01" + text[len(prefix) :], "\x01" + low[len(prefix) :]
    if low.startswith(("//?/", "//./", "/??/")):
        text = text[4:]
    if text.startswith("\x01"):
        bits = text[1:].split("/")
        if len(bits) >= 2 and bits[0] and bits[1]:
            return f"//{bits[0].lower()}/{bits[1].lower()}", bits[2:]
        return "/", bits
    if re.match(r"^[A-Za-z]:", text):
        return text[:2].lower(), text[2:].split("/")
    if text.startswith("/"):
        return "/", text.split("/")
    if text == "~" or text.startswith("~/"):
        return "/", ["home", "~", *text[2:].split("/")]
    m = re.match(r"^~([A-Za-z0-9_][A-Za-z0-9_.-]*)(?:/|$)", text)
    if m:
        user = m.group(1).lower()
        base = ["root"] if user == "root" else ["home", user]
        return "/", [*base, *text[m.end() :].split("/")]
    return "", text.split("/")


def _parts(root: str, segments: list[str]) -> tuple[str, ...]:
    out: list[str] = []
    windows = root.endswith(":") or root.startswith("//")
    for seg in segments:
        if windows and seg not in (".", ".."):
            seg = seg.split(":", 1)[0].rstrip(" .")
        if seg in ("", "."):
            continue
        if seg == "..":
            if out and out[-1] != "..":
                out.pop()
            elif not root:
                out.append("..")
            continue
        out.append(seg)
    return tuple(out)


def _homes(root: str, parts: tuple[str, ...]) -> Place:
    """Home folders spelled as homes; macOS's ``/private`` and firmlinks dropped."""
    fold = root.endswith(":") or root.startswith("//")
    low = tuple(p.lower() for p in parts[:3])
    if root == "/":
        if low[:3] == ("system", "volumes", "data"):
            parts, low = parts[3:], tuple(p.lower() for p in parts[3:6])
        if low[:1] == ("private",) and low[1:2] in (("etc",), ("tmp",), ("var",)):
            parts, low = parts[1:], low[1:]
        for prefix in _ROOT_HOMES:
            if low[: len(prefix)] == prefix:
                return Place("~root", parts[len(prefix) :])
        for prefix in _HOME_PARENTS:
            n = len(prefix)
            if low[:n] == prefix and len(parts) > n:
                user = parts[n].lower()
                return Place("~" if user == "~" else "~" + user, parts[n + 1 :])
    elif root.endswith(":") and low[:1] == ("users",) and len(parts) > 1:
        return Place("~" + parts[1].lower(), parts[2:], fold=True)
    return Place(root, parts, fold=fold)


def _segments(text: str) -> tuple[str, list[str]]:
    if text.startswith("\\\\") and not text.startswith(("\\\\?\\", "\\\\.\\")):
        text = "\x01" + text[2:]
    return _split(_expand(text).replace("\\", "/"))


def resolve(text: str, workspace: str | None = None) -> Place:
    """``text`` (one spelling) resolved, joined to ``workspace`` (a spelling of an absolute
    folder) when it is relative."""
    root, segments = _segments(text)
    if not root and workspace:
        ws_root, ws_segments = _segments(workspace)
        if ws_root:
            root, segments = ws_root, [*ws_segments, *segments]
    return _homes(root, _parts(root, segments))


def as_written(text: str, workspace: str | None = None) -> str:
    """``text`` resolved as ``resolve`` does, with home folders left as the path spells them
    (``/home/ann/.ssh``, not ``~ann/.ssh``): what a rule written with absolute paths matches."""
    root, segments = _segments(text)
    if not root and workspace:
        ws_root, ws_segments = _segments(workspace)
        if ws_root:
            root, segments = ws_root, [*ws_segments, *segments]
    return Place(root, _parts(root, segments)).show()


def inside(place: Place, folder: Place) -> bool:
    """Whether ``place`` is ``folder`` or lies under it (an unknown home matches any home)."""
    if place.home and folder.home:
        if place.root != folder.root and "~" not in (place.root, folder.root):
            return False
    elif place.root != folder.root:
        return False
    if len(place.parts) < len(folder.parts):
        return False
    fold = place.fold or folder.fold
    return all(
        a.casefold() == b.casefold() if fold else a == b
        for a, b in zip(place.parts, folder.parts, strict=False)
    )
