"""Code handed to an interpreter from the shell (``python -c``, ``perl -e``, ``awk 'BEGIN{…}'``,
``vim -c ':py …'``, a heredoc fed to ``ruby``): the shell commands it runs and what it does
that the shell rules cannot see (sockets, set-uid, native libraries, decoded payloads).

The commands are read from the calls that run them (``os.system("…")``, ``exec "…"``,
``spawn("/bin/sh")``, backticks, ``esyscmd(…)``, ``\\write18{…}``) and, for file and directory
calls, written as the shell command that does the same (``shutil.rmtree("/")`` → ``rm -rf /``,
``open("/etc/shadow")`` → ``cat /etc/shadow``) so one set of rules judges both.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field

from .code_aws_sdk import aws_sdk_commands
from .code_data_wipes import data_wipes
from .shell_catalogue import words
from .shell_code_patterns import (
    DECODE,
    EVAL,
    FILE_CALLS,
    FILE_READ,
    FORK,
    HTTP,
    LIBRARY,
    LISTEN,
    PUT,
    SERVE,
    SETUID,
    SOCKET,
    SPAWN,
    TEX_INPUT,
)
from .shell_code_values import (
    Variables,
    assigned,
    cloud_deletes,
    folded,
    loop_deletes,
)
from .shell_decode import decoded_literals
from .shell_paths import PRIVILEGE_FILES, SECRET_PATH

__all__ = [
    "CodeScan",
    "call_region",
    "escape_lines",
    "python_commands",
    "scan_code",
    "sends_files",
]

_MAX_CODE = 65_536
_MAX_CALLS = 64

_ENV_READ = re.compile(
    r"""(?:getenv|os\.environ\.get|os\.[gG]etenv|System\.getenv|ENV\.fetch|"""
    r"""GetEnvironmentVariable)\(\s*["'](\w+)["']\s*\)"""
    r"""|(?:os\.environ|ENV|\$_ENV|\$_SERVER)\[\s*["'](\w+)["']\s*\]|\$ENV\{\s*["']?(\w+)["']?\s*\}"""
    r"""|process\.env\.(\w+)|ENVIRON\[\s*"(\w+)"\s*\]"""
)
_CALL = re.compile(
    r"(?<![\w.])(?:[\w.]*\.)?(system|exec[lv]?p?e?|popen[234]?|spawn(?:Sync|[lv]?p?e?)?|call|"
    r"check_call|check_output|run|Popen|getoutput|getstatusoutput|passthru|shell_exec|"
    r"proc_open|pcntl_exec|execute|callCommand|spawnCommand|run-shell-command|Start|execSync|"
    r"execFileSync|execFile|capture[23e]?|esyscmd|syscmd|term|ansi-term|shell-command|"
    r"posix\.exec|open3|sh|qx|callProcess|readProcess|Command|CommandContext|ProcessBuilder|"
    r"commandLine)"
    r"(\s*\(|\s+(?=[\"'\[{])|\s*\{)"
)
_ARGV_CALLS = words(
    """
    execl execlp execle execlpe execv execvp execve execvpe spawn spawnv spawnvp spawnve
    spawnl spawnlp spawnle spawnlpe spawnvpe
    spawnSync Popen run call check_call check_output execFile execFileSync Start callProcess
    readProcess capture2 capture3 capture2e posix.exec Command CommandContext ProcessBuilder
    commandLine
    """
)
_LITERAL = re.compile(
    r"\"((?:[^\"\\\n]|\\.){0,4000})\"|'((?:[^'\\\n]|\\.){0,4000})'|`([^`]{0,4000})`"
)
_BACKTICK = re.compile(
    r"(?<![\w$])`([^`\n]{1,2000})`|%x[({]([^)}]{1,2000})[)}]|qx[({]([^)}]{1,2000})[)}]"
)
_AWK_PIPE = re.compile(r"\"([^\"]{1,2000})\"\s*\|\s*getline|\|\s*&?\s*\"([^\"]{1,2000})\"")
_TEX = re.compile(
    r"\\write18\{([^}]{1,2000})\}|%\(([^)]{1,2000})\)|execute_process\(\s*COMMAND\s+([^)]{1,2000})\)"
)


@dataclass(slots=True)
class CodeScan:
    """What a piece of interpreter code does, as far as the shell rules care."""

    commands: list[str] = field(default_factory=list)
    escapes: list[str] = field(default_factory=list)
    """Commands run by a document or build language's own primitive (m4 ``esyscmd``, TeX
    ``\\write18``, CMake ``execute_process``): the language is not meant to run programs."""
    reverse_shell: bool = False
    bind_shell: bool = False
    upload: bool = False
    remote_code: bool = False
    decoded_code: bool = False
    setuid: bool = False
    library: bool = False
    fork_bomb: bool = False
    server: bool = False


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), text)


