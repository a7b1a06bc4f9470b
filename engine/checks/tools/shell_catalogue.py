"""Data the shell reader and rules share: shells, interpreters and the options that carry
their code, and programs that run another command (launchers: ``sudo``, ``env``, ``timeout``,
``xargs``, …), with how to find the command in their words; ``program`` names a command word.

Escape options of ordinary binaries are in ``shell_options``, which programs do what in
``shell_binaries``, places and secrets in ``shell_paths`` (all following the public GTFOBins
catalogue, generalised: a binary is listed with what makes it run a command, and the rules
read that command like any other).
"""

from __future__ import annotations

import re

__all__ = [
    "CODE_FLAGS",
    "INTERPRETERS",
    "LAUNCHERS",
    "RUNNER_VERBS",
    "SHELLS",
    "SHELL_PATH",
    "Launcher",
    "program",
    "words",
]


def words(text: str) -> frozenset[str]:
    """The whitespace-separated words of ``text``: compact data for the sets below."""
    return frozenset(text.split())


SHELLS = words(
    """
    sh bash dash zsh ksh mksh pdksh csh tcsh ash fish yash rbash posh sash elvish pwsh
    powershell rc nu xonsh oksh loksh hush ginsh tasksh scsh
    """
)
SHELL_PATH = re.compile(
    r"/bin/(?:ba|da|z|k|mk|pdk|c|tc|a|fi|ya|rba|po|sa)?sh\b|/bin/(?:elvish|pwsh|busybox)\b"
)
"""An interactive shell's path anywhere in a word: ``exec=/bin/sh``, ``system("/bin/bash")``."""

# name → the options that carry code (the next word, or joined ``-eCODE``)
CODE_FLAGS: dict[str, tuple[str, ...]] = {
    "python": ("-c",),
    "perl": ("-e", "-E"),
    "ruby": ("-e",),
    "node": ("-e", "-p", "--eval", "--print"),
    "deno": ("eval",),
    "bun": ("-e", "--eval"),
    "php": ("-r",),
    "lua": ("-e",),
    "rscript": ("-e",),
    "r": ("-e",),
    "julia": ("-e", "--eval"),
    "jrunscript": ("-e",),
    "groovy": ("-e",),
    "scala": ("-e",),
    "osascript": ("-e",),
    "guile": ("-c",),
    "racket": ("-e",),
    "sbcl": ("--eval",),
    "clisp": ("-x",),
    "ghc": ("-e",),
    "erl": ("-eval",),
    "elixir": ("-e",),
    "swipl": ("-g",),
    "slsh": ("-e",),
    "octave": ("--eval",),
    "expect": ("-c",),
    "knife": ("-E",),
    "latexmk": ("-e",),
    "perlbug": ("-e",),
    "tclsh": (),
    "wish": (),
    "jjs": (),
    "irb": (),
    "pry": (),
    "jshell": (),
    "ghci": (),
    "awk": (),
    "gdb": ("-ex", "--eval-command", "-iex"),
    "pdb": (),
    "ts-node": ("-e",),
    "tex": (),
    "latex": (),
    "pdflatex": (),
    "xelatex": (),
    "lualatex": (),
    "luatex": (),
    "pdftex": (),
    "xetex": (),
    "etex": (),
}
"""TeX engines take their document as an operand starting with ``\\``."""
INTERPRETERS = frozenset(CODE_FLAGS) | frozenset({"pypy", "ipython", "rake", "cpan", "sqlmap"})

_VERSIONED = re.compile(r"^(python|pypy|perl|ruby|php|lua|luajit|node|tclsh|wish)[\d.]*$")
_ALIASES = {
    "gawk": "awk",
    "mawk": "awk",
    "nawk": "awk",
    "nodejs": "node",
    "luajit": "lua",
    "octave-cli": "octave",
    "nc.traditional": "nc",
    "nc.openbsd": "nc",
    "netcat": "nc",
    "vi": "vim",
    "nvim": "vim",
    "rvim": "vim",
    "view": "vim",
    "rview": "vim",
    "vimdiff": "vim",
    "ex": "vim",
    "sudoedit": "sudo",
    "pip3": "pip",
    "python3-m": "python",
    "rbash": "bash",
    "iwr": "curl",
    "invoke-webrequest": "curl",
    "wget2": "wget",
    "mysqlsh": "mysql",
    "mariadb": "mysql",
    "docker-compose": "docker",
    "podman": "docker",
    "nerdctl": "docker",
    "kubectl.exe": "kubectl",
    "oc": "kubectl",
    "gsutil.py": "gsutil",
    "awk.exe": "awk",
    "ksh93": "ksh",
    "busybox.static": "busybox",
}


