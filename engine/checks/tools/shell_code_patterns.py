"""The patterns ``shell_code`` reads interpreter code with: what it does that the shell rules
cannot see (sockets, a listening port, a shell spawned, HTTP, ``eval``, decoding, file reads, a
server, set-uid, native libraries, fork bombs, files put by FTP, TeX input) and the table that
writes file and directory calls as the shell command that does the same
(``shutil.rmtree("/")`` → ``rm -rf /``).
"""

from __future__ import annotations

import re

__all__ = [
    "DECODE",
    "EVAL",
    "FILE_CALLS",
    "FILE_READ",
    "FORK",
    "HTTP",
    "LIBRARY",
    "LISTEN",
    "PUT",
    "SERVE",
    "SETUID",
    "SOCKET",
    "SPAWN",
    "TEX_INPUT",
]

SOCKET = re.compile(
    r"\bsocket\b|fsockopen|TCPSocket|IO::Socket|Socket::|\bnet\.(?:Socket|connect|"
    r"createConnection)|/inet/tcp|s_client|TCPServer|UDPSocket|java\.net\.Socket|"
    r"\bsocket\.|new\s+Socket|Net::Telnet|socat|/dev/tcp/|\bSockets\b",
    re.IGNORECASE,
)
LISTEN = re.compile(r"\.bind\(|\blisten\(|TCPServer|createServer|ServerSocket|/inet/tcp/\d+/0/0")
SPAWN = re.compile(
    r"dup2|pty\.spawn|\bpty\b|/bin/\w*sh\b|[\"'](?:ba|z|da)?sh[\"']|cmd\.exe|subprocess|"
    r"\bexec\b|\bsystem\b|popen|proc_open|spawn|child_process|shell_exec|passthru|\|&\s*getline|"
    r"\brun\(|\bread\(`"
)
HTTP = re.compile(
    r"urlopen|urlretrieve|requests\.\w+\(|http\.client|HTTPConnection|urllib|\bfetch\(|"
    r"https?\.(?:get|request)\(|Net::HTTP|LWP|HTTP::Tiny|file_get_contents\(\s*[\"']https?:|"
    r"require\([\"']https?[\"']\)|net/http|http\.Post|File::Fetch|"
    r"curl_exec|open-uri|URI\.open|\bwget\b|WebClient|DownloadString|Invoke-WebRequest"
)
EVAL = re.compile(r"\b(?:exec|eval|Function|compile|instance_eval|class_eval|load)\s*\(")
DECODE = re.compile(
    r"b64decode|base64|decode\(\s*[\"'](?:hex|base64|rot13|rot_13)|fromhex|unhexlify|"
    r"zlib\.decompress|\batob\(|Buffer\.from\([^)]*base64|unpack\(|marshal\.loads|"
    r"codecs\.decode|gzinflate|str_rot13|pack\(\s*[\"']H",
    re.IGNORECASE,
)
FILE_READ = re.compile(
    r"open\([^)]*\)\.read|readFile|File\.read|file_get_contents|IO\.read|"
    r"read_text|read_bytes|slurp|<\$\w+>|fread\(|createReadStream|"
    r":read\(|io\.open|\.read\(\)|os\.ReadFile|ioutil\.ReadFile"
)
SERVE = re.compile(
    r"http\.server|SimpleHTTPServer|socketserver|WEBrick|HTTP::Server|"
    r"createServer\(|\bhttpd\b|serve_forever|ServerSocket|ListenAndServe"
)
TEX_INPUT = re.compile(r"\\(?:verbatim)?input\{([^}]{1,500})\}|\\openin\d*\s*=?\s*([^\s}]+)")
PUT = re.compile(r"^\s*m?put\s+\S", re.MULTILINE)
SETUID = re.compile(
    r"set(?:res|re)?[ug]id\(\s*0|\$[<>]\s*=\s*0|Process::Sys\.set\w*id\(\s*0|"
    r"process\.set[ug]id\(\s*0|POSIX::set[ug]id\(\s*0"
)
LIBRARY = re.compile(
    r"cdll\.LoadLibrary|\bCDLL\(|ctypes\.\w+\.LoadLibrary|dlopen|Fiddle|ffi\.load|DynaLoader|"
    r"System\.load(?:Library)?|load_extension|enable\s+-f"
)
FORK = re.compile(
    r"fork\s+while\s+fork|while\s*\(?\s*(?:True|1|true)\s*\)?\s*[:{]?\s*(?:os\.)?fork\(|"
    r"for\s*\(\s*;\s*;\s*\)\s*\{?\s*fork\(|loop\s*\{\s*fork"
)
FILE_CALLS = (
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
