"""Safeguards switched off from the command line:

- a commit or push told to skip the repository's secret scanning (``SKIP=gitleaks git
  commit``: pre-commit's ``SKIP`` naming a secret or key detector), or all its hooks on a push
  to a shared branch (``HUSKY=0 git push origin main``, as ``--no-verify`` there);
- Azure storage opened to anonymous readers (``az storage container set-permission
  --public-access container``, ``az storage account update --allow-blob-public-access true``);
- interpreter code run inline that sends the whole environment to an address
  (``python3 -c "…urlopen(url, data=json.dumps(dict(os.environ)))"``), as a file of that code
  would be (``source_forward``).

Everyday neighbours run: ``SKIP=mypy git commit`` (a slow linter skipped), ``HUSKY=0 npm ci``,
``--public-access off``, code that reads one variable.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from humangr.contracts import Severity

from ..source_forward import forwards_everything
from .shell_model import Cmd
from .shell_rule_kit import Context, Flag, critical, high, rule

__all__ = ["azure_storage_public", "environment_sent", "hooks_skipped"]

_SECRET_HOOK = re.compile(
    r"(?i)(?:^|[,\s])[\w-]*(?:leaks|secret|private[-_]key|credential|trufflehog|talisman|"
    r"ggshield|gitguardian|detect[-_]aws|aws[-_]credentials|ripsecrets|noseyparker)[\w-]*"
)
_HOOKS_OFF = re.compile(r"^(?:HUSKY=0|HUSKY_SKIP_HOOKS=(?:1|true)|LEFTHOOK=0|PRE_COMMIT=0)$")
_SHARED = re.compile(
    r"^(?:HEAD:)?(?:refs/heads/)?(?:main|master|trunk|develop|release(?:[/_-].*)?|prod|"
    r"production|stable|live)$"
)
_AZ_PUBLIC = re.compile(
    r"(?i)--public-access(?:=|\s+)(?:blob|container)\b|"
    r"--allow-blob-public-access(?:=|\s+)(?:true|yes|1)\b"
)
_CODE_RUNNERS = re.compile(r"^(?:python[\d.]*|pypy\d*|node|nodejs|deno|bun|ruby|perl|php)$")
_MAX = 8_000


def _git_verb(cmd: Cmd) -> tuple[str, list[str]]:
    """The git subcommand of ``cmd`` and the words after it (``-C dir``/``-c k=v`` skipped)."""
    argv = cmd.argv
    i = 1
    while i < len(argv) and argv[i].startswith("-"):
        i += 2 if argv[i] in ("-C", "-c", "--git-dir", "--work-tree") else 1
    return (argv[i], argv[i + 1 :]) if i < len(argv) else ("", [])


@rule
def hooks_skipped(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """A commit or push with secret-scanning hooks skipped, or every hook skipped on a push to
    a shared branch."""
    if cmd.name != "git" or not cmd.assigns:
        return
    verb, rest = _git_verb(cmd)
    if verb not in ("commit", "push", "merge", "cherry-pick", "rebase", "am"):
        return
    for name, value in cmd.assigns:
        if name == "SKIP" and _SECRET_HOOK.search(value[:400]):
            yield high(
                "skips the repository's secret scanning",
                cmd.text,
                f"SKIP={value[:60]} turns off the hooks that stop keys and passwords from "
                "being committed, on this very commit.",
                "Commit with the hooks on; if a finding is wrong, allow that one finding.",
            )
            return
        branches = [w.split(":")[-1] for w in rest if not w.startswith("-")][1:]
        if (
            verb == "push"
            and _HOOKS_OFF.match(f"{name}={value}")
            and any(_SHARED.match(b) for b in branches)
        ):
            yield high(
                "pushes to a shared branch without its hooks",
                cmd.text,
                f"{name}={value} skips the checks the repository runs before a push.",
                "Push with the hooks on, or through a pull request.",
            )
            return


@rule
def azure_storage_public(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """Azure storage opened to anonymous readers."""
    if cmd.name != "az" or "storage" not in cmd.argv[1:3]:
        return
    text = " ".join(cmd.argv)[:_MAX]
    if _AZ_PUBLIC.search(text):
        yield high(
            "opens up storage to everyone",
            cmd.text,
            "anonymous public access lets anyone on the internet read (and with a container "
            "level, list) the blobs it holds.",
            "Share with a SAS token or a private endpoint; ask a human for public access.",
        )


@rule
def environment_sent(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """Inline interpreter code that sends the whole environment to an address."""
    if not _CODE_RUNNERS.match(cmd.name.rsplit("/", 1)[-1]):
        return
    code = "\n".join(cmd.argv[1:])[:_MAX]
    found = forwards_everything(code)
    if found is None:
        return
    _, severity, title, why = found
    make = critical if severity is Severity.CRITICAL else high
    yield make(title, cmd.text, why, "Send only the values the receiver needs, to its own host.")