def program(word: str) -> str:
    """The program a command word names: basename, lower case, versions and aliases folded
    (``/usr/bin/python3.11`` → ``python``, ``gawk`` → ``awk``)."""
    if word in ("$SHELL", "${SHELL}", "$0"):
        return "sh"
    name = word.rsplit("/", 1)[-1].rsplit("\\", 1)[-1].lower()
    if name.endswith(".exe"):
        name = name[:-4]
    m = _VERSIONED.match(name)
    if m:
        name = m.group(1)
    return _ALIASES.get(name, name)


class Launcher:
    """A program that runs the command in its own arguments: the options that take a value,
    how many operands come before the command, and the options whose value is a command
    string (``su -c``)."""

    __slots__ = ("operands", "string_options", "valued")

    def __init__(self, valued: str = "", operands: int = 0, string_options: str = "") -> None:
        self.valued = frozenset(valued.split())
        self.operands = operands
        self.string_options = frozenset(string_options.split())


_SLURM = (
    "-p -t -J -o -e -N -n -c -A -q -w -x -D --partition --time --job-name --output --error "
    "--nodes --ntasks --cpus-per-task --account --qos --mem --mem-per-cpu --gres --array "
    "--dependency --nodelist --exclude --chdir --constraint --reservation --mail-type --mail-user"
)
"""Options of Slurm's ``srun``, ``salloc`` and ``sbatch`` that take a value (``sbatch
--wrap=CMD`` runs CMD in a shell; ``srun CMD`` runs CMD on the cluster)."""

