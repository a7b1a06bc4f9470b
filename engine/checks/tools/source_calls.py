"""File calls of source files in other languages, written as the shell command that does the
same so the shell rules judge them: writes (``fs.writeFileSync("/etc/sudoers.d/x", …)``,
``os.WriteFile``, ``file_put_contents``, ``File.AppendAllText`` → ``tee -a PATH``) and
recursive deletes of the home folder or the root (``os.RemoveAll(os.Getenv("HOME"))``,
``FileManager.default.removeItem(at: home)`` with ``home`` the user's home, ``Directory.Delete
(Environment.GetFolderPath(…UserProfile), true)`` → ``rm -rf ~``; a delete beside a listing
of home: its contents), a storage bucket deleted through an SDK (``aws s3 rb``). Also Rust's
``concat!`` of literals, folded to the one literal it makes. Pure, bounded, never raises."""

from __future__ import annotations

import re
import shlex

__all__ = ["file_commands", "folded_concat", "wrapper_calls"]

_MAX = 32
_WINDOW = 300
_WRITE = re.compile(
    r"(?:file_put_contents|writeFileSync|appendFileSync|writeFile|appendFile|WriteFile|"
    r"WriteAllText|AppendAllText|WriteAllLines|AppendAllLines|AppendText|CreateText|"
    r"fs::write|File\.write|File\.open|IO\.write|Files\.write(?:String)?|Files\.newBufferedWriter|"
    r"FileWriter|FileOutputStream|fopen|os\.OpenFile|os\.Create|ioutil\.WriteFile|"
    r"OpenOptions::new\(\)[^;]{0,120}?\.open|File::create|createFile|write\(\s*to:)"
    r"\(?\s*(?:Paths\.get\(|Path\.of\(|new\s+File\(|URL\(fileURLWithPath:\s*|@)?\s*"
    r"[\"']([^\"'\n]{1,300})[\"']"
)
_DELETE = re.compile(
    r"(?:RemoveAll|remove_dir_all|removeItem|Directory\.Delete|deleteDirectory|"
    r"deleteRecursively|rm_rf|rm_r|rmtree|rmSync|rimraf|rmdirSync|FileUtils\.rm|"
    r"FileSystem\.DeleteDirectory|walkFileTree|removeDirectoryRecursive|removePathForcibly|"
    r"del_dir_r|delete-tree|deleteTree|removeDir|unlink|removeItemAtPath)\s*\(|"
    r"\brm\(\s*(?=[^)]{0,200}recursive\s*=\s*true)"
)
_HOME = re.compile(
    r"os\.UserHomeDir\(\)|[Gg]etenv\(\s*\"(?:HOME|USERPROFILE)\"\s*\)|homeDirectoryForCurrentUser|"
    r"NSHomeDirectory\(\)|getProperty\(\s*\"user\.home\"\s*\)|SpecialFolder\.(?:UserProfile|"
    r"Personal|MyDocuments)|home_dir\(\)|Dir\.home|ENV\[\s*[\"']HOME[\"']\s*\]|os\.homedir\(\)|"
    r"process\.env\.HOME|\$_SERVER\[\s*[\"']HOME[\"']\s*\]|[\"']~/?[\"']|getHomeDirectory|"
    r"homedir\(\)|ENV\[\s*\"HOME\"\s*\]|os:getenv\(\s*\"HOME\"|getHomeDir\(\)|path\.expand\(\s*[\"']~"
)
_ROOT = re.compile(r"""\(\s*(?:@|URL\(fileURLWithPath:\s*)?["'](?:/|[A-Za-z]:\\\\?)["']""")
_NAMED = re.compile(
    r"(?:\b(?:let|var|const|val|auto|string|String|my|local)\s+(?:mut\s+)?|^[ \t]*)"
    r"\$?(\w{1,40})\s*(?::\s*[\w<>?\[\]]{1,40}\s*)?:?=\s*([^;\n]{1,300})",
    re.MULTILINE,
)
_LISTING = re.compile(
    r"contentsOfDirectory\(|os\.ReadDir\(|ioutil\.ReadDir\(|readdirSync\(|readdir\(|"
    r"Dir\.(?:children|entries|glob)\(|listFiles\(|Files\.(?:list|walk)\(|"
    r"Directory\.(?:GetFiles|GetDirectories|EnumerateFileSystemEntries)\(|fs::read_dir\(|"
    r"scandir\(|glob\("
)
"""Calls that list a folder: deleting what one lists from home is deleting home."""
_BUCKET_DELETE = re.compile(
    r"\b(?:deleteBucket|DeleteBucket|DeleteBucketCommand|delete_bucket)\s*\("
)
_ONE_LITERAL = re.compile(
    r"""(?:new\s+File\(|Path\.of\(|Paths\.get\(|@)?\s*["']([^"'\n]{1,300})["']\)?"""
)
_TARGET = re.compile(
    r"""\(\s*(?:&|at:\s*|new\s+File\(\s*|Path\.of\(\s*|Paths\.get\(\s*|@)?\s*"""
    r"""(?:["']([^"'\n]{1,300})["']|([A-Za-z_]\w{0,40})\b)"""
)
"""A delete call's first argument: a literal path, or a name (given a literal path above)."""
_CONCAT = re.compile(r"concat!\(\s*((?:\"(?:[^\"\\]|\\.)*\"\s*,?\s*){1,64})\)")
_PIECE = re.compile(r"\"((?:[^\"\\]|\\.)*)\"")


