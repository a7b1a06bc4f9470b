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

from .shell_catalogue import words
from .shell_code_values import (
    Variables,
    assigned,
    cloud_deletes,
    folded,
    loop_deletes,
    value_before,
)
from .shell_decode import decoded_literals
from .shell_paths import PRIVILEGE_FILES, SECRET_PATH
from .source_calls import file_commands, folded_concat, wrapper_calls

__all__ = [
    "STOLEN_FILE",
    "CodeScan",
    "code_commands",
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
    r"(?<![\w.])(?:[\w.]*\.)?(system|exec[lv]?p?e?|popen[234]?|spawn(?:Sync|v?p?e?)?|call|"
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
_SOCKET = re.compile(
    r"\bsocket\b|fsockopen|TCPSocket|IO::Socket|Socket::|\bnet\.(?:Socket|connect|"
    r"createConnection)|/inet/tcp|s_client|TCPServer|UDPSocket|java\.net\.Socket|"
    r"\bsocket\.|new\s+Socket|Net::Telnet|socat|/dev/tcp/|\bSockets\b",
    re.IGNORECASE,
)
_LISTEN = re.compile(r"\.bind\(|\blisten\(|TCPServer|createServer|ServerSocket|/inet/tcp/\d+/0/0")
_SPAWN = re.compile(
    r"dup2|pty\.spawn|\bpty\b|/bin/\w*sh\b|[\"'](?:ba|z|da)?sh[\"']|cmd\.exe|subprocess|"
    r"\bexec\b|\bsystem\b|popen|proc_open|spawn|child_process|shell_exec|passthru|\|&\s*getline|"
    r"\brun\(|\bread\(`"
)
_HTTP = re.compile(
    r"urlopen|urlretrieve|requests\.\w+\(|http\.client|HTTPConnection|urllib|\bfetch\(|"
    r"https?\.(?:get|request)\(|Net::HTTP|LWP|HTTP::Tiny|file_get_contents\(\s*[\"']https?:|"
    r"require\([\"']https?[\"']\)|net/http|http\.Post|File::Fetch|"
    r"curl_exec|open-uri|URI\.open|\bwget\b|WebClient|DownloadString|Invoke-WebRequest"
)
_EVAL = re.compile(r"\b(?:exec|eval|Function|compile|instance_eval|class_eval|load)\s*\(")
_DECODE = re.compile(
    r"b64decode|base64|decode\(\s*[\"'](?:hex|base64|rot13|rot_13)|fromhex|unhexlify|"
    r"zlib\.decompress|\batob\(|Buffer\.from\([^)]*base64|unpack\(|marshal\.loads|"
    r"codecs\.decode|gzinflate|str_rot13|pack\(\s*[\"']H",
    re.IGNORECASE,
)
_FILE_READ = re.compile(
    r"open\([^)]*\)\.read|readFile|File\.read|file_get_contents|IO\.read|"
    r"read_text|read_bytes|slurp|<\$\w+>|fread\(|createReadStream|"
    r":read\(|io\.open|\.read\(\)|os\.ReadFile|ioutil\.ReadFile"
)
_SERVE = re.compile(
    r"http\.server|SimpleHTTPServer|socketserver|WEBrick|HTTP::Server|"
    r"createServer\(|\bhttpd\b|serve_forever|ServerSocket|ListenAndServe"
)
_TEX_INPUT = re.compile(r"\\(?:verbatim)?input\{([^}]{1,500})\}|\\openin\d*\s*=?\s*([^\s}]+)")
_PUT = re.compile(r"^\s*m?put\s+\S", re.MULTILINE)
_SETUID = re.compile(
    r"set(?:res|re)?[ug]id\(\s*0|\$[<>]\s*=\s*0|Process::Sys\.set\w*id\(\s*0|"
    r"process\.set[ug]id\(\s*0|POSIX::set[ug]id\(\s*0"
)
_LIBRARY = re.compile(
    r"cdll\.LoadLibrary|\bCDLL\(|ctypes\.\w+\.LoadLibrary|dlopen|Fiddle|ffi\.load|DynaLoader|"
    r"System\.load(?:Library)?|load_extension|enable\s+-f"
)
_FORK = re.compile(
    r"fork\s+while\s+fork|while\s*\(?\s*(?:True|1|true)\s*\)?\s*[:{]?\s*(?:os\.)?fork\(|"
    r"for\s*\(\s*;\s*;\s*\)\s*\{?\s*fork\(|loop\s*\{\s*fork"
)
_FILE_CALLS = (
    (
        re.compile(
            r"(?:rmtree|remove_dir_all|rm_rf|rm_r|rimraf|rmSync|rmdirSync)\(\s*[\"']([^\"']+)"
        ),
        "rm -rf {}",
    ),
    (
        re.compile(
            r"(?:rmtree|rm_rf|rimraf|rmSync)\(\s*(?:os\.path\.)?expanduser\(\s*[\"']([^\"']+)"
        ),
        "rm -rf {}",
    ),
    (
        re.compile(
            r"(?:rmtree|rm_rf|rimraf|rmSync)\(\s*(?:(?:pathlib\.)?Path\.home\(\)|"
            r"os\.environ\[\s*[\"']HOME[\"']\s*\]|os\.getenv\(\s*[\"']HOME[\"']\s*\)|"
            r"(?:require\(\s*[\"']os[\"']\s*\)|os)\.homedir\(\)|process\.env\.HOME)\s*[,)]"
        ),
        "rm -rf ~",
    ),
    (
        re.compile(r"(?:os\.remove|os\.unlink|unlink|unlinkSync|File\.delete)\(\s*[\"']([^\"']+)"),
        "rm -f {}",
    ),
    (re.compile(r"open\(\s*[\"']([^\"']+)[\"']\s*,\s*[\"'][wa]"), "tee -a {}"),
    (
        re.compile(
            r"(?:open|readFile\w*|File\.read|file_get_contents|read_text|IO\.read|fopen)"
            r"\(\s*[\"']([^\"']+)[\"']\s*(?:\)|,\s*[\"']r)"
        ),
        "cat {}",
    ),
    (
        re.compile(
            r"^[ \t]*(?:\w*>[ \t]*)?(?:\.(?:import|read|open|load|restore)|\\(?:i|ir|include)|"
            r"/open|source)[ \t]+['\"]?([^\s'\";]+)",
            re.MULTILINE,
        ),
        "cat {}",
    ),
    (
        re.compile(
            r"^[ \t]*(?:\w*>[ \t]*)?(?:\.(?:output|once|save|backup)|\\(?:o|out|w|write)|"
            r"/save(?:[ \t]+-\w+)*|(?:dump|append)[ \t]+(?:binary[ \t]+)?(?:memory|value))"
            r"[ \t]+['\"]?([^\s'\";]+)",
            re.MULTILINE,
        ),
        "tee -a {}",
    ),
    (
        re.compile(
            r"\$\(file\s*>>?\s*([^,)\s]+)|Out-File\s+(?:-FilePath\s+)?['\"]?([^'\"\s;|]+)|"
            r"\\openout\s*(?:\\\w+|\d+)?\s*=?\s*([^\s\\}]+)"
        ),
        "tee -a {}",
    ),
    (
        re.compile(r"(?:chmod|os\.chmod)\(\s*[\"']([^\"']+)[\"']\s*,\s*0o?([0-7]{3,4})"),
        "chmod {1} {0}",
    ),
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


def _region(code: str, start: int, opener: str) -> str:
    """The argument text of a call from ``start`` (just after its opener)."""
    close = {"(": ")", "{": "}"}.get(opener)
    if close is None:
        end = min(i for i in (code.find(";", start), code.find("\n", start), len(code)) if i >= 0)
        return code[start:end]
    level, i = 1, start
    limit = min(len(code), start + 4000)
    while i < limit:
        c = code[i]
        if c in "\"'":
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
        command = _call_command(name, _region(code, m.end(), "("), variables, m.start())
        if command and command.strip():
            out.append((m.start(), command))
            if len(out) >= _MAX_CALLS:
                break
    return out


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
STOLEN_FILE = re.compile(
    r"(?:^|[/\\])(?:id_(?:rsa|dsa|ecdsa|ed25519)|shadow|\.git-credentials|\.netrc|\.pgpass)$"
    r"|\.aws[/\\]credentials|(?:^|[/\\])\.ssh[/\\]|\.kube[/\\]config|\.docker[/\\]config\.json|"
    r"\.gnupg[/\\]|Login Data$|\.config[/\\]gcloud[/\\]"
)
"""The credential files a source file has no business naming (read as ``cat`` of them)."""
_ARRAY = re.compile(r"\s*(?:new\s+String\s*\[\s*\]\s*\{|\[|listOf\(|arrayOf\(|List\.of\()")
"""A call's arguments given as one array (Java's ``exec(new String[]{…})``): argv."""
_CODE_FILE_CALLS = tuple(
    (pattern, template)
    for pattern, template in _FILE_CALLS
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
        region = _region(code, m.end(), m.group(2).strip()[:1])
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


def sends_files(code: str, *, socket: bool | None = None, http: bool | None = None) -> bool:
    """Whether ``code`` reads a file and talks to the network (or puts files by FTP): what
    ``CodeScan.upload`` says, without the rest of ``scan_code`` (``socket``/``http``: the
    searches for them, when made already)."""
    code = code[:_MAX_CODE]
    if _PUT.search(code):
        return True
    if not _FILE_READ.search(code):  # the cheap search first: most code reads no file
        return False
    return bool(http if http is not None else _HTTP.search(code)) or bool(
        socket if socket is not None else _SOCKET.search(code)
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
        command = _call_command(m.group(1), _region(code, m.end(), opener), variables, m.start())
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
    for found in _TEX_INPUT.finditer(code):
        out.commands.append(f"cat {shlex.quote(found.group(1))}")
    for pattern, template in _FILE_CALLS:
        for found in pattern.finditer(code):
            if len(out.commands) < _MAX_CALLS:
                groups = [shlex.quote(g) for g in found.groups() if g is not None]
                out.commands.append(template.format(*groups))
    for command in [*loop_deletes(code), *cloud_deletes(code)]:
        if len(out.commands) < _MAX_CALLS:
            out.commands.append(command)
    socket = bool(_SOCKET.search(code))
    spawn = bool(_SPAWN.search(code))
    http = bool(_HTTP.search(code))
    out.reverse_shell = socket and spawn
    out.bind_shell = out.reverse_shell and bool(_LISTEN.search(code))
    out.upload = sends_files(code, socket=socket, http=http)
    out.server = bool(_SERVE.search(code))
    out.remote_code = http and bool(_EVAL.search(code))
    out.decoded_code = bool(_EVAL.search(code)) and bool(_DECODE.search(code))
    out.setuid = bool(_SETUID.search(code))
    out.library = bool(_LIBRARY.search(code))
    out.fork_bomb = bool(_FORK.search(code))
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
