"""Options and environment variables whose value is a command (``tar --checkpoint-action=
exec=…``, ``rsync -e``, ``ssh -o ProxyCommand=``, ``git -c core.pager=``, ``PAGER=``, ``sed
'1e …'``), following the GTFOBins catalogue's "Shell" and "Command" entries, and the reader
that takes those commands out of a command's words."""

from __future__ import annotations

import re

from .shell_catalogue import words

__all__ = [
    "COMMAND_OPTIONS",
    "ENV_COMMANDS",
    "OPTION_KEYS",
    "command_values",
    "git_args",
    "git_config_setting",
    "runs_value",
    "sed_commands",
]


# program → options whose value is a command run by a shell (value split on the first ``=``
# for ``--opt=value`` forms); ``-o ProxyCommand=…`` style keys are in OPTION_KEYS.
COMMAND_OPTIONS: dict[str, frozenset[str]] = {
    name: frozenset(options.split())
    for name, options in {
        "tar": "--checkpoint-action -I --use-compress-program --to-command --rsh-command "
        "--info-script -F --new-volume-script",
        "zip": "-TT --unzip-command",
        "rsync": "-e --rsh --rsync-path",
        "cpio": "--rsh-command",
        "scp": "-S",
        "sftp": "-S -D",
        "git": "--upload-pack --receive-pack --extcmd",
        "vim": "-c --cmd",
        "man": "-P --pager -H --html",
        "gdb": "-ex --eval-command -iex",
        "nmap": "--script",
        "mysql": "-e --execute",
        "psql": "-c --command",
        "sqlite3": "-cmd",
        "openvpn": "--up --down --route-up --ipchange --tls-verify --client-connect "
        "--auth-user-pass-verify --learn-address",
        "tcpdump": "-z",
        "emacs": "--eval",
        "make": "--eval",
        "dc": "-e --expression",
        "lftp": "-c",
        "rpm": "--eval --pipe -E",
        "rpmdb": "--eval",
        "rpmquery": "--eval",
        "rpmverify": "--eval",
        "split": "--filter",
        "aria2c": "--on-download-complete --on-download-error --on-download-start "
        "--on-download-stop --on-bt-download-complete",
        "yt-dlp": "--exec --exec-before-download",
        "scrot": "-e --exec",
        "enscript": "-I --filter",
        "fzf": "--bind --preview",
        "certbot": "--pre-hook --post-hook --deploy-hook --manual-auth-hook",
        "msgfilter": "-P",
        "restic": "--password-command",
        "sshfs": "-o",
        "pidstat": "-e",
        "latexmk": "-latex -pdflatex -e",
        "sqlmap": "--eval",
        "gimp": "-b --batch",
        "busctl": "--address",
        "gem": "-e",
        "hg": "--config",
        "check_by_ssh": "-o",
        "mail": "--exec -E",
        "c89": "-wrapper",
        "c99": "-wrapper",
        "gcc": "-wrapper",
        "cc": "-wrapper",
        "rake": "-p -e",
        "puppet": "-e",
        "logrotate": "-m",
        "exiftool": "-if",
        "genie": "-c",
        "zic": "-y",
        "borg": "--rsh",
        "dnsmasq": "--conf-script",
        "mosh": "--server",
        "minicom": "-S",
        "wget": "--use-askpass",
        "pip": "--editor",
        "neofetch": "--config --ascii",
        "pandoc": "-L --lua-filter",
        "cowsay": "-f",
        "cowthink": "-f",
        "dosbox": "-c",
        "bat": "--pager",
        "batcat": "--pager",
        "delta": "--pager",
    }.items()
}


