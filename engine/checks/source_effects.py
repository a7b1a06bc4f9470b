"""What a source file in another language can do to the machine and its data, read as text
for ``source_code``: reverse shells, code decoded or downloaded and evaluated, commands and SQL
built from a request's input or from values, the environment or credential files sent out,
miners, autostart entries, backdoor comparisons, the SQL its literals run and the addresses
it hides — each a finding at its line (``hitter``)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from humangr.contracts import Severity

from .base import Hit, is_test_path
from .build_files import AddedText
from .diff import FileDiff
from .languages import MIGRATION_PATH, other_code
from .request_input import input_names, input_reaches_sink
from .run_time import built_at_run_time
from .source_harm import (
    code_harms,
    powershell_harms,
)
from .source_sql import built_sql
from .source_strings import hidden_urls, sql_literals, urls, way_back
from .source_web import web_harms
from .tools.source_commands import STOLEN_FILE

__all__ = ["code_effects", "hitter", "sql_hits"]

_WINDOW = 400
"""How far after a call's name its arguments are read."""

_NETWORK = re.compile(
    r"\bfetch\(|\baxios\b|XMLHttpRequest|\bhttps?\.(?:get|request|post)\(|"
    r"require\(\s*[\"'](?:node:)?https?[\"']\s*\)|from\s+[\"'](?:node:)?https?[\"']|\"net/http\"|"
    r"\bhttp\.(?:Post|Get|NewRequest|PostForm)\b|\breqwest\b|\bureq::|HttpClient|HttpURLConnection|"
    r"openConnection\(|OkHttp|RestTemplate|\bWebClient\b|Net::HTTP|open-uri|URI\.open|Faraday|"
    r"HTTParty|curl_(?:exec|init)|file_get_contents\(\s*[\"']https?:|Guzzle|URLSession|"
    r"\bgot\(|superagent|\brequest\(|[Ss]ocket\b|TcpStream|TcpClient|net\.Dial|fsockopen|"
    r"WebSocket|\bnet\.connect|createConnection|ActionMailer|\.deliver_(?:now|later)\b|"
    r"nodemailer|\bcreateTransport\(|\bMail::|PHPMailer|\bSmtpClient\b|\bMailMessage\b|"
    r"Transport\.send\(|net/smtp|smtp\.SendMail|\blettre::|Swift_Mailer|\bwp_mail\(|"
    r"PutObject|\bS3Client\b|\bBlobServiceClient\b|\bstorage\.Client\(|\.upload\(|"
    r"\bWebhookClient\b|discord(?:app)?\.com/api/webhooks|hooks\.slack\.com"
)
_CONNECT = re.compile(
    r"\bnet\.(?:Socket|connect|createConnection)\b|net\.Dial(?:Timeout)?\(|TcpStream::connect|"
    r"new\s+Socket\(|TCPSocket\.(?:new|open)|fsockopen\(|\bsocket\.connect\(|TcpClient\(|"
    r"\bsocket\(\s*AF_INET|\bconnect\(\s*sock|IO::Socket::INET|NWConnection\(|gen_tcp:connect\("
)
_SHELL = re.compile(
    r"[\"'`](?:/usr)?(?:/bin/)?(?:ba|z|da|k)?sh[\"'`]|[\"'`]cmd(?:\.exe)?[\"'`]|"
    r"[\"'`]powershell(?:\.exe)?[\"'`]|/bin/(?:ba|z|da)?sh\b|\bpty\.spawn"
)
_WIRED = re.compile(
    r"\.pipe\(|stdin|stdout|dup2|Stdin\s*=|Stdout\s*=|proc_open|getInputStream|"
    r"redirectInput|Stdio::from|into_raw_fd|as_raw_fd|fileno"
)
_RECEIVED_EVAL = re.compile(
    r"\berl_eval:|\berl_scan:string\(|\bCode\.eval_string\(|(?<![\w.$])eval\s*\(|"
    r"\bloadstring\s*\(|\bload\s*\(\s*\w+\s*\)|Invoke-Expression|\bnew\s+Function\s*\("
)
"""Evaluation of code given at run time (what a connection received, in that code)."""
_EVAL = re.compile(
    r"(?<![\w.$])(?:eval|new\s+Function|vm\.runIn\w+|vm\.Script|instance_eval|class_eval|"
    r"module_eval|create_function|loadstring|Invoke-Expression)\s*\(|"
    r"\bAssembly\.Load(?:From|File)?\s*\(|\bnew\s+URLClassLoader\s*\(|\bdefineClass\s*\("
)
_DECODE = re.compile(
    r"\batob\(|Buffer\.from\([^)]{0,4000}?[\"'](?:base64|hex)[\"']|base64_decode\(|hex2bin\(|"
    r"gzinflate\(|str_rot13\(|Base64\.(?:decode64|strict_decode64|getDecoder)|"
    r"Convert\.FromBase64String|fromCharCode\(",
    re.IGNORECASE,
)
_LONG_LITERAL = re.compile(r"[\"'`][A-Za-z0-9+/=]{60,}[\"'`]")
_DOWNLOAD = re.compile(
    r"\bfetch\(|\baxios\b|\bhttps?\.get\(|\bgot\(|\brequest\(|file_get_contents\(\s*[\"']https?:|"
    r"URI\.open|open-uri|Net::HTTP|DownloadString|\bcurl\b|\bwget\b|urlopen|XMLHttpRequest|"
    r"\bnew\s+URL\(|openStream\(|HttpClient|GetByteArrayAsync|DownloadData|http\.Get\("
)
_AUTOSTART = re.compile(
    r"CurrentVersion\\{1,2}Run(?:Once)?\b|/Library/LaunchAgents/|/Library/LaunchDaemons/|"
    r"/etc/cron\.|/var/spool/cron|/etc/systemd/system\b|/etc/rc\.local|\.config/autostart"
)
_MAGIC_VALUE = re.compile(
    r"(?:header|headers|get|query|params|param|cookies|Header\.Get|getHeader|getParameter)\s*"
    r"[\(\[]\s*[\"'][\w-]{1,60}[\"']\s*[\)\]]\s*(?:===?|\.equals\(|\.Equals\()\s*"
    r"[\"']([^\"'\s]{12,})[\"']"
)
"""A request's header or parameter compared with a long fixed value: a key only its writer has."""
_HASHED_SECRET = re.compile(
    r"(?i)\b\w*(?:password|passwd|pass|pwd|pw|secret|token)\w*\s*\.\s*(?:hashCode|GetHashCode|"
    r"hash)\(\)\s*==\s*-?\d{3,}|"
    r"\b\w*(?:password|passwd|pass|pwd|secret|token)\w*\s*(?:===?|\.equals\(|\.Equals\()\s*"
    r"[^;\n]{0,80}?(?:FromBase64String|atob\(|base64_decode|Base64\.\w*[dD]ecode|hex::decode|"
    r"decodeToString|fromCharCode|new\s+String\(\s*new\s+(?:byte|char)\[\])|"
    r"\b(?:md5|sha1|sha256|hash|hash_hmac|crc32)\s*\(\s*\$?[\w.]*(?:password|passwd|pass|pwd|token)"
    r"\w*\s*\)\s*(?:===?|==|\.equals\()\s*[\"'][0-9a-fA-F]{8,128}[\"']"
)
_WHOLE_ENV = re.compile(
    r"JSON\.stringify\(\s*process\.env\s*\)|Object\.(?:entries|keys)\(\s*process\.env\s*\)|"
    r"\bos\.Environ\(\)|System\.getenv\(\s*\)|\bENV\.to_h(?:ash)?\b|(?<![\w>])getenv\(\s*\)|"
    r"\$_ENV\b|GetEnvironmentVariables\(\)|\benv::vars\(\)"
)
_MINER = re.compile(
    r"stratum\+(?:tcp|ssl|tls)://|\bxmrig\b|--donate-level|\bcryptonight\b|\bcoinhive\b|"
    r"minexmr|nanopool\.org|supportxmr|moneroocean|\bxmr-stak\b",
    re.IGNORECASE,
)
_BACKDOOR = re.compile(
    r"(?i)(?:\b[\w.$\[\]\"'-]*?(?:password|passwd|passphrase|pwd|secret|token|api_?key)|"
    r"(?<![\w.])(?:pass|pw))[\"'\])]{0,2}\s*"
    r"(?:===?|!==?|\.equals\(|\.Equals\(|\s(?:eq|ne)\s)\s*[\"']([^\"'\s]{3,64})[\"']"
)
_BACKDOOR_FLIPPED = re.compile(
    r"(?i)[\"']([^\"'\s]{3,64})[\"']\s*(?:===?|\.equals\(|\.Equals\()\s*"
    r"[\w.$]*(?:password|passwd|passphrase|pwd|secret|token|api_?key)\b"
)
_PATH_PARTS = re.compile(r"[\"']\s*,\s*[\"']")
"""Between two literal arguments: ``".aws", "credentials"`` is read as ``.aws/credentials``."""
_PLAIN_RULES: tuple[tuple[re.Pattern[str], bool, Severity, str, str], ...] = (
    (
        _AUTOSTART,
        False,
        Severity.HIGH,
        "installs something that starts by itself",
        "A Run key, launch agent, cron entry or service runs at every boot or login.",
    ),
    (
        _WHOLE_ENV,
        True,
        Severity.CRITICAL,
        "sends the whole environment over the network",
        "The environment holds the process's credentials (cloud keys, tokens).",
    ),
    (
        STOLEN_FILE,
        True,
        Severity.CRITICAL,
        "reads a credential file in code that talks to the network",
        "A private key or credential file read beside a network call is how they leave.",
    ),
    (
        _MINER,
        False,
        Severity.CRITICAL,
        "crypto-miner",
        "A mining pool or miner: the machine's power goes to someone else.",
    ),
)
"""Rules that are one search of the file (``True``: only where the file talks to the network)."""
_SUGGESTION = "Remove it, or have a human confirm that this code must do it."


