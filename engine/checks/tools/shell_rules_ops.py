"""Rules about shared infrastructure: cloud storage and databases deleted, containers given
the host, production databases and hosts touched. Terraform, Pulumi, Kubernetes and Helm are in
``shell_rules_stacks``, imported here so its rule keeps its place."""

from __future__ import annotations

import re
from collections.abc import Iterator

from .shell_model import Cmd
from .shell_rule_kit import Context, Flag, critical, high, rule, short_flags
from .shell_rules_sql import client_sql

# after shell_rules_sql: ``infrastructure`` registers after ``database_statements``
from .shell_rules_stacks import PROD, SCRATCH
from .shell_throwaway import artifact_objects

__all__: list[str] = []


_SCRATCH_DB = re.compile(
    r"(?i)^(?:\w+_)?(?:test|tests|testing|spec|ci|tmp|scratch|dev|development|local)(?:_\w+)?$"
)
_LOCAL_HOST = re.compile(r"^(?:localhost|127\.0\.0\.1|::1|/\S*)$")
_DROPDB_VALUES = frozenset({"-h", "--host", "-p", "--port", "-U", "--username", "--maintenance-db"})


def _scratch_database(argv: list[str]) -> bool:
    """``dropdb [--if-exists] app_test`` on this machine: a test or development database,
    named so (the next setup or migration makes it again)."""
    names, host, skip = [], "localhost", False
    for i, word in enumerate(argv[1:], 1):
        if skip:
            skip = False
            continue
        if word in _DROPDB_VALUES:
            skip = True
            if word in ("-h", "--host") and i + 1 < len(argv):
                host = argv[i + 1]
        elif word.startswith("--host="):
            host = word.split("=", 1)[1]
        elif not word.startswith("-"):
            names.append(word)
    return len(names) == 1 and bool(_SCRATCH_DB.match(names[0])) and bool(_LOCAL_HOST.match(host))


_OBJECT_URL = re.compile(r"^(?:s3|gs)://([^/\s]+)/(.+)$")
_THROWAWAY = re.compile(r"(?i)(?:^|[/_.-])(?:tmp|temp|scratch)(?:$|[/_.-])")


def _scratch_objects(verbs: list[str]) -> bool:
    """Every bucket path the command names is a tmp or scratch prefix of a bucket named for
    scratch or development (``s3://team-dev-scratch/tmp/ann/``), outside production."""
    urls = [m for m in (_OBJECT_URL.match(v) for v in verbs) if m is not None]
    return bool(urls) and all(
        _THROWAWAY.search(m.group(2)) and SCRATCH.search(m.group(1)) and not PROD.search(m.group(0))
        for m in urls
    )


_AWS_CRITICAL = re.compile(
    r"^(?:delete-(?:bucket|db-\w+|table|volume|snapshot|cluster|file-system|stack|repository|"
    r"backup-vault|global-table|secret|key-pair|user-pool|vault)|terminate-instances|"
    r"schedule-key-deletion|delete-objects|purge-queue)$"
)