OPTION_KEYS = re.compile(
    r"^(?:proxycommand|localcommand|knownhostscommand|core\.(?:pager|sshcommand|editor|"
    r"fsmonitor|hookspath)|sequence\.editor|diff\.external|pager\.\w+|alias\.[\w-]+|"
    r"credential\.helper|uploadpack\.packobjectshook|ssh_command|"
    r"apt::update::(?:pre|post)-invoke(?:-success)?::?|dpkg::(?:pre|post)-invoke::?|"
    r"dpkg::pre-install-pkgs::?|ui\.editor|ui\.merge)$",
    re.IGNORECASE,
)
"""``-o Key=Value`` / ``-c key=value`` settings (ssh, git, apt, hg) whose value is a command."""


ENV_COMMANDS = words(
    """
    PAGER GIT_PAGER MANPAGER SYSTEMD_PAGER EDITOR VISUAL GIT_EDITOR SYSTEMD_EDITOR
    GIT_SSH_COMMAND GIT_SSH GIT_EXTERNAL_DIFF LESSOPEN LESSCLOSE PROMPT_COMMAND BASH_ENV ENV
    CRASHPAGER SUDO_ASKPASS SSH_ASKPASS GIT_ASKPASS RESTIC_PASSWORD_COMMAND BROWSER
    TAR_OPTIONS RSYNC_RSH FCEDIT SUDO_EDITOR
    """
)
"""Environment variables whose value a program runs as a command."""


def _normalise(value: str) -> list[str]:
    """A command-valued option's value as command texts to read."""
    texts = [value]
    for pattern in (
        r"^(?:exec|exec-silent)=(.*)$",
        r"(?:execute(?:-silent|-multi)?|reload|become)\((.*)\)",
        r"^[!|](.*)$",
        r"^%\((.*)\)$",
    ):
        m = re.search(pattern, value, re.DOTALL)
        if m:
            texts.append(m.group(1))
    if value.startswith("unixexec:"):
        parts = re.findall(r"(?:path|argv\d+)=('[^']*'|[^,]*)", value)
        texts.append(" ".join(parts))
    if "," in value and " " not in value.split(",")[0]:
        texts.append(value.replace(",", " "))
    return texts


_SED_ADDRESS = re.compile(
    r"^\s*(?:(?:\d+|\$|/(?:[^/\\]|\\.)*/)(?:\s*,\s*(?:\d+|\$|/(?:[^/\\]|\\.)*/))?!?)?\s*"
)


def sed_commands(argv: list[str]) -> list[str]:
    """The commands a sed script runs: the ``e`` command (``1e id``) and the ``e`` flag of
    ``s///e`` (its replacement runs); a bare ``e`` runs the input lines themselves."""
    scripts = [argv[i + 1] for i, w in enumerate(argv[:-1]) if w in ("-e", "--expression")]
    if not scripts:
        scripts = [w for w in argv[1:] if not w.startswith("-")][:1]
    out: list[str] = []
    for script in scripts:
        for piece in re.split(r"[;\n]", script):
            body = _SED_ADDRESS.sub("", piece, count=1).lstrip("{ ")
            m = re.match(r"^e(?:\s+(.*))?$", body)
            if m:
                out.append(m.group(1) or "sh")
            s = re.match(r"^s(.)((?:(?!\1).)*)\1((?:(?!\1).)*)\1[gpiIm\d]*e", body)
            if s:
                out.append(s.group(3) or "sh")
    return out


_GIT_GLOBAL_VALUED = words("-C -c --git-dir --work-tree --namespace --exec-path --config-env")
"""git's global options that take the next word as their value."""
_CONFIG_VALUED = words("-f --file --blob --type --default --comment")
_CONFIG_READS = words(
    """
    --get --get-all --get-regexp --get-urlmatch --list -l --unset --unset-all --remove-section
    --rename-section --edit -e --show-origin --show-scope --name-only get list unset edit
    remove-section rename-section
    """
)


def runs_value(key: str, value: str) -> bool:
    """Whether setting ``key`` to ``value`` makes a program run it as a command: a git alias
    only when it starts with ``!`` (otherwise it names a git subcommand)."""
    if not OPTION_KEYS.match(key):
        return False
    return not key.lower().startswith("alias.") or value.lstrip().startswith("!")