def call_region(code: str, start: int, opener: str = "(", quotes: str = "\"'") -> str:
    """The argument text of a call from ``start`` (just after its opener), at most 4,000
    characters; strings quoted by one of ``quotes`` are skipped whole."""
    close = {"(": ")", "{": "}"}.get(opener)
    if close is None:
        end = min(i for i in (code.find(";", start), code.find("\n", start), len(code)) if i >= 0)
        return code[start:end]
    level, i = 1, start
    limit = min(len(code), start + 4000)
    while i < limit:
        c = code[i]
        if c in quotes:
            j = code.find(c, i + 1)
            while j > 0 and code[j - 1] == "\\":
                j = code.find(c, j + 1)
            i = limit if j < 0 else j + 1
            continue
        level += (c == opener) - (c == close)
        if level == 0:
            return code[start:i]
        i += 1
    return code[start:limit]


def _call_command(
    name: str, region: str, variables: Variables | None = None, at: int = 0
) -> str | None:
    literals = [_unescape(a or b or c) for a, b, c in _LITERAL.findall(region)]
    built = folded(region, variables or [], at)
    if built is not None and (name not in _ARGV_CALLS or len(literals) <= 1):
        return built  # "r"."m -rf /", cmd + " /", "$c -rf ~"
    if not literals:
        plain = region.strip().strip("\"'` ")
        return plain if name in ("esyscmd", "syscmd") and plain else None
    if name == "Start" and len(literals) == 2:  # .NET: a program and its argument line
        return f"{literals[0]} {literals[1]}"
    if name in _ARGV_CALLS and len(literals) > 1 and " " not in literals[0].strip():
        if name.startswith("exec") and literals[1] == literals[0].rsplit("/", 1)[-1]:
            literals = [literals[0], *literals[2:]]
        if "-c" not in literals:
            return shlex.join(literals)
        cut = literals.index("-c")
        return " ".join([*literals[:cut], "-c", shlex.quote(" ".join(literals[cut + 1 :]))])
    return literals[0]


_PY_SPAWN = re.compile(
    r"(?<![\w.])(?:(?:os|subprocess|sp|commands|pty)\.)"
    r"(system|popen[234]?|Popen|run|call|check_call|check_output|getoutput|getstatusoutput|"
    r"exec[lv]p?e?|spawn[lv]p?e?)\s*\("
    r"|(?<![\w.])(system|popen|Popen|check_call|check_output|getoutput|getstatusoutput)\s*\("
)
"""The process-starting calls of Python's standard library, by module (``subprocess.run(``)
or imported by name (``check_output(``); a bare ``run(`` or ``call(`` is anything's."""


def python_commands(code: str) -> list[tuple[int, str]]:
    """The commands a Python file starts with literal arguments (``os.system('…')``,
    ``subprocess.run(['bash', '-c', '…'])``), each with its offset in ``code``. Pure, bounded,
    never raises; a command built at run time is the taint engine's, not this."""
    out: list[tuple[int, str]] = []
    code = code[:_MAX_CODE]
    variables = assigned(code)
    for m in _PY_SPAWN.finditer(code):
        name = m.group(1) or m.group(2)
        command = _call_command(name, call_region(code, m.end(), "("), variables, m.start())
        if command and command.strip():
            out.append((m.start(), command))
            if len(out) >= _MAX_CALLS:
                break
    return out


def sends_files(code: str, *, socket: bool | None = None, http: bool | None = None) -> bool:
    """Whether ``code`` reads a file and talks to the network (or puts files by FTP): what
    ``CodeScan.upload`` says, without the rest of ``scan_code`` (``socket``/``http``: the
    searches for them, when made already)."""
    code = code[:_MAX_CODE]
    if PUT.search(code):
        return True
    if not FILE_READ.search(code):  # the cheap search first: most code reads no file
        return False
    return bool(http if http is not None else HTTP.search(code)) or bool(
        socket if socket is not None else SOCKET.search(code)
    )


