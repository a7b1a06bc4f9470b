"""A web request's input naming the file a server opens or the address it fetches, in a source
file of another language (read as text by ``source_web``; Python's taint engine reads Python):

- a file opened, served, included or removed by a path the request chose: ``readfile('/up/' .
  $f)``, ``include $page . '.php'``, ``PhysicalFile(Path.Combine(root, file))``,
  ``http.ServeFile(w, r, name)``, ``res.sendFile(req.query.p)`` (path traversal, file inclusion);
- an address fetched from the server when the request chose it: ``http.Get(target)``,
  ``fetch(req.query.url)``, ``file_get_contents($url)`` (server-side request forgery). An
  address whose scheme and host are written in the code, with only its path taken from the
  request, is not this.

Only the call's own arguments are read (up to its closing parenthesis, or the end of the
statement), so input used elsewhere in the file does not count. A path reduced to its last
part (``basename``, ``Path.GetFileName``, ``filepath.Base``) is not a traversal. Names are
matched, not resolved (``request_input``).
"""

from __future__ import annotations

import re

from .request_input import REQUEST_INPUT

__all__ = ["input_fetched", "input_opened"]

_MAX_ARGUMENTS = 400

_FILE_SINK = re.compile(
    r"(?<![\w.$>])(?:readfile|file_get_contents|fopen|file|unlink|file_put_contents|"
    r"highlight_file|show_source|fpassthru)\s*\(|"
    r"(?<![\w$>])(?:include|require)(?:_once)?\b\s*(?=[(\s\"'$_A-Za-z])|"
    r"\b(?:PhysicalFile|VirtualFile|File\.(?:ReadAll(?:Text|Bytes|Lines)|OpenRead|Open|Delete|"
    r"ReadLines)(?:Async)?|new\s+FileStream|new\s+FileInfo|new\s+StreamReader)\s*\(|"
    r"\b(?:os\.(?:Open|OpenFile|ReadFile|Remove|RemoveAll)|ioutil\.ReadFile|http\.ServeFile|"
    r"c\.(?:File|FileAttachment|SendFile))\s*\(|"
    r"\b(?:fs|fsp|fs\.promises)\.(?:readFile|readFileSync|createReadStream|unlink|unlinkSync|"
    r"rm|rmSync|open|openSync)\s*\(|\bres\.(?:sendFile|download)\s*\(|"
    r"\bnew\s+(?:File|FileInputStream|FileReader)\s*\(|\bFiles\.(?:readAll\w*|newInputStream|"
    r"delete\w*|lines)\s*\(|\b(?:File|IO)\.(?:read|open|binread|readlines|delete)\s*\(|"
    r"\bsend_file\s*\(?|\bstd::fs::(?:read\w*|remove\w*)\s*\(|\bfs::(?:read\w*|remove\w*)\s*\(|"
    r"\bTokio::fs::\w+\s*\(|\bNamedFile::open\s*\("
)
"""Calls that open, serve, include or remove a file by the path they are given."""

_FETCH = re.compile(
    r"\bhttp\.(?:Get|Post|Head|PostForm|NewRequest(?:WithContext)?)\s*\(|"
    r"\bclient\.(?:Get|Post|Head)\s*\(|(?<![\w.$])fetch\s*\(|"
    r"\baxios(?:\.(?:get|post|put|request|head))?\s*\(|(?<![\w.$])got(?:\.\w+)?\s*\(|"
    r"(?<![\w.$>])(?:file_get_contents|curl_init|fopen)\s*\(|CURLOPT_URL\s*,|"
    r"\.(?:GetAsync|GetStringAsync|GetStreamAsync|GetByteArrayAsync|PostAsync|SendAsync)\s*\(|"
    r"\bnew\s+URL\s*\((?=[^;\n]{0,300}\)\.open(?:Connection|Stream)\()|\.getForObject\s*\(|\.getForEntity\s*\(|"
    r"\bNet::HTTP\.(?:get|get_response|post)\s*\(|\bURI\.open\s*\(|\bHTTParty\.\w+\s*\(|"
    r"\breqwest::get\s*\(|\bFaraday\.(?:get|post)\s*\(|\bWebClient\(\)\.Download\w*\s*\("
)
"""Calls that fetch an address from the server."""

_REDUCED = re.compile(
    r"\bbasename\s*\(|\bPath\.GetFileName\s*\(|\bfilepath\.Base\s*\(|\bpath\.basename\s*\(|"
    r"\bFile\.basename\s*\(|\.getFileName\(\)|\bsecure_filename\s*\("
)
"""A path cut to its last part: no ``..`` survives."""

