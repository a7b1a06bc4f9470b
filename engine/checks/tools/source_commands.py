"""The commands a source file in another language starts (``shell_files`` makes units of them
for the shell rules): process calls with literal arguments, folded argument by argument
(``exec.Command("dd", "if=/dev/zero", "of="+dev)``; an argument the file does not spell out is
the shell variable ``$name``), Rust's ``Command::new`` builders, .NET's ``ProcessStartInfo``,
Swift's ``Process``, Ruby's and PHP's backticks, helpers that start the program they are given,
file writes and deletes written as the commands that do the same, and the credential files the
file names. Pure, bounded, never raises."""

from __future__ import annotations

import re
import shlex

from .shell_code import (
    _ARGV_CALLS,
    _BACKTICK,
    _CALL,
    _LITERAL,
    _MAX_CALLS,
    _MAX_CODE,
    _call_command,
    _unescape,
    call_region,
)
from .shell_code_patterns import FILE_CALLS
from .shell_code_values import (
    Variables,
    assigned,
    cloud_deletes,
    folded,
    loop_deletes,
    value_before,
)
from .shell_decode import decoded_literals
from .source_calls import file_commands, folded_concat, wrapper_calls

__all__ = ["STOLEN_FILE", "code_commands"]

_BUILDER = re.compile(
    r"Command::new\(\s*\"((?:[^\"\\]|\\.){1,500})\"\s*\)"
    r"((?:\s*\.\s*(?:arg|args|current_dir|env)\s*\((?:[^()]|\([^()]*\)){0,2000}\))*)"
)
"""Rust's ``Command::new("sh").arg("-c").arg("…")``: the program and its literal arguments."""
_START_INFO = re.compile(
    r"FileName\s*=\s*@?\"([^\"]{1,500})\"[^;{}]{0,400}?Arguments\s*=\s*@?\"((?:[^\"\\]|\\.){0,2000})\""
)
""".NET's ``new ProcessStartInfo { FileName = "…", Arguments = "…" }``."""
_SWIFT = re.compile(
    r"(?:launchPath|executableURL)\s*=\s*(?:URL\(fileURLWithPath:\s*)?\"([^\"]{1,500})\"\)?"
    r"[^\n]{0,200}(?:\n[^\n]{0,200}){0,6}?\.arguments\s*=\s*\[([^\]]{0,2000})\]"
)
"""Swift's ``Process``: ``launchPath``/``executableURL`` and then its ``arguments``."""
_PIPELINE_STEP = re.compile(
    r"(?<![\w.])(?:sh|bat)\s*(?:\(\s*(?:script\s*:\s*)?)?(\"\"\"|\'\'\'|\"|')(.{1,4000}?)(?<!\\)\1",
    re.DOTALL,
)
"""A Jenkins pipeline's ``sh '…'`` / ``sh \"\"\"…\"\"\"`` step (Groovy): a shell script."""
STOLEN_FILE = re.compile(
    r"(?:^|[/\\])(?:id_(?:rsa|dsa|ecdsa|ed25519)|shadow|\.git-credentials|\.netrc|\.pgpass)$"
    r"|\.aws[/\\]credentials|(?:^|[/\\])\.ssh[/\\]|\.kube[/\\]config|\.docker[/\\]config\.json|"
    r"\.gnupg[/\\]|Login Data$|\.config[/\\]gcloud[/\\]|\bmaster\.key\b|\bcredentials\.yml\.enc\b"
)
"""The credential files a source file has no business naming (read as ``cat`` of them)."""
_ARRAY = re.compile(r"\s*(?:new\s+String\s*\[\s*\]\s*\{|\[|listOf\(|arrayOf\(|List\.of\()")
"""A call's arguments given as one array (Java's ``exec(new String[]{…})``): argv."""
_CODE_FILE_CALLS = tuple(
    (pattern, template)
    for pattern, template in FILE_CALLS
    if template.startswith(("rm", "chmod")) or pattern.pattern.startswith(r"open\(")
)
"""Deletes, writes and modes of files: a source file's reads of its own files are everyday."""


_CHAINED = re.compile(r"\.\s*args?\s*\(((?:[^()]|\([^()]*\)){0,2000})\)")
_TERMS = re.compile(r"""(\s*(?:("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')|([A-Za-z_]\w{0,40}))\s*\+?)""")
"""The literals and names of a concatenation (``"of=" + dev``)."""
_BARE = re.compile(r"^[&*]?\s*([A-Za-z_]\w{0,40})(?:\.\w+\(\))?$")


def _argv_command(region: str, variables: Variables, at: int) -> str | None:
    """An argv call's command with each argument folded on its own (``"of=" + dev`` with
    ``dev := "/dev/sda"``), an argument that is a bare name unknown here written as the shell
    variable ``$name`` (the shell rules read an unknown target as one); ``None`` when an
    argument is something else."""
    pieces = _split_arguments(region)
    if not 1 < len(pieces) <= 32:
        return None
    argv = [_piece_value(piece, variables, at) for piece in pieces]
    return _joined(argv) if all(a is not None for a in argv) else None


