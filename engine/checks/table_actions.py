"""The local checks of tool calls and of what a change removes, exposes or runs: tool-call
consequences, shell, SQL, HTTP and file operations, data egress, source in other languages,
CI workflows."""

from __future__ import annotations

from humangr.contracts import LayerID

from . import auth_checks, change_risks, ci_workflow, exposure, source_code
from .base import Check
from .tools import consequence, egress, generic, http, paths, prose, shell, sql

__all__ = ["ACTION_CHECKS"]

L = LayerID
ACTION_CHECKS: tuple[Check, ...] = (
    Check(
        L.HL4,
        "tool-call",
        "Tool-call arguments cut to fit the size limit (not fully reviewed)",
        ("humangr",),
        "high",
        generic.tool_call,
    ),
    Check(
        L.HL4,
        "change-risk",
        "Changes that remove or expose rather than run: migrations dropping tables or columns, "
        "Kubernetes workloads given the host, Terraform open to the internet or unprotected "
        "from deletion, production settings weakened, lockfiles fetching a package from a host "
        "that is no package index",
        ("humangr",),
        "high",
        change_risks.risky_settings,
    ),
    Check(
        L.HL4,
        "credential-upload",
        "Python code that reads a credential file and talks to the network",
        ("humangr",),
        "critical in setup.py, conftest.py and other files Python runs by itself; high elsewhere",
        change_risks.credential_upload,
    ),
    Check(
        L.HL4,
        "auth-weakened",
        "Authentication checks removed or short-circuited by a change; token signatures no "
        "longer verified",
        ("humangr",),
        "critical (a token's signature unchecked), high (a check removed or made constant)",
        auth_checks.auth_weakened,
    ),
    Check(
        L.HL4,
        "exposure",
        "Access granted to anyone (a public principal, allUsers, anonymous groups, public-read), "
        "recovery cut (objects expired within days, retention set to zero, versioning "
        "suspended, an encryption key destroyed), a second package index added "
        "(--extra-index-url) or an index over plain HTTP, a typosquatted package installed — in "
        "the added lines of any file and in every argument of other tool calls",
        ("humangr",),
        "high",
        exposure.exposure,
    ),
    Check(
        L.HL4,
        "tool-consequence",
        "Tools whose call has consequences outside the workspace, by name and arguments: a "
        "container given the host's root or privileges, money moved or priced, production "
        "changed, DNS changed, a protection overridden (admin_override, skip_checks), data "
        "made public or shared with a personal mailbox, sign-in weakened or reset, "
        "administrators made, accounts deleted, whole datasets exported, whole audiences "
        "messaged, monitoring muted",
        ("humangr",),
        "critical (the host's root in a container, every document of a collection deleted), "
        "high (the others)",
        consequence.consequential,
    ),
    Check(
        L.HL4,
        "tool-message",
        "The prose a message, ticket, comment or page sends: credentials written out, sign-in "
        "links with their tokens, requests for passwords or gift cards, image links that "
        "carry data away, mail copied or routed to a personal mailbox",
        ("humangr",),
        "critical (a structured credential or service token), high (the others)",
        prose.message_risks,
    ),
    Check(
        L.HL4,
        "tool-shell",
        "Shell commands of tool calls (string or argv, and shell embedded in any argument): "
        "destruction, remote code, reverse shells, GTFOBins escapes, secret reads, exfiltration, "
        "persistence, privilege escalation, hiding traces",
        ("humangr",),
        "critical (irreversible or hostile), high (risky but legitimate; a command that cannot "
        "be read)",
        shell.shell_command,
        claim="dangerous shell commands in tool calls",
        limits="see docs/tool-calls.md",
    ),
    Check(
        L.HL4,
        "shell-script",
        "The same shell checks on shell scripts, Dockerfile RUN lines, Makefile recipes and CI "
        "workflow run steps of a change",
        ("humangr",),
        "as tool-shell",
        shell.shell_scripts,
    ),
    Check(
        L.HL4,
        "source-code",
        "Source files in other languages (JavaScript, TypeScript, Go, Rust, Java, Ruby, PHP, "
        "C#, PowerShell, …): reverse shells, code decoded, downloaded or received and then "
        "evaluated, commands, SQL and deserialisation fed a web request's input, user content "
        "rendered as raw HTML, the environment or credential files sent out, miners, capture "
        "sites and raw IPs, autostart entries, shell profiles and authorized_keys written, "
        "passwordless root, browser password stores, tokens trusted unverified, destructive SQL "
        "in strings, databases deleted with no snapshot, passwords and request values compared "
        "with literals, names spelt backwards, dependencies from bare addresses, commands or "
        "code built at run time; SQL files' destructive statements and COPY … PROGRAM; "
        "Kubernetes manifests (cluster control to anonymous users, miners); systemd units, "
        "crontabs, web servers and Terraform (config_files; the commands such files start: "
        "shell-script)",
        ("humangr",),
        "critical (shells, payloads, exfiltration, miners, deserialisation), high (backdoor "
        "shape, injection, a migration that destroys data, a raw IP, built at run time, an open "
        "port)",
        source_code.source_code,
        limits="text-level: names are matched, not resolved; logic (a missing authorisation "
        "check, a value that flows through functions) is not read",
    ),
    Check(
        L.HL4,
        "ci-workflow",
        "CI workflows beyond their run steps (GitHub Actions, GitLab CI): a pull request's code "
        "checked out in a pull_request_target, workflow_run or issue_comment workflow (pwn "
        "request); outsiders' text (titles, bodies, comments, branch names, commit messages) "
        "pasted into a run script by ${{ … }}; write-all, or contents and id-token write in a "
        "privileged workflow; secrets sent by a step's network command or the whole secrets "
        "context used; third-party actions pinned to a branch; self-hosted runners for pull "
        "requests; GitLab includes fetched from an address",
        ("humangr",),
        "critical (a pull request's code run with the secrets, a secret sent in a request's "
        "body, piped, through a raw socket or to a capture site, toJSON(secrets) in a script), "
        "high (script injection, a gated pwn request, write-all where outsiders start the "
        "workflow, contents and id-token write in a privileged one, a secret in another host's "
        "URL, toJSON(secrets) outside a script), medium (write-all elsewhere, actions on a "
        "branch, self-hosted runners for pull requests, remote GitLab includes)",
        ci_workflow.ci_workflows,
        limits="text-level YAML reading: what an action does with its inputs, steps' outputs "
        "carrying outsiders' text, artifacts of a pull request's run used by a privileged one, "
        "secrets sent in a header to another host or by github-script are not read; CircleCI, "
        "Azure, Jenkins and other CI systems are not read (without an LLM they are not "
        "reviewed)",
    ),
    Check(
        L.HL4,
        "tool-sql",
        "SQL of tool calls: destructive statements, DELETE/UPDATE without WHERE (or one that "
        "keeps nearly every row), privilege changes, stacked statements, tautologies, comment "
        "truncation, bulk credential reads; a document store's delete with an empty filter",
        ("humangr",),
        "critical (destruction, injection shapes), high (risky but legitimate)",
        sql.sql_statement,
        claim="destructive and injected SQL in tool calls",
        limits="see docs/tool-calls.md",
    ),
    Check(
        L.HL4,
        "tool-http",
        "HTTP requests of tool calls: cloud metadata, raw and private addresses, paste and "
        "request-capture sites, destructive verbs on known APIs",
        ("humangr",),
        "critical (metadata, capture sites), high (raw addresses, destructive verbs)",
        http.http_request,
        claim="server-side request forgery and destructive API calls in tool calls",
        limits="see docs/tool-calls.md",
    ),
    Check(
        L.HL4,
        "tool-file",
        "File operations of tool calls: paths outside the workspace, system and credential "
        "paths, VCS hooks, CI workflows, shell profiles, systemd and cron, authorized_keys",
        ("humangr",),
        "critical (credentials, persistence, system files written or deleted), high (outside "
        "the workspace)",
        paths.file_paths,
        claim="file operations on protected paths in tool calls",
        limits="see docs/tool-calls.md",
    ),
    Check(
        L.HL6,
        "data-egress",
        "Secrets and personal data (bulk e-mail addresses, card numbers, national ids) sent by "
        "HTTP or e-mail to a host or domain that is not allowed; a service's token (read by its "
        "prefix) sent to a host that is not its service or only looks like it",
        ("humangr",),
        "critical (secrets, bulk personal data), high (some personal data)",
        egress.data_egress,
        claim="exfiltration of secrets and personal data by tool calls",
        limits="see docs/tool-calls.md",
    ),
)
"""The checks of tool calls and risky changes, in the order they run (part of ``CHECKS``)."""