def folded_concat(code: str) -> str:
    """``code`` with each ``concat!("cu", "rl …")`` of literals written as one literal."""
    if "concat!" not in code:
        return code
    return _CONCAT.sub(lambda m: '"' + "".join(_PIECE.findall(m.group(1))) + '"', code)


def file_commands(code: str) -> list[tuple[int, str]]:
    """The writes and the recursive deletes of home or root in ``code``, as shell commands,
    each with its offset."""
    out: list[tuple[int, str]] = []
    for m in _WRITE.finditer(code):
        out.append((m.start(), f"tee -a {shlex.quote(m.group(1))}"))
        if len(out) >= _MAX:
            return out
    homes = [m.group(1) for m in _NAMED.finditer(code) if _HOME.search(m.group(2))][:16]
    home_names = re.compile(r"\b(?:" + "|".join(map(re.escape, homes)) + r")\b") if homes else None

    def at_home(region: str) -> bool:
        return bool(_HOME.search(region) or (home_names is not None and home_names.search(region)))

    listed_home = any(
        at_home(code[m.end() - 1 : m.end() + _WINDOW]) for m in _LISTING.finditer(code)
    )
    literals = {
        m.group(1): literal.group(1)
        for m in _NAMED.finditer(code)
        if (literal := _ONE_LITERAL.fullmatch(m.group(2).strip())) is not None
    }
    for m in _DELETE.finditer(code):
        region = code[m.end() - 1 : m.end() + _WINDOW]
        target = _TARGET.match(region)
        if _ROOT.match(region):
            out.append((m.start(), "rm -rf /"))
        elif at_home(region) or listed_home:
            out.append((m.start(), "rm -rf ~"))
        elif target is not None and (path := target.group(1) or literals.get(target.group(2))):
            out.append((m.start(), f"rm -rf {shlex.quote(path)}"))
        if len(out) >= _MAX:
            break
    for m in _BUCKET_DELETE.finditer(code):
        out.append((m.start(), "aws s3 rb s3://bucket --force"))
        break
    return out


_WRAPPER = re.compile(
    r"(?:\b(?:func|function|def|fn|fun|sub|static\s+\w+|void|string|String)\s+([A-Za-z_]\w{0,40})"
    r"|\b(?:const|let|var)\s+([A-Za-z_]\w{0,40})\s*=\s*(?:async\s*)?)"
    r"\s*\(\s*&?\$?([A-Za-z_]\w{0,40})(?:\s*:?\s+&?\$?([A-Za-z_][\w\[\]<>]{0,40}))?"
)
"""A function and its first parameter (``name string``, ``string name``, ``name: &str``)."""
_STARTS = re.compile(
    r"(?:exec\.Command(?:Context)?\(\s*(?:ctx\s*,\s*)?|Command::new\(\s*&?|ProcessBuilder\(\s*|"
    r"(?<![\w.])(?:spawn|spawnSync|execFile|execFileSync|execa|system|popen)\(\s*|"
    r"Process\.(?:Start|run|start)\(\s*|System\.cmd\(\s*)([A-Za-z_]\w{0,40})\b"
)


def wrapper_calls(code: str) -> list[tuple[int, str, str]]:
    """The calls of a helper that starts the program it is given (``func run(name string,
    args ...string) { exec.Command(name, args...) }``): each call's offset, the helper's name
    and the call's argument text — the program and arguments it will run."""
    helpers: dict[str, str] = {}
    for m in _WRAPPER.finditer(code):
        helper, parameters = m.group(1) or m.group(2), {m.group(3), m.group(4)}
        body = code[m.end() : m.end() + 1_500]
        if any(start.group(1) in parameters for start in _STARTS.finditer(body)):
            helpers[helper] = m.group(3)
        if len(helpers) >= 8:
            break
    if not helpers:
        return []
    calls = re.compile(
        r"(?<![\w.])(" + "|".join(map(re.escape, helpers)) + r")\(([^()\n]{0,500})\)"
    )
    out: list[tuple[int, str, str]] = []
    for m in calls.finditer(code):
        if (
            not code[max(0, m.start() - 20) : m.start()]
            .rstrip()
            .endswith(("func", "function", "def", "fn", "fun"))
        ):
            out.append((m.start(), m.group(1), m.group(2)))
        if len(out) >= _MAX:
            break
    return out