@rule
def cloud(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """Cloud CLIs deleting storage and databases; database tools dropping data."""
    name, args = cmd.name, cmd.argv[1:]
    verbs = [w for w in args if not w.startswith("-")]
    joined = " ".join(args)
    flags = short_flags(cmd.argv)
    title, why = "deletes cloud storage or data", "the data is gone for good."
    if name in ("aws", "gsutil", "gcloud") and (_scratch_objects(verbs) or artifact_objects(verbs)):
        return  # a scratch prefix of a scratch bucket, one build's CI artifacts: throwaway
    if name == "aws" and len(verbs) >= 2:
        service, op = verbs[0], verbs[1]
        if service == "s3" and (
            (op == "rb" and "--force" in args) or (op == "rm" and "--recursive" in args)
        ):
            yield critical(title, cmd.text, why, "Delete single objects, with a backup.")
        elif (service == "s3" and op in ("rm", "rb")) or (
            service == "s3" and op == "sync" and "--delete" in args
        ):
            yield high("deletes cloud objects", cmd.text, "objects are removed.", "Check the path.")
        elif _AWS_CRITICAL.match(op):
            yield critical(title, cmd.text, f"aws {service} {op}: {why}", "Ask a human.")
        elif op.startswith(("delete-", "terminate-", "remove-", "deregister-")):
            yield high(
                f"aws {service} {op}", cmd.text, "it deletes a cloud resource.", "Ask a human."
            )
    elif name == "gsutil" and verbs:
        if verbs[0] == "rb" or (verbs[0] == "rm" and flags & {"-r", "-R", "-a"}):
            yield critical(title, cmd.text, why, "Delete single objects, with a backup.")
        elif verbs[0] == "rm":
            yield high("deletes cloud objects", cmd.text, "objects are removed.", "Check the path.")
    elif name in ("gcloud", "az", "doctl", "linode-cli", "oci") and verbs:
        if any(v in ("delete", "destroy") for v in verbs) and verbs[0] not in (
            "config",
            "auth",
            "extension",
        ):
            yield critical(
                title if "storage" in verbs else f"{name} delete",
                cmd.text,
                "it deletes a cloud resource; there is no undo.",
                "Ask a human.",
            )
        elif name == "gcloud" and verbs[:2] == ["storage", "rm"]:
            yield critical(title, cmd.text, why, "Delete single objects, with a backup.")
    elif name in ("heroku", "fly", "flyctl", "vercel", "netlify", "firebase") and re.search(
        r"\b(?:apps:destroy|destroy|remove|rm|firestore:delete|database:remove|sites:delete)\b",
        joined,
    ):
        yield critical(f"{name} deletes an app or data", cmd.text, why, "Ask a human.")
    elif name in ("gh", "glab") and verbs[:2] == ["repo", "delete"]:
        yield critical(
            "deletes a repository",
            cmd.text,
            "its code, issues, pull requests and releases are gone for good.",
            "Ask a human; archive it instead.",
        )
    elif name in ("gh", "glab") and len(verbs) >= 2 and verbs[1] == "delete":
        yield high(
            f"{name} {verbs[0]} delete",
            cmd.text,
            f"it deletes a {verbs[0]} of the repository's host.",
            "Ask a human.",
        )
    elif name == "dropdb" and _scratch_database(cmd.argv):
        return  # a local test database, made again by the next setup
    elif name in ("dropdb", "dropuser") or (name == "mysqladmin" and "drop" in verbs):
        yield critical("drops a database", cmd.text, why, "Ask a human; back up first.")
    elif name == "redis-cli" and re.search(r"\b(?:flushall|flushdb)\b", joined, re.IGNORECASE):
        yield critical("erases a Redis database", cmd.text, why, "Delete keys selectively.")
    elif name in ("psql", "mysql", "mongo", "mongosh", "sqlite3", "cqlsh", "clickhouse-client"):
        parsed = bool(client_sql(cmd)[1])  # its SQL is judged by ``shell_rules_sql``
        if not parsed and re.search(
            r"\b(?:drop\s+(?:table|database|schema|collection)|truncate\s+table|"
            r"dropDatabase\(\)|\.drop\(\)|delete\s+from\s+\w+\s*(?:;|$|\"|')|"
            r"\.(?:deleteMany|delete_many|remove)\(\s*(?:\{\s*\})?\s*\))",
            joined,
            re.IGNORECASE,
        ):
            yield critical(
                "destroys database data",
                cmd.text,
                "the statement drops or empties tables.",
                "Ask a human; back up first.",
            )
        elif PROD.search(joined) or PROD.search(" ".join(f"{k}={v}" for k, v in cmd.assigns)):
            yield high(
                "connects to a production database",
                cmd.text,
                "production data is read or changed.",
                "Use a staging copy, or ask a human.",
            )


_DOCKER_VALUED = frozenset(
    {
        "-H",
        "--host",
        "-c",
        "--context",
        "--config",
        "-l",
        "--log-level",
        "--tlscacert",
        "--tlscert",
        "--tlskey",
    }
)


def _docker_args(argv: list[str]) -> list[str]:
    """docker's words after its global options (``docker -H unix:///… run``)."""
    i = 1
    while i < len(argv) and argv[i].startswith("-"):
        i += 2 if argv[i] in _DOCKER_VALUED else 1
    return argv[i:]


@rule
def containers(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """Containers given the host's root, its docker socket or full privileges; prunes."""
    if cmd.name != "docker":
        return
    args = _docker_args(cmd.argv)
    joined = " ".join(args)
    verbs = [w for w in args if not w.startswith("-")]
    escapes = "--privileged" in args and bool(
        re.search(r"--pid[=\s]host|\bnsenter\b.*-t\s*1\b|\bchroot\s+/host", joined)
    )
    if (verbs[:1] in (["run"], ["create"]) or verbs[:2] == ["container", "run"]) and escapes:
        yield critical(
            "escapes from a container to the host",
            cmd.text,
            "a privileged container in the host's process space enters the host as root.",
            "Do not run privileged containers in the host's namespaces.",
        )
    elif verbs[:1] in (["run"], ["create"]) or verbs[:2] in (
        ["container", "run"],
        ["compose", "run"],
    ):
        if re.search(
            r"(?:-v|--volume|--mount)[=\s]+(?:type=bind,\s*)?(?:source=|src=)?/(?::|,|\s|$)", joined
        ):
            yield critical(
                "mounts the host's root into a container",
                cmd.text,
                "the container can read and change every host file (a root shell on the host).",
                "Mount only the project folder.",
            )
        elif re.search(
            r"--privileged|--pid[=\s]host|docker\.sock|--cap-add[=\s](?:ALL|SYS_ADMIN)"
            r"|(?:-v|--volume)[=\s]+/(?:etc|root|var|home|usr|boot|dev)\b[^:\s]*:",
            joined,
        ):
            yield high(
                "gives a container the host",
                cmd.text,
                "privileged mode, the host's "
                "process space, system folders or the docker socket let it take over "
                "the host.",
                "Drop the privilege unless it is truly needed.",
            )
    elif verbs[:2] == ["volume", "rm"] and re.search(r"\$\(\s*docker\s+volume\s+ls\b", cmd.text):
        yield critical(
            "deletes every docker volume",
            cmd.text,
            "every volume the host keeps is removed, with the databases and files in them.",
            "Remove only the volumes you made, by name.",
        )
    elif (verbs[:1] == ["volume"] and ("rm" in verbs or "prune" in verbs)) or (
        verbs[:2] == ["system", "prune"] and re.search(r"(?:^|\s)(?:-a|--all|--volumes)\b", joined)
    ):
        yield high(
            "deletes docker data",
            cmd.text,
            "images, volumes or containers are removed; volumes may hold databases.",
            "Remove only what you built.",
        )


@rule
def production(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """Remote shells and copies to production hosts."""
    if cmd.name in ("ssh", "scp", "rsync", "mosh") and not cmd.guessed:
        hosts = [w for w in cmd.argv[1:] if not w.startswith("-")][:2]
        if any(PROD.search(h.split(":", 1)[0]) for h in hosts):
            yield high(
                "acts on a production host",
                cmd.text,
                "it connects to production.",
                "Ask a human before touching production.",
            )