LAUNCHERS: dict[str, Launcher] = {
    "sudo": Launcher("-u -g -C -D -h -p -r -t -T -U --user --group --chdir --prompt --host"),
    "doas": Launcher("-u -C"),
    "su": Launcher("-s --shell -g -G -w", 0, "-c --command"),
    "runuser": Launcher("-u -g -G -s -w --user --group", 0, "-c --command"),
    "pkexec": Launcher("--user"),
    "run0": Launcher("-u --user -g --group -D --chdir --setenv --unit --property --slice"),
    "sg": Launcher("", 1, "-c"),
    "env": Launcher("-u -C -S --unset --chdir --split-string"),
    "nohup": Launcher(),
    "nice": Launcher("-n --adjustment"),
    "ionice": Launcher("-c -n -p -P -u --class --classdata"),
    "timeout": Launcher("-s -k --signal --kill-after", 1),
    "taskset": Launcher("", 1),
    "chrt": Launcher("", 1),
    "choom": Launcher("-n -p"),
    "stdbuf": Launcher("-i -o -e --input --output --error"),
    "strace": Launcher("-o -e -p -s -u -a -b -E -I -O -P -S -X"),
    "ltrace": Launcher("-o -e -p -s -u -a -A -D -F -l -n -x"),
    "valgrind": Launcher("--tool --log-file"),
    "time": Launcher("-f -o --format --output"),
    "watch": Launcher("-n -d -q --interval --differences"),
    "flock": Launcher("-w -E --timeout --conflict-exit-code", 1, "-c --command"),
    "setlock": Launcher("", 1),
    "setsid": Launcher(),
    "unshare": Launcher("--mount-proc --propagation --setgroups --map-user --map-group"),
    "nsenter": Launcher("-t -S -G --target --setuid --setgid -m -u -i -n -p -U -C -r -w"),
    "chroot": Launcher("--userspec --groups", 1),
    "capsh": Launcher(),
    "setarch": Launcher("", 1),
    "linux32": Launcher(),
    "linux64": Launcher(),
    "logsave": Launcher("", 1),
    "rlwrap": Launcher("-a -b -f -H -l -P -p -S -z -C"),
    "script": Launcher("-t -T -I -O -B -E -m --timing --log-in --log-out", 0, "-c --command"),
    "start-stop-daemon": Launcher("-n -u -g -p -c -d -r -N -k --name --user --chuid"),
    "firejail": Launcher("--profile --name"),
    "torsocks": Launcher(),
    "torify": Launcher(),
    "proxychains": Launcher("-f"),
    "proxychains4": Launcher("-f"),
    "faketime": Launcher("-f", 1),
    "numactl": Launcher(),
    "prlimit": Launcher("-p"),
    "cpulimit": Launcher("-l -p -e --limit --pid"),
    "catchsegv": Launcher(),
    "dbus-launch": Launcher(),
    "xvfb-run": Launcher("-a -n -s -e"),
    "unbuffer": Launcher(),
    "chronic": Launcher(),
    "ifne": Launcher(),
    "eatmydata": Launcher(),
    "caffeinate": Launcher("-t -w"),
    "gtimeout": Launcher("-s -k --signal --kill-after", 1),
    "systemd-inhibit": Launcher("--what --who --why --mode"),
    "dbus-run-session": Launcher("--config-file --dbus-daemon"),
    "sem": Launcher("-j --id --jobs"),
    "tsp": Launcher("-L -D -N"),
    "nq": Launcher(),
    "softlimit": Launcher("-m -a -d -s -l -f -c -o -p -t -r"),
    "pexec": Launcher(),
    "srun": Launcher(_SLURM),
    "salloc": Launcher(_SLURM),
    "sbatch": Launcher(_SLURM, 0, "--wrap"),
    "multitime": Launcher("-n"),
    "aa-exec": Launcher("-p -n"),
    "aoss": Launcher(),
    "sshpass": Launcher("-p -f -d -e"),
    "ssh-agent": Launcher("-a -t -E"),
    "distcc": Launcher(),
    "grc": Launcher(),
    "fakeroot": Launcher(),
    "exec": Launcher("-a"),
    "command": Launcher(),
    "builtin": Launcher(),
    "nocorrect": Launcher(),
    "busybox": Launcher(),
    "ld.so": Launcher(),
    "ld-linux.so.2": Launcher(),
    "ld-linux-x86-64.so.2": Launcher(),
    "xdotool": Launcher(),
    "perf": Launcher("-e -o", 1),
    "systemd-run": Launcher("-p -u -E --unit --property --setenv --uid --gid"),
    "bundle": Launcher("", 1),
    "bundler": Launcher("", 1),
    "poetry": Launcher("", 1),
    "pipenv": Launcher("", 1),
    "uv": Launcher("", 1),
    "cabal": Launcher("", 1),
    "npx": Launcher("-p --package", 0, "-c --call"),
    "pipx": Launcher("", 1),
    "yarn": Launcher("--cwd", 1),
    "npm": Launcher("-C --prefix -w", 1, "-c --call"),
    "pnpm": Launcher("-C --dir -w", 1),
    "tmate": Launcher("-S", 0, "-c"),
    "parallel": Launcher("-j -S --jobs"),
    "mpirun": Launcher("-np -n -H"),
    "nix-shell": Launcher("-p -I", 0, "--run --command"),
    "direnv": Launcher("", 2),
    "dotenv": Launcher("-f -e"),
    "aws-vault": Launcher("", 2),
    "op": Launcher("--env-file", 1),
    "doppler": Launcher("-p -c --project --config", 1),
    "trap": Launcher(),
    "ip": Launcher("-n", 3),
    "task": Launcher("", 1),
    # ``-i``, ``-e``, ``-l`` and ``--replace`` take their value attached or not at all
    # (``xargs -i rm -rf {}`` runs rm): they are not valued here.
    "xargs": Launcher(
        "-a -d -E -I -L -n -P -s --arg-file --delimiter --max-args --max-procs"
        " --max-lines --max-chars"
    ),
}
"""Launchers whose remaining words are a command; ``trap``'s first operand is a command
string, read by the unwrapper like ``eval``."""

# The subcommand a project runner needs before its command (``bundle exec cmd``).
RUNNER_VERBS: dict[str, frozenset[str]] = {
    "bundle": frozenset({"exec"}),
    "bundler": frozenset({"exec"}),
    "poetry": frozenset({"run"}),
    "pipenv": frozenset({"run"}),
    "uv": frozenset({"run"}),
    "cabal": frozenset({"exec"}),
    "yarn": frozenset({"exec"}),
    "pipx": frozenset({"run"}),
    "direnv": frozenset({"exec"}),
    "aws-vault": frozenset({"exec"}),
    "op": frozenset({"run"}),
    "doppler": frozenset({"run"}),
    "ip": frozenset({"netns"}),
    "task": frozenset({"execute"}),
    "npm": frozenset({"exec", "x"}),
    "pnpm": frozenset({"exec", "dlx"}),
    "perf": frozenset({"stat", "record", "trace"}),
}