def hitter(t: AddedText, path: str) -> Callable[[Severity, str, int, str], Hit]:
    """A maker of findings at an offset of ``t`` (its line, and the line quoted)."""

    def hit(severity: Severity, title: str, offset: int, why: str) -> Hit:
        return Hit(
            severity,
            title,
            f"{why} Line: `{t.at(offset)}`",
            _SUGGESTION,
            file=path,
            line=t.line(offset),
        )

    return hit


def _found(pattern: re.Pattern[str], text: str) -> int | None:
    """Where ``pattern`` is in ``text``; a credential file is also found in the parts of a
    path given one by one (``path.join(home, ".aws", "credentials")``)."""
    found = pattern.search(text)
    if found is not None:
        return found.start()
    if pattern is not STOLEN_FILE:
        return None
    found = pattern.search(_PATH_PARTS.sub("/", text))
    if found is None:
        return None
    first = found.group(0).strip("/\\").split("/")[0]
    return max(0, text.find(first))


def sql_hits(t: AddedText, path: str) -> Iterator[Hit]:
    """The SQL a source file runs from its string literals (a migration's way back aside; a
    test's fixtures that empty tables are not read)."""
    back = way_back(t) if MIGRATION_PATH.search(path) else None
    yield from sql_literals(t, hitter(t, path), way_back=back)


