"""What a web application's source in another language does with what its users send, read as
text by ``source_code`` (beside commands built from a request, ``request_input``):

- objects rebuilt from a request's bytes (``unserialize``, ``Marshal.load``, Java's
  ``ObjectInputStream``, .NET's ``BinaryFormatter``…): the sender's code runs;
- SQL put together from a request's input, in the calls that skip parameters by design
  (``sql.unsafe``, ``$queryRawUnsafe``) or in a query string built by joining or templating;
- a file opened, or an address fetched, by what the request names (``request_files``);
- HTML rendered raw (``dangerouslySetInnerHTML``, ``v-html``, ``{@html}``, ``html_safe``…) in a
  file that sanitises nothing.

Names are matched, not resolved (see ``request_input``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from humangr.contracts import Severity

from .request_files import input_fetched, input_opened
from .request_input import REQUEST_INPUT, input_reaches_deserializer, name_pattern

__all__ = ["web_harms"]

_WINDOW = 400
_NATIVE_DESERIALISER = re.compile(
    r"\bnew\s+(?:ObjectInputStream|XMLDecoder|BinaryFormatter|SoapFormatter|"
    r"NetDataContractSerializer|LosFormatter|ObjectStateFormatter)\s*\("
)
_READS_OBJECT = re.compile(r"\.readObject\s*\(|\.Deserialize\s*\(|\.readObject\b")
"""Serialisers that rebuild any class they are told to (Java's and .NET's native formats)."""
_WEB_HANDLER = re.compile(
    r"@(?:Post|Get|Put|Patch|Delete|Request)Mapping\b|@RestController\b|@Controller\b|"
    r"\bHttpServletRequest\b|@RequestBody\b|\[Http(?:Post|Get|Put|Patch|Delete)\b|"
    r"\bControllerBase\b|\bApiController\b|\bHttpRequest\b|\bMapPost\s*\("
)
"""A file that handles web requests (Spring, servlets, ASP.NET)."""
_UNSAFE_SQL = re.compile(
    r"\bsql\.unsafe\s*\(|\$(?:queryRaw|executeRaw)Unsafe\s*\(|\bsequelize\.query\s*\(\s*`|"
    r"\.(?:raw|whereRaw|orderByRaw|selectRaw|havingRaw)\s*\(\s*`[^`]*\$\{|"
    r"\bDB::(?:raw|select|statement|unprepared)\s*\(\s*\"[^\"]*\$"
)
_SQL_START = r"\s*(?:SELECT\s+.{1,200}?\s+FROM|INSERT\s+INTO|UPDATE\s+\S+\s+SET|DELETE\s+FROM)\b"
_SQL_TEXT = re.compile(
    rf'"{_SQL_START}[^"\n]{{0,400}}"?|\'{_SQL_START}[^\'\n]{{0,400}}\'?|`{_SQL_START}[^`]{{0,400}}`?',
    re.IGNORECASE,
)
"""A string literal (with its closing quote when it has one nearby) that starts a query."""
_JOINED = re.compile(r"\s*(?:\+|\.|\.\.|<>)\s*\$?([A-Za-z_][\w.\[\]\"':]{0,80})")
"""A name joined to the end of a string: ``"…" + name``, ``"…" . $name``, ``"…" .. name``."""
_INTERPOLATED = re.compile(
    r"\$\{\s*([A-Za-z_][\w.\[\]\"':]{0,80})\s*\}|#\{\s*([A-Za-z_][\w.\[\]\"':]{0,80})\s*\}|"
    r"(?<=[^\\])\$([A-Za-z_]\w{0,40})"
)
"""A name put inside a string: ``${name}``, Ruby's ``#{name}``, PHP's and Perl's ``$name``."""
_FORMATTED = re.compile(r"\{\s*([A-Za-z_][\w.\[\]\"':]{0,80})\s*\}")
"""A name put inside C#'s ``$"…{name}…"``."""
_RAW_HTML = re.compile(
    r"dangerouslySetInnerHTML\s*=|\bv-html\s*=|\{@html\s|\.html_safe\b|<%==|\braw\s*\(?\s*@|"
    r"\bHtml\.Raw\s*\(|\{!!\s*\$|\|\s*safe\b|\.innerHTML\s*=|\bbypassSecurityTrust\w*\s*\("
)
_SANITISED = re.compile(
    r"(?i)sanitiz|sanitis|DOMPurify|\bpurify\b|\bbleach\b|\bxss\(|escapeHtml|\bescape\(|"
    r"\bstrip_tags\b|HtmlEncode|\bmarked\b[^\n]{0,60}sanitize|rehype-sanitize"
)


