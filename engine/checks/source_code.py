"""``source-code``: what a source file in another language (JavaScript, TypeScript, Go, Rust,
Java, Ruby, PHP, C#, …; see ``languages``) can do to the machine it runs on and to the data it
reaches, beyond the commands it starts (``shell-script`` judges those, read by
``source_commands.code_commands``) and the secrets it holds (``secret``):

- a shell wired to a network connection (a reverse shell);
- code decoded from a literal, or downloaded, and then evaluated;
- a command built from a web request's input;
- the whole environment, or a credential file, sent over the network;
- a crypto-miner (its pool or its program);
- (TLS checks turned off are ``tls-verification``'s, in every language;)
- a request to a capture, paste or out-of-band site, a cloud metadata endpoint or a raw
  public IP address, from code that talks to the network;
- a password or token compared with a literal (a hard-coded backdoor), outside tests;
- a command or code it builds at run time (``run_time``): not readable here, so a human
  decides when no LLM reviews it;
- in settings files, a protection switched off or a backdoor switched on
  (``config_switches``);
- in any file, a guard's threshold moved by an order of magnitude or a condition replaced by
  a constant (``guard_edits``).
- in an agent instruction file (``AGENTS.md``, ``CLAUDE.md``, …), a standing instruction to act
  without a person's approval, go around hooks or review, or hide what is done
  (``agent_notes``).
- in a permission policy written as JSON or YAML, a statement that grants every action, all of
  IAM, all of one service on every resource, or opens a resource to anyone
  (``iam_policy_files``).

SQL files and manifests are read by ``build_files``.

Only the added lines are read, as text: names are matched, not resolved, and logic is not
read (a missing authorisation check, an injection built by concatenation).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterator

from .agent_notes import agent_notes_weakened
from .alerts_muted import alerts_muted, audit_muted
from .base import CheckInput, Hit, is_test_path
from .build_files import MANIFESTS, AddedText, manifest, migration
from .config_code_switches import code_settings_switched
from .config_files import config_file, config_kind
from .config_flips import settings_flipped
from .config_scanners import scanner_blinded
from .config_switches import SETTINGS_EXTENSIONS, settings_switched
from .db_guard_off import production_guard_off
from .dep_lookalike import dependency_lookalike
from .dep_pins import dependency_unpinned
from .deploy_files import deploy_hits, deploy_path
from .diff import FileDiff
from .guard_edits import guard_edits
from .guard_refusal import refusal_logged
from .iam_policy_files import policy_file_hits
from .languages import MIGRATION_EXTENSIONS, other_code
from .source_effects import code_effects, hitter, sql_hits
from .source_forward import forwards_everything, personal_bucket
from .source_harm import (
    SQL_RULES,
    Rule,
    manifest_harms,
    searched,
)
from .source_strings import hidden_urls, sql_literals, urls

__all__ = ["source_code"]

_PY_NETWORK = re.compile(
    r"\b(?:requests|httpx|aiohttp|urllib3?|urllib\.request|http\.client|ftplib|smtplib|boto3)\b"
)
"""A Python file that talks to the network."""


def source_code(ctx: CheckInput) -> Iterator[Hit]:
    """The findings of every added source file in another language, of SQL files, manifests
    and host and server configuration (``config_files``: units, crontabs, web servers,
    Terraform)."""
    for file in ctx.files:
        path = file.path
        if path and not file.deleted and posixpath.splitext(path.lower())[1] in SETTINGS_EXTENSIONS:
            yield from settings_switched(file, path)
            yield from settings_flipped(file, path)
        elif path and not path.startswith("<") and not file.deleted:
            yield from code_settings_switched(file, path)
            yield from settings_flipped(file, path)  # a mode constant in code flipped too
        if path and not path.startswith("<"):
            yield from guard_edits(file, path)
            yield from refusal_logged(file, path)
            yield from dependency_unpinned(file, path)
            yield from dependency_lookalike(file, path)
            yield from audit_muted(file, path)
            yield from alerts_muted(file, path)
            yield from production_guard_off(file, path)
            yield from scanner_blinded(file, path)
            yield from agent_notes_weakened(file, path)
            yield from policy_file_hits(file, path)
        if path and config_kind(path) is not None:  # a deleted Terraform file is read too
            yield from config_file(
                file, path, allowed_hosts=ctx.options.allowed_hosts, change=ctx.files
            )
            continue
        if not path or path.startswith("<") or file.deleted or not file.added:
            continue
        extension = posixpath.splitext(path.lower())[1]
        if other_code(path) is not None:
            yield from code_effects(file, path)
        elif extension in MIGRATION_EXTENSIONS:
            yield from migration(file, path)
            yield from _harms(file, path, lambda text: searched(text, SQL_RULES))
        elif extension in (".yaml", ".yml") or deploy_path(path):
            yield from _harms(file, path, manifest_harms, sql=True)
            yield from deploy_hits(file, path, allowed_hosts=ctx.options.allowed_hosts)
        elif extension == ".py" and not is_test_path(path):  # its code is the Python checks'
            yield from _python(file, path)
        if other_code(path) is not None or (extension == ".py" and not is_test_path(path)):
            yield from _forwards(file, path)
        if posixpath.basename(path) in MANIFESTS:
            yield from manifest(file, path)


def _forwards(file: FileDiff, path: str) -> Iterator[Hit]:
    """Code that sends its whole environment, or a web request's whole input, away."""
    t = AddedText(file)
    for found in (forwards_everything(t.text), personal_bucket(t.text)):
        if found is not None:
            offset, severity, title, why = found
            yield hitter(t, path)(severity, title, offset, why)


def _harms(
    file: FileDiff,
    path: str,
    find: Callable[[str], Iterator[tuple[int, Rule]]],
    *,
    sql: bool = False,
) -> Iterator[Hit]:
    """The harms ``find`` sees in ``file``'s added text; with ``sql``, the SQL in its string
    literals too (a job's ``psql -c "DELETE FROM …"``)."""
    t = AddedText(file)
    hit = hitter(t, path)
    for offset, (_, severity, title, why) in find(t.text):
        yield hit(severity, title, offset, why)
    if sql:
        yield from sql_literals(t, hit, way_back=None)


def _python(file: FileDiff, path: str) -> Iterator[Hit]:
    """What the text of a Python file shows beside its own checks: the SQL its literals run,
    an address it holds only encoded."""
    t = AddedText(file)
    yield from sql_hits(t, path)
    yield from hidden_urls(t, hitter(t, path))
    if _PY_NETWORK.search(t.text):  # where its requests go (a paste site, a metadata address)
        yield from urls(t, hitter(t, path))