def scan_code(code: str, env: Mapping[str, str] | None = None) -> CodeScan:
    """The shell commands ``code`` runs and its other effects. Pure, bounded, never raises."""
    out = CodeScan()
    code = decoded_literals(code[:_MAX_CODE])
    if env:
        code = _ENV_READ.sub(
            lambda m: repr(env.get(next(g for g in m.groups() if g), m.group(0))), code
        )
    variables = assigned(code)
    for m in _CALL.finditer(code):
        if len(out.commands) >= _MAX_CALLS:
            break
        opener = m.group(2).strip()[:1]
        command = _call_command(
            m.group(1), call_region(code, m.end(), opener), variables, m.start()
        )
        if command and code[max(0, m.start() - 14) : m.start()].endswith("getRuntime()"):
            command = shlex.join(command.split())  # Java splits the string on blanks alone
        if command:
            primitive = m.group(1) in ("esyscmd", "syscmd")
            (out.escapes if primitive else out.commands).append(command)
    for pattern in (_BACKTICK, _AWK_PIPE, _TEX):
        for found in pattern.finditer(code):
            text = next((g for g in found.groups() if g), "")
            if text and len(out.commands) + len(out.escapes) < _MAX_CALLS:
                primitive = pattern is _TEX and found.group(2) is None
                (out.escapes if primitive else out.commands).append(_unescape(text))
    for found in _LITERAL.finditer(code):
        text = next((g for g in found.groups() if g), "")
        sensitive = SECRET_PATH.search(text) or PRIVILEGE_FILES.match(text)
        if len(out.commands) < _MAX_CALLS and sensitive and "\n" not in text:
            out.commands.append(f"cat {shlex.quote(text)}")
    for found in TEX_INPUT.finditer(code):
        out.commands.append(f"cat {shlex.quote(found.group(1))}")
    for pattern, template in FILE_CALLS:
        for found in pattern.finditer(code):
            if len(out.commands) < _MAX_CALLS:
                groups = [shlex.quote(g) for g in found.groups() if g is not None]
                out.commands.append(template.format(*groups))
    wipes = [*loop_deletes(code), *cloud_deletes(code), *data_wipes(code), *aws_sdk_commands(code)]
    for command in wipes:
        if len(out.commands) < _MAX_CALLS:
            out.commands.append(command)
    socket = bool(SOCKET.search(code))
    spawn = bool(SPAWN.search(code))
    http = bool(HTTP.search(code))
    out.reverse_shell = socket and spawn
    out.bind_shell = out.reverse_shell and bool(LISTEN.search(code))
    out.upload = sends_files(code, socket=socket, http=http)
    out.server = bool(SERVE.search(code))
    out.remote_code = http and bool(EVAL.search(code))
    out.decoded_code = bool(EVAL.search(code)) and bool(DECODE.search(code))
    out.setuid = bool(SETUID.search(code))
    out.library = bool(LIBRARY.search(code))
    out.fork_bomb = bool(FORK.search(code))
    return out


_ESCAPE = re.compile(
    r"^\s*(?:\^[A-Z]|v(?=:))?[:\\@.]?\s*(?:(!)\s*|(shell|sh|system|exec|terminal|call\s+system)\b(?!\s*[.(=\[])\s*"
    r"|set\s+shell=(\S+)|(py(?:thon)?3?|pyx?|lua|perl|ruby|rubydo|luado|perldo)\s+)",
    re.IGNORECASE,
)


def escape_lines(text: str) -> tuple[list[str], list[str]]:
    """Commands typed into an interactive program (a pager, an editor, a debugger, a database
    client): the shell commands they run (``!sh``, ``:!/bin/sh``, ``\\! id``, ``.shell sh``,
    ``:set shell=/bin/sh``) and the code they evaluate (``:py …``, ``:lua …``)."""
    shell: list[str] = []
    code: list[str] = []
    lines = text[:_MAX_CODE].splitlines()[:400]
    for index, line in enumerate(lines):
        m = _ESCAPE.match(line)
        if m is not None and m.group(4):
            code.append("\n".join([line[m.end() :], *lines[index + 1 :]]))
            break
        for part in line.split("|") if m is not None else []:
            _escape_part(part, shell)
    return shell, code


def _escape_part(line: str, shell: list[str]) -> None:
    m = _ESCAPE.match(line)
    if m is not None and not m.group(4):
        rest = line[m.end() :].strip()
        if m.group(3):
            shell.append(m.group(3))
        else:
            shell.append(rest or "sh")