def web_harms(text: str, names: set[str]) -> Iterator[tuple[int, Severity, str, str]]:
    """Each harm in a source file's added ``text`` (``names``: what ``input_names`` gives a
    request's input there): its offset, severity, title and why."""
    known = name_pattern(names)
    rebuilt = input_reaches_deserializer(text, names)
    if rebuilt is not None:
        yield (
            rebuilt,
            Severity.CRITICAL,
            "rebuilds objects from a web request's input (unsafe deserialisation)",
            "Serialised objects from a cookie or parameter run the sender's code when rebuilt.",
        )
    native = None if rebuilt is not None else _NATIVE_DESERIALISER.search(text)
    if native is not None and _READS_OBJECT.search(text) and _WEB_HANDLER.search(text):
        yield (
            native.start(),
            Severity.HIGH,
            "rebuilds native objects in a web handler (unsafe deserialisation)",
            "A serialiser that rebuilds any class runs the sender's code when what it reads "
            "came from a request; it is never safe on input.",
        )
    joined = _sql_from_input(text, known)
    if joined is not None:
        yield (
            joined,
            Severity.HIGH,
            "builds SQL from a web request's input (SQL injection)",
            "Whoever sends the request writes part of the query; bind parameters instead.",
        )
    opened = input_opened(text, known)
    fetched = input_fetched(text, known)
    if opened is not None and opened != fetched:  # PHP's file_get_contents($url) fetches
        yield (
            opened,
            Severity.HIGH,
            "opens a file by a path from a web request (path traversal)",
            "Whoever sends the request chooses the file (``../`` climbs out of the folder): "
            "reduce the name to its last part or check the resolved path stays inside.",
        )
    if fetched is not None:
        yield (
            fetched,
            Severity.HIGH,
            "fetches an address from a web request (server-side request forgery)",
            "Whoever sends the request makes the server fetch any address, internal services "
            "and the cloud metadata endpoint included: allow only known hosts.",
        )
    raw = _RAW_HTML.search(text)
    if raw is None or _SANITISED.search(text):
        return
    if REQUEST_INPUT.search(text):
        yield (
            raw.start(),
            Severity.HIGH,
            "renders request data as raw HTML (cross-site scripting)",
            "Markup from a request or a user is rendered unescaped: its scripts run in every "
            "visitor's browser.",
        )
    elif _USER_CONTENT.search(text):
        yield (
            raw.start(),
            Severity.HIGH,
            "renders user-written content as raw HTML (cross-site scripting)",
            "What users wrote is rendered unescaped: their scripts run in every visitor's browser.",
        )


_USER_CONTENT = re.compile(
    r"(?i)\b(?:review|comment|message|bio|description|post|reply|body)\w*\s*[.\[]\s*"
    r"(?:body|text|content|html|message)\b|\b(?:searchParams|location\.(?:search|hash)|"
    r"useSearchParams|router\.query|\$route\.query)\b"
)
"""What users wrote (a review's body, a comment's text) or put in the address."""


def _sql_from_input(text: str, known: re.Pattern[str] | None) -> int | None:
    """The offset of SQL built from a request's input (or a name ``known`` finds), else
    ``None``."""

    def tainted(value: str) -> bool:
        return bool(REQUEST_INPUT.search(value) or (known is not None and known.search(value)))

    for m in _UNSAFE_SQL.finditer(text):
        if tainted(text[m.start() : m.end() + _WINDOW]):
            return m.start()
    for m in _SQL_TEXT.finditer(text):
        literal, start = m.group(0), m.start()
        before = text[start - 1] if start else ""
        if literal.startswith("`") and (before.isalnum() or before in "_)"):
            continue  # a tagged template (postgres.js ``sql`…```, Prisma.sql): parameters
        found = [g for j in _INTERPOLATED.finditer(literal) for g in j.groups() if g]
        if literal.startswith('"') and before == "$":
            found += [j.group(1) for j in _FORMATTED.finditer(literal)]
        joined = _JOINED.match(text, m.end(), m.end() + 120)
        if joined is not None:
            found.append(joined.group(1))
        if any(tainted(name) for name in found):
            return start
    return None