_FIXED_HOST = re.compile(
    r"^\s*(?:[\"'`]\s*(?:https?:)?//[A-Za-z0-9.-]+(?::\d+)?(?:/|[\"'`])|"
    r"[`\"']?\$?\{?\s*(?:[A-Z][A-Z0-9_]{2,40}|\w*(?:base_?url|BaseUrl|baseURL|api_?base|"
    r"ApiBase|endpoint|Endpoint|host|Host)\w*)\s*\}?\s*(?:[+.]|[`\"']|\})|"
    r"(?:fmt\.Sprintf|String\.format|string\.Format)\(\s*[\"']https?://[A-Za-z0-9.-]+/)"
)
"""An address that starts with its scheme and host written out, or with a constant or a
configured base: only its path can be the request's."""

_LOCAL_PATH = re.compile(r"\s*[\"'](?:/(?!/)|\.{1,2}/)")
"""A path on this machine written out: a file read, not an address fetched."""

_CLOSERS = {"(": ")", "[": "]", "{": "}"}


def _arguments(text: str, start: int) -> str:
    """The text of a call's arguments from ``start`` (after its name): to the parenthesis that
    closes it, or to the end of the statement when it has none (``include $x;``)."""
    depth: list[str] = [")"] if start and text[start - 1] == "(" else []
    end = min(len(text), start + _MAX_ARGUMENTS)
    for i in range(start, end):
        ch = text[i]
        if ch in _CLOSERS:
            depth.append(_CLOSERS[ch])
        elif depth and ch == depth[-1]:
            depth.pop()
            if not depth:
                return text[start : i + 1]
        elif not depth and ch in ";\n":
            return text[start:i]
    return text[start:end]


def _tainted(arguments: str, known: re.Pattern[str] | None) -> bool:
    return bool(REQUEST_INPUT.search(arguments) or (known is not None and known.search(arguments)))


def input_opened(text: str, known: re.Pattern[str] | None) -> int | None:
    """The offset of a file opened, served, included or removed by a path that a request's
    input (or a name ``known`` finds) is part of, else ``None``."""
    for m in _FILE_SINK.finditer(text):
        if not _tainted(text[m.end() : m.end() + _MAX_ARGUMENTS], known):
            continue  # most calls: the walk to the closing parenthesis is not needed
        arguments = _arguments(text, m.end())
        if _tainted(arguments, known) and not _REDUCED.search(_with_given(text, arguments, known)):
            return m.start()
    return None


def input_fetched(text: str, known: re.Pattern[str] | None) -> int | None:
    """The offset of an address fetched from the server when a request's input (or a name
    ``known`` finds) chooses its host, else ``None``."""
    for m in _FETCH.finditer(text):
        if not _tainted(text[m.end() : m.end() + _MAX_ARGUMENTS], known):
            continue
        arguments = _arguments(text, m.end())
        if _tainted(arguments, known) and not _fixed_host(text, arguments, known):
            return m.start()
    return None


def _fixed_host(text: str, arguments: str, known: re.Pattern[str] | None) -> bool:
    """Whether the address in ``arguments`` starts with a host the code chose (or is a local
    path): written there, or in the assignment of the name it passes (``url := base + id``)."""
    if _FIXED_HOST.search(arguments) or _LOCAL_PATH.match(arguments):
        return True
    first = re.match(r"\s*\$?([A-Za-z_]\w{0,40})", arguments)
    if first is None or known is None or not known.fullmatch(first.group(1)):
        return False
    given = _given(text, first.group(1))
    return given is not None and bool(_FIXED_HOST.search(given))


def _given(text: str, name: str) -> str | None:
    """What ``name`` is first given in ``text`` (``name = …``, ``$name = …``, ``name := …``)."""
    found = re.search(
        rf"(?<![\w.])\$?{re.escape(name)}\s*(?::\s*[\w<>]{{1,30}}\s*)?(?::=|=)(?![=>])\s*"
        r"([^;\n]{0,300})",
        text,
    )
    return found.group(1) if found is not None else None


def _with_given(text: str, arguments: str, known: re.Pattern[str] | None) -> str:
    """``arguments`` with what each input name in them was given (a name may hold the input
    already cut to its last part: ``$f = basename($_GET['f'])``)."""
    if known is None:
        return arguments
    given = (_given(text, m.group(0)) for m in known.finditer(arguments))
    return " ".join([arguments, *(g for g in given if g is not None)])