def code_effects(file: FileDiff, path: str) -> Iterator[Hit]:
    """Every effect ``file`` (a source file in another language at ``path``) shows."""
    t = AddedText(file)
    text = t.text
    hit = hitter(t, path)
    network = _NETWORK.search(text)
    connect = _CONNECT.search(text)
    shell = _SHELL.search(text)
    if connect and shell and _WIRED.search(text):
        yield hit(
            Severity.CRITICAL,
            "reverse shell: a shell wired to a network connection",
            shell.start(),
            "The code connects out and hands the connection to a shell: whoever listens "
            "there controls this machine.",
        )
    if connect and not shell and _RECEIVED_EVAL.search(text):
        yield hit(
            Severity.CRITICAL,
            "evaluates code received over a network connection",
            connect.start(),
            "The code connects out and runs what the other end sends: whoever listens there "
            "controls this process.",
        )
    encoded_payload = bool(_LONG_LITERAL.search(text) and _DECODE.search(text))
    downloads = bool(_DOWNLOAD.search(text))
    for m in _EVAL.finditer(text):
        if encoded_payload or _DECODE.search(text, m.end(), m.end() + _WINDOW):
            yield hit(
                Severity.CRITICAL,
                "evaluates code decoded from a literal",
                m.start(),
                "Code hidden in an encoded string is decoded and run: what runs is not "
                "what a reviewer reads.",
            )
            break
        if downloads:
            yield hit(
                Severity.CRITICAL,
                "evaluates code it downloads",
                m.start(),
                "Code fetched at run time is evaluated: whoever serves it runs code here.",
            )
            break
    names = input_names(text)  # read once for every check of request input below
    backticks = other_code(path) in ("Ruby", "PHP", "Perl", "Julia")
    sink = input_reaches_sink(text, backticks=backticks, names=names)
    if sink is not None:
        yield hit(
            Severity.CRITICAL,
            "runs a command built from a web request's input",
            sink,
            "Anyone who can send the request chooses the command (remote code execution).",
        )
    web = list(web_harms(text, names))
    for offset, severity, title, why in web:
        yield hit(severity, title, offset, why)
    joined = built_sql(text) if not any("SQL" in h[2] for h in web) else None
    if joined is not None:
        yield hit(
            Severity.HIGH,
            "SQL built from values joined into its text",
            joined,
            "A value joined or interpolated into a query is read as SQL: whoever chooses the "
            "value can change the query (SQL injection). Bind it as a parameter.",
        )
    built = built_at_run_time(text) if sink is None else None
    if built is not None:
        offset, what = built
        yield hit(
            Severity.HIGH,
            f"{'starts a command' if what == 'command' else 'evaluates code'} built at run time",
            offset,
            "What it runs is put together when the code runs, so no local check can read it; "
            "a human (or an LLM layer) decides.",
        )
    for pattern, networked, severity, title, why in _PLAIN_RULES:
        at = _found(pattern, text)
        if at is not None and (network or not networked):
            yield hit(severity, title, at, why)
    for offset, (_, severity, title, why) in code_harms(text):
        yield hit(severity, title, offset, why)
    if other_code(path) == "PowerShell":
        for offset, (_, severity, title, why) in powershell_harms(text):
            yield hit(severity, title, offset, why)
    if not is_test_path(path):
        yield from sql_hits(t, path)
    if network:
        yield from urls(t, hit)
    if not is_test_path(path):
        yield from hidden_urls(t, hit)
    if not is_test_path(path):
        found = (
            _BACKDOOR.search(text)
            or _BACKDOOR_FLIPPED.search(text)
            or _MAGIC_VALUE.search(text)
            or _HASHED_SECRET.search(text)
        )
        if found:
            yield hit(
                Severity.HIGH,
                "a password or token compared with a literal (backdoor shape)",
                found.start(),
                "A fixed value that unlocks the check is a way in for whoever knows it.",
            )