def git_args(argv: list[str]) -> list[str]:
    """git's words from its subcommand on (global options dropped)."""
    i = 1
    while i < len(argv) and argv[i].startswith("-"):
        i += 2 if argv[i] in _GIT_GLOBAL_VALUED else 1
    return argv[i:]


def git_config_setting(argv: list[str]) -> tuple[str, str] | None:
    """The key and value a ``git config`` command line writes (``git config --global
    core.pager 'sh -c …'``, ``git config set alias.x '!…'``); ``None`` for any other git
    command, a read, an unset or a setting without a value."""
    args = git_args(argv)
    if args[:1] != ["config"]:
        return None
    rest = args[1:]
    if rest[:1] == ["set"]:
        rest = rest[1:]
    plain: list[str] = []
    skip = False
    for word in rest:
        if skip:
            skip = False
        elif word in _CONFIG_READS:
            return None
        elif word in _CONFIG_VALUED:
            skip = True
        elif not word.startswith("-") or word == "-":
            plain.append(word)
    if len(plain) < 2:
        return None
    return plain[0], plain[1]


_SCRIPT_VALUES = words(
    """
    vim gdb mysql psql sqlite3 lftp dc emacs rpm rpmdb rpmquery rpmverify sqlmap gimp
    exiftool rake puppet make mail latexmk
    """
)
"""Programs whose command-valued options hold their own language (SQL, ex commands, macros),
read for escapes and code only, never as a shell command line."""


def command_values(
    name: str, argv: list[str], assigns: list[tuple[str, str]]
) -> list[tuple[str, bool]]:
    """The command texts a program takes from its options (``--checkpoint-action=exec=…``,
    ``-o ProxyCommand=…``, ``-c core.pager=…``) and from the environment it is given
    (``PAGER=…``, ``GIT_SSH_COMMAND=…``), each with whether it is a shell command line."""
    options = COMMAND_OPTIONS.get(name, frozenset())
    shell = name not in _SCRIPT_VALUES
    found: list[tuple[str, bool]] = [(v, True) for k, v in assigns if k in ENV_COMMANDS]
    if name == "sed":
        found.extend((v, True) for v in sed_commands(argv))
    values: list[str] = []
    settings: list[str] = []
    n = len(argv)
    for i in range(1, n):
        word = argv[i]
        opt, eq, value = word.partition("=")
        if word in options and i + 1 < n:
            values.append(argv[i + 1])
        elif eq and opt in options:
            values.append(value)
        elif not eq and not word.startswith("--") and word[:2] in options and len(word) > 2:
            values.append(word[2:])
        setting = None
        if word in ("-o", "-c", "--config") and i + 1 < n:
            setting = argv[i + 1]
        elif word.startswith("-o") and len(word) > 2:
            setting = word[2:]
        elif name == "sysctl" and "core_pattern=" in word:
            setting = word
        if setting is not None:
            parts = re.split(r"[=\s]", setting, maxsplit=1)
            key, value = (parts[0], parts[1]) if len(parts) == 2 else (parts[0], "")
            if runs_value(key.strip(), value) or key.endswith("core_pattern"):
                settings.append(value)
    found.extend((v, shell) for v in values)
    if name == "make":  # ``--eval`` makefile text: its recipe lines run in a shell
        found.extend(
            (line.lstrip("\t").lstrip("-@+"), True)
            for v in values
            for line in v.split("\n")[1:64]
            if line.startswith("\t")
        )
    if name == "git" and (written := git_config_setting(argv)) is not None:
        key, value = written
        if runs_value(key, value):  # ``git config core.pager …``: git runs it later
            settings.append(value)
    found.extend((v, True) for v in settings)
    return [(text, sh) for value, sh in found for text in _normalise(value) if text.strip()]