def _piece_value(piece: str, variables: Variables, at: int) -> str | None:
    literal = _LITERAL.fullmatch(piece)
    if literal is not None:
        return _unescape(next((g for g in literal.groups() if g is not None), ""))
    built = folded(piece, variables, at)
    if built is not None:
        return built
    bare = _BARE.match(piece)
    if bare is not None:
        return value_before(variables, bare.group(1), at) or f"${bare.group(1)}"
    terms = _TERMS.findall(piece)
    if terms and "".join(t for t, _, _ in terms).replace(" ", "") == piece.replace(" ", ""):
        out = ""
        for _, literal, name in terms:
            if name:
                out += value_before(variables, name, at) or f"${name}"
            else:
                out += _unescape(literal[1:-1])
        return out
    return None


def _joined(argv: list[str | None]) -> str:
    words = [a for a in argv if a is not None]
    if "-c" in words[:3] and len(words) > words.index("-c") + 1:
        cut = words.index("-c")
        script = " ".join(words[cut + 1 :])
        quoted = f'"{script}"' if re.fullmatch(r"\$\w+", script) else shlex.quote(script)
        return " ".join([*map(_word, words[:cut]), "-c", quoted])
    return " ".join(map(_word, words))


def _word(word: str) -> str:
    """``word`` quoted for the shell, a ``$name`` left to expand (an unknown value, which the
    shell rules read as one)."""
    if "$" in word and not re.search(r"[\"`\\]", word):
        return f'"{word}"'
    return shlex.quote(word)


def _split_arguments(region: str) -> list[str]:
    """The top-level, comma-separated arguments of a call's argument text (or of the one
    array it is given), stripped."""
    text = region.strip()
    array = _ARRAY.match(text)
    if array is not None:
        text = text[array.end() :].rstrip().rstrip(")}]").rstrip()
    pieces, depth, start, i = [], 0, 0, 0
    while i < len(text):
        c = text[i]
        if c in "\"'`":
            j = text.find(c, i + 1)
            while j > 0 and text[j - 1] == "\\":
                j = text.find(c, j + 1)
            i = len(text) if j < 0 else j + 1
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            pieces.append(text[start:i].strip())
            start = i + 1
        i += 1
    pieces.append(text[start:].strip())
    return [p for p in pieces if p]


def code_commands(code: str, *, backticks: bool = False) -> list[tuple[int, str]]:
    """The commands a source file in another language starts with literal arguments
    (``execSync("…")``, ``exec.Command("rm", "-rf", "/")``, ``Runtime.getRuntime().exec(…)``,
    ``Command::new("sh").arg("-c")…``, backticks), the file calls written as the command that
    does the same (``fs.rmSync("/", …)`` → ``rm -rf /``) and the credential files it names
    (``cat ~/.ssh/id_rsa``), each with its offset in ``code`` (after decoding literals: about
    where it is). ``backticks``: the language runs a backquoted string (Ruby, PHP, Perl; in
    JavaScript it is a template string). Pure, bounded, never raises."""
    out: list[tuple[int, str]] = []
    code = decoded_literals(folded_concat(code[:_MAX_CODE]))
    variables = assigned(code)

    def add(at: int, command: str | None) -> None:
        if command and command.strip() and len(out) < _MAX_CALLS:
            out.append((at, command))

    for m in _CALL.finditer(code):
        region = call_region(code, m.end(), m.group(2).strip()[:1])
        name = "execv" if _ARRAY.match(region) else m.group(1)  # exec(new String[]{…}): argv
        command = _call_command(name, region, variables, m.start())
        if name in _ARGV_CALLS and command is not None:
            command = _argv_command(region, variables, m.start()) or command
        if command and code[max(0, m.start() - 14) : m.start()].endswith("getRuntime()"):
            command = shlex.join(command.split())  # Java splits the string on blanks alone
        add(m.start(), command)
    for m in _BUILDER.finditer(code):
        argv: list[str | None] = [_unescape(m.group(1))]
        for call in _CHAINED.finditer(m.group(2)):
            argv.extend(
                _piece_value(p, variables, m.start()) for p in _split_arguments(call.group(1))
            )
        add(m.start(), _joined(argv))
    for m in _START_INFO.finditer(code):
        add(m.start(), f"{m.group(1)} {_unescape(m.group(2))}")
    for m in _SWIFT.finditer(code):
        args = [_unescape(a or b or c) for a, b, c in _LITERAL.findall(m.group(2))]
        add(m.start(), _call_command("Command", shlex.join([m.group(1), *args])))
    for m in _PIPELINE_STEP.finditer(code):
        add(m.start(), m.group(2).replace("\\$", "$"))
    for m in _BACKTICK.finditer(code) if backticks else ():
        add(m.start(), _unescape(next((g for g in m.groups() if g), "")))
    for pattern, template in _CODE_FILE_CALLS:
        for found in pattern.finditer(code):
            add(found.start(), template.format(*(shlex.quote(g) for g in found.groups() if g)))
    for found in _LITERAL.finditer(code):
        text = next((g for g in found.groups() if g), "")
        if not any(c.isspace() for c in text) and STOLEN_FILE.search(text):
            add(found.start(), f"cat {shlex.quote(text)}")
    for at, command in file_commands(code):
        add(at, command)
    for at, _, arguments in wrapper_calls(code):
        add(at, _argv_command(arguments, variables, at) or _call_command("execv", arguments))
    for command in [*loop_deletes(code), *cloud_deletes(code)]:
        add(0, command)
    return sorted(set(out))
