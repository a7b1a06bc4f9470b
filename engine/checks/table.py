"""The table of local checks: layer, id, what each finds, where it comes from, severities,
and for the classes HUMANGR claims, what the rule does not cover."""

from __future__ import annotations

from humangr.contracts import LayerID

from . import (
    auth_checks,
    autoexec,
    change_risks,
    ci_workflow,
    compliance,
    exposure,
    interp_limits,
    log_data,
    performance,
    quality,
    removed_tests,
    security_code,
    security_text,
    source_code,
)
from .base import Check
from .tools import consequence, egress, generic, http, paths, prose, resemblance, shell, sql

__all__ = ["CHECKS"]

L = LayerID
CHECKS: tuple[Check, ...] = (
    Check(
        L.HL2,
        "todo",
        "Leftover TODO / FIXME / XXX / HACK markers",
        ("humangr",),
        "low",
        quality.todo_markers,
    ),
    Check(
        L.HL2,
        "not-implemented",
        "raise NotImplementedError outside abstract methods",
        ("humangr",),
        "medium",
        quality.not_implemented,
    ),
    Check(
        L.HL2,
        "deleted-test",
        "Deleted test files and removed test functions (not moved, split, renamed or parametrized)",
        ("humangr",),
        "high; medium when the action says tests are removed; low when the code they test is "
        "removed too",
        removed_tests.deleted_tests,
    ),
    Check(
        L.HL3,
        "swallowed-exception",
        "Bare except, except Exception: pass/continue/...",
        ("humangr",),
        "high (bare and swallowing), medium (bare, or Exception swallowed)",
        quality.swallowed_exceptions,
    ),
    Check(
        L.HL4,
        "secret",
        "Hard-coded secrets: cloud keys, private keys, API tokens, credentials assigned to "
        "password/secret/token/api_key names; literal signing keys (SECRET_KEY, secret_key, JWT "
        "keys), passwords as defaults, arguments or in comparisons, and as the password of a "
        "login call (smtplib / imaplib / ftplib login, HTTPBasicAuth, auth=(user, password), "
        "LDAP simple_bind)",
        ("detect-secrets", "humangr"),
        "critical (keys, tokens, random-looking credentials); high (other credentials, signing "
        "keys, JWT, URL credentials); in test folders low (private keys, passwords, fake-looking "
        "provider keys) or high (live-looking provider keys)",
        security_text.secrets,
        claim="hard-coded credentials (CWE-798)",
        limits="secrets assembled at run time or split across lines; secrets in binary files; keys "
        "without a known prefix stored under neutral names",
    ),
    Check(
        L.HL4,
        "shell-injection",
        "Commands run through a shell (shell=True, os.system, os.popen, "
        'asyncio.create_subprocess_shell, loop.subprocess_shell, ["sh", "-c", ...] argument '
        "lists also through asyncio.create_subprocess_exec, os.spawn* / os.exec*, pty.spawn), "
        "remote and "
        "wrapped shells (paramiko exec_command, fabric / invoke Connection and task Context run"
        " / sudo / local, fabric.api run / sudo / local, asyncssh run), commands decoded at run"
        " time, and programs chosen by request input; also through aliases, getattr(os, "
        '"system"), __import__ / importlib.import_module("os") and sys.modules["os"]',
        ("humangr",),
        "critical (request input reaches the command), high (command of unknown origin, or "
        "decoded at run time; medium in test folders), low (constant or sanitized local "
        "command; nothing for a constant remote command)",
        security_code.shell_injection,
        claim=("OS command injection (CWE-78)"),
        limits=(
            'argument injection into a fixed program (["git", arg]); the sh library and other '
            "wrappers not listed; fabric / paramiko objects the code does not show being made, "
            "annotated or handed to a task; callables kept in attributes set by another method "
            "(self.run = os.system); input read from files or databases; input validated by "
            "a compiled pattern (PATTERN.fullmatch(x)) is trusted whatever the pattern allows"
        ),
    ),
    Check(
        L.HL4,
        "deserialization",
        "pickle / _pickle / cPickle / dill / cloudpickle / marshal / jsonpickle loads, "
        "pickle.Unpickler, shelve.open, yaml.load and load_all without a safe loader (Loader, "
        "UnsafeLoader, FullLoader), yaml.unsafe_load / full_load, ruamel.yaml "
        "YAML(typ='unsafe').load; also through aliases, `from "
        '_pickle import loads as x`, getattr(pickle, "loads") and __import__("pickle")',
        ("humangr",),
        "critical (request input), high (data of unknown origin; medium in test folders); "
        "nothing for constants, data the code pickled itself or verified with "
        "hmac.compare_digest",
        security_code.deserialization,
        claim=("deserialization of untrusted data (CWE-502)"),
        limits=(
            "model loaders (torch.load, joblib.load, numpy.load, pandas.read_pickle) unless fed"
            " request input; custom Unpickler subclasses; XML entities (XXE)"
        ),
    ),
    Check(
        L.HL4,
        "sql-injection",
        "SQL text reaching execute / executemany / executescript / mogrify of any cursor or "
        "connection (sqlite3, psycopg2, psycopg 3, aiopg, pymysql, Django's "
        "connection.cursor()), SQLAlchemy text / exec_driver_sql / Session.execute of a string,"
        " Django raw / extra / RawSQL, psycopg2 sql.SQL, pandas.read_sql, pg8000.native "
        "Connection.run, asyncpg fetch / fetchrow / fetchval / execute on a connection or pool "
        "the code makes or annotates, and query helpers named so",
        ("humangr",),
        "critical (request input), high (built by f-string, %, .format or + from values of "
        "unknown origin; medium in test folders); nothing for constants, bound parameters, "
        "int() values and allow-listed names",
        security_code.sql_injection,
        claim=("SQL injection (CWE-89)"),
        limits=(
            "SQL executed through a wrapper whose name says neither query, sql, fetch nor "
            "execute; raw SQL inside ORM expressions other than raw / extra / RawSQL; drivers "
            "reached through objects of unknown type with generic method names (run); NoSQL "
            "injection"
        ),
    ),
    Check(
        L.HL4,
        "eval-exec",
        "eval / exec of non-constant code (also through aliases such as e = eval, "
        'getattr(builtins, "exec"), getattr(__builtins__, "eval"), '
        '__import__("builtins").exec); eval / exec of a payload decoded at run time (base64, '
        "codecs rot13, bytes.fromhex, binascii, zlib / bz2 / lzma / gzip, marshal.loads) even "
        "when constant; importlib.import_module / __import__ / runpy.run_path / run_module of a"
        ' name from request input; Python source run by an interpreter ([sys.executable, "-c", '
        "code], python -m, a script path from request input), code.InteractiveInterpreter / "
        "InteractiveConsole, sub-interpreters (concurrent.interpreters exec, _interpreters / "
        "_xxsubinterpreters run_string); sinks called through partial, run_in_executor, "
        "to_thread, executor.submit, Thread(target=...) and map; templates "
        "(render_template_string, jinja2 Template, Environment.from_string) built from request "
        "input",
        ("humangr",),
        "critical (request input; a decoded payload), high (code of unknown origin; medium in "
        "test folders); nothing for constant code",
        security_code.eval_exec,
        claim=("code injection (CWE-94/95), server-side template injection (CWE-1336)"),
        limits=(
            "imports of names of unknown origin (plugin loaders: not reported); code run "
            "through compile() + types.FunctionType or ctypes; callables kept in attributes set"
            " by another method; templates built from data of unknown origin"
        ),
    ),
    Check(
        L.HL4,
        "tls-verification",
        "verify=False (also through a constant or a **options mapping), session.verify = "
        "False, unverified SSL "
        "context, CERT_NONE / cert_reqs='CERT_NONE', VERIFY_NONE, check_hostname=False, aiohttp "
        "ssl=False, paramiko AutoAddPolicy, rejectUnauthorized: false, curl -k; in other "
        "languages InsecureSkipVerify, danger_accept_invalid_certs, a certificate callback "
        "returning true, CURLOPT_SSL_VERIFYPEER off, an empty checkServerTrusted, trust-all "
        "managers",
        ("bandit", "humangr"),
        "high; low in test folders",
        security_text.tls_verification,
        claim="improper certificate validation (CWE-295)",
        limits="verification switched off by configuration read at run time; verify callbacks that "
        "accept every certificate",
    ),
    Check(
        L.HL4,
        "weak-password-hash",
        "md5 / sha1 of a password or token (by its name, a request field, hashlib.new + update,"
        " the digest stored as a password or written to a password file); one fast sha2 / sha3 "
        "/ blake2 round of a password (a KDF belongs there); PBKDF2 with fewer than 100,000 "
        "iterations (hashlib.pbkdf2_hmac, cryptography PBKDF2HMAC, PyCryptodome PBKDF2 and its "
        "default of 1,000); bcrypt.gensalt(rounds < 10); passlib pbkdf2_* / bcrypt with rounds "
        "below those (.using(rounds=...), CryptContext <scheme>__rounds); passlib schemes "
        "documented as insecure (md5_crypt, des_crypt, hex_*, ldap_md5 / sha1, nthash, mysql41,"
        " ...) used to hash or as a CryptContext's default; crypt.crypt with a DES or "
        "MD5-crypt salt",
        ("humangr",),
        "high (md5, sha1, a password's fast hash, weak KDF settings); low in test folders; "
        "nothing for a random token's or key's sha2 digest (how tokens are stored) or with "
        "usedforsecurity=False",
        security_code.weak_password_hash,
        claim=("weak hashing of passwords and tokens (CWE-328, CWE-916)"),
        limits=(
            "md5 / sha1 for other security uses (signatures, certificate pinning, download "
            "integrity); passwords held in neutrally named variables; a fast hash fed a "
            "password through update(); iteration counts read at run time"
        ),
    ),
    Check(
        L.HL4,
        "path-traversal",
        "open / aiofiles.open / send_file / FileResponse / os.remove / os.walk / os.access / "
        "glob / shutil / pathlib (read, write, exists, stat, glob, ...) / os.path.exists / an "
        "upload's .save() of request input; paths built from archive member names (zip slip: "
        "ZipFile.infolist / namelist, TarFile.getmembers / getnames); tar archives and "
        "shutil.unpack_archive extracted without a filter or a member check (tar slip)",
        ("humangr",),
        "high; nothing after secure_filename, basename, safe_join, realpath / abspath / resolve"
        " with a startswith / commonpath / is_relative_to check, a '..' check (also on "
        "name.split('/') and path.parts), a containment helper (is_within_directory, "
        "is_safe_path, ... doing such a check when the diff defines it), or an allow-list",
        security_code.path_traversal,
        claim=("path traversal (CWE-22)"),
        limits=(
            "paths from parameters of code that is not a web handler (unknown origin is not "
            "reported); zipfile.extractall (Python strips .. itself); containment helpers named"
            " otherwise; symlink races"
        ),
    ),
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
    Check(
        L.HL4,
        "autoexec-file",
        "Files that run by themselves: .pth lines (import runs at every interpreter start), "
        "sitecustomize / usercustomize, git hooks, .envrc, package.json install scripts, "
        "editor and devcontainer open-time commands, .ssh/authorized_keys, CI workflows and "
        "pre-commit hooks",
        ("humangr",),
        "critical (code in .pth, .git/hooks, authorized_keys), high (the others), medium (CI "
        "workflows, pre-commit hooks)",
        autoexec.autoexec_files,
    ),
    Check(
        L.HL4,
        "binary-patch",
        "GIT binary patches of text files (a literal is decoded and reviewed as text; a delta "
        "or undecodable block cannot be read), compiled code and pickles added",
        ("humangr",),
        "critical (unreadable patch of a text file), high (compiled code), medium (text sent "
        "as a decoded binary literal)",
        autoexec.binary_patches,
    ),
    Check(
        L.HL4,
        "prompt-injection",
        "Text instructing the LLM reviewers, in added lines or the action description",
        ("humangr",),
        "high",
        security_text.prompt_injection,
    ),
    Check(
        L.HL4,
        "analysis-limit",
        "Code the taint engine did not fully analyse: constants too big to compute (over 64 KiB), "
        "more work or time than one action is given",
        ("humangr",),
        "medium",
        interp_limits.analysis_limits,
    ),
    Check(
        L.HL5,
        "blocking-in-async",
        "time.sleep, requests, urlopen, subprocess, os.system, open() inside async def",
        ("humangr",),
        "high; low for open()",
        performance.blocking_in_async,
    ),
    Check(
        L.HL5,
        "io-in-loop",
        "DB queries, HTTP requests, open() inside loops and comprehensions",
        ("humangr",),
        "medium",
        performance.io_in_loop,
    ),
    Check(
        L.HL6,
        "card-number",
        "Payment card numbers (Luhn-valid, public test cards excluded)",
        ("humangr",),
        "high",
        compliance.card_numbers,
    ),
    Check(
        L.HL6,
        "sensitive-logging",
        "Card data, national ids or secrets given to a log or print call; a redaction list "
        "(filter_parameters, sensitive_fields, a scrubber's keys) shortened",
        ("humangr",),
        "high",
        log_data.sensitive_logging,
        limits="text-level: a field passed under another name, or logged through a helper, "
        "is not seen",
    ),
    Check(
        L.HL6,
        "national-id",
        "US SSNs (valid ranges), Brazilian CPFs (check digits)",
        ("humangr",),
        "high",
        compliance.national_ids,
    ),
    Check(
        L.HL6,
        "email-in-fixture",
        "Real-looking e-mail addresses in test fixtures and data files",
        ("humangr",),
        "medium",
        compliance.fixture_emails,
    ),
    Check(
        L.HL6,
        "copyleft-licence",
        "GPL / AGPL / LGPL / SSPL header in a new file",
        ("humangr",),
        "medium (licence review needed)",
        compliance.copyleft_licence,
    ),
    Check(
        L.HL4,
        "resemblance",
        "Tool calls whose words resemble labelled dangerous calls (a linear model trained on "
        "the labelled corpus; `humangr checks-train`)",
        ("humangr",),
        "high (never more: a resemblance, not a harm found)",
        resemblance.resembles,
        fallback=True,
        limits="a statistical judgement: it misses what its training calls did not show and "
        "asks about some routine calls; see docs/tool-calls.md",
    ),
)
"""Every local check, in the order they run (a ``fallback`` check after those it falls back
on). HL1 and HL7 have none."""
