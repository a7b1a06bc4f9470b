"""Cloud and database commands whose harm is in what they turn off or open up: audit logging
and threat detection stopped, admin policies attached, buckets, repositories and ports opened to
everyone, and databases dropped or reset by a framework's task."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator

from humangr.contracts import Severity

from .shell_feeds import SECRET_STORES
from .shell_model import Cmd
from .shell_restarts import restarts_one
from .shell_rule_kit import Context, Flag, critical, high, rule
from .shell_secret_counted import counted_only
from .shell_secret_meta import metadata_only
from .shell_throwaway import review_app, test_settings
from .shell_throwaway_db import throwaway_database

__all__ = ["audit_off", "database_reset", "opened_up", "production_change", "secret_shown"]

_AUDIT_OFF = re.compile(
    r"^aws\s.*\b(?:cloudtrail\s+(?:stop-logging|delete-trail)|guardduty\s+(?:delete-detector|"
    r"disassociate-from-master-account|update-detector\s.*--no-enable)|configservice\s+"
    r"(?:stop-configuration-recorder|delete-configuration-recorder|delete-delivery-channel)|"
    r"securityhub\s+disable-security-hub|logs\s+delete-log-group|"
    r"ec2\s+delete-flow-logs|macie2\s+disable-macie|inspector2\s+disable)\b"
    r"|^gcloud\s.*\blogging\s+(?:sinks|logs|buckets)\s+delete\b"
    r"|^az\s.*\bmonitor\s+(?:diagnostic-settings|activity-log\s+alert|log-profiles)\s+delete\b"
    r"|^az\s.*\bsecurity\s+(?:auto-provisioning-setting|pricing)\s+(?:update|create)\s.*"
    r"(?:--auto-provision\s+off|--tier\s+free)"
)
_ADMIN_POLICY = re.compile(
    r"arn:aws:iam::aws:policy/(?:AdministratorAccess|IAMFullAccess|PowerUserAccess)\b"
    r"|\"Action\"\s*:\s*\"\*\"|\"Principal\"\s*:\s*(?:\"\*\"|\{\s*\"AWS\"\s*:\s*\"\*\")"
)
_AZURE_ADMIN = re.compile(r"^(?:owner|contributor|user access administrator)$", re.IGNORECASE)
_EVERYONE = re.compile(r"(?:^|[=,\s\[{\"'])(?:0\.0\.0\.0/0|::/0|\*|Internet|Any)(?:$|[,\s\]}\"'])")
"""Everyone as a source, as a word or inside a shorthand or JSON list (``[{CidrIp=0.0.0.0/0}]``)."""
_DATABASE_OPEN = re.compile(
    r"^gcloud\s.*\bsql\s+instances\s+(?:patch|create)\s.*--authorized-networks[= ]\S*"
    r"(?:0\.0\.0\.0/0|::/0)"
    r"|^aws\s.*\b(?:rds|docdb|neptune|redshift)\s+(?:modify|create|restore)-\S+\s.*"
    r"--publicly-accessible\b"
    r"|^az\s.*\b(?:sql|postgres|mysql|mariadb|cosmosdb)\s.*firewall-rule\s+(?:create|update)"
    r"\s.*--start-ip-address[= ]0\.0\.0\.0\s.*--end-ip-address[= ]255\.255\.255\.255"
)
"""A managed database's network opened to every address."""
_PUBLIC_ACL = re.compile(r"^(?:public-read(?:-write)?|authenticated-read)$|AllUsers|allUsers")


def _words(cmd: Cmd) -> str:
    return " ".join(cmd.argv)[:4_000]


@rule
def audit_off(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """CloudTrail, GuardDuty, Config, Security Hub, log groups and log sinks stopped or
    deleted: what was done is no longer recorded or detected."""
    if cmd.name in ("aws", "gcloud", "az") and _AUDIT_OFF.search(_words(cmd)):
        yield critical(
            "turns off cloud audit logging or threat detection",
            cmd.text,
            "actions in the account are no longer recorded or watched, which hides them.",
            "Leave audit trails and detectors on; ask the account's owners.",
        )


def _opens(cmd: Cmd) -> str | None:
    """What ``cmd`` opens to everyone or grants broadly, or ``None``."""
    argv, text = cmd.argv, _words(cmd)
    verbs = [w for w in argv[1:] if not w.startswith("-")]
    if cmd.name == "aws" and verbs[:1] == ["iam"] and _ADMIN_POLICY.search(text):
        return "an administrator policy"
    if cmd.name == "aws" and verbs[:1] == ["s3api"]:
        if any(_PUBLIC_ACL.search(w) for w in argv) or (
            verbs[1:2] == ["put-bucket-policy"] and _ADMIN_POLICY.search(text)
        ):
            return "a bucket or its objects to everyone"
        if verbs[1:2] == ["delete-public-access-block"] or (
            verbs[1:2] == ["put-public-access-block"] and "=false" in text.lower()
        ):
            return "a bucket's public access block"
    if cmd.name in ("gsutil", "gcloud") and any("allusers" in w.lower() for w in argv):
        return "a bucket or its objects to everyone"
    if cmd.name == "az" and verbs[:3] == ["role", "assignment", "create"]:
        role = next((argv[i + 1] for i, w in enumerate(argv[:-1]) if w == "--role"), "")
        if _AZURE_ADMIN.match(role):
            return f"the {role} role"
    ingress = (
        (cmd.name == "aws" and "authorize-security-group-ingress" in verbs)
        or (cmd.name == "gcloud" and "firewall-rules" in verbs and "create" in verbs)
        or (cmd.name == "az" and verbs[:4] == ["network", "nsg", "rule", "create"])
    )
    if ingress and _EVERYONE.search(text.replace("=", " ")):
        return "a port to the whole internet"
    if _DATABASE_OPEN.search(text):
        return "a database to the whole internet"
    if (
        cmd.name == "gh"
        and verbs[:2] == ["repo", "edit"]
        and "--visibility" in text
        and "public" in text.split("--visibility")[-1][:12]
    ):
        return "a repository to everyone"
    return None


@rule
def opened_up(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """Administrator policies and roles attached, buckets, ports and repositories made
    public: broad access that outlives the task."""
    opened = _opens(cmd)
    if opened is not None:
        yield high(
            f"opens up {opened}",
            cmd.text,
            f"it grants or exposes {opened}, which outlives this task and may expose data.",
            "Ask a human for access and exposure changes.",
        )


_RESETS = re.compile(
    r"^(?:(?:bin/|\./)?(?:rails|rake)\s+(?:\S+\s+)*db:(?:drop|reset|purge|schema:load|"
    r"migrate:reset|truncate_all)\b"
    r"|python[\d.]*\s+(?:\S*/)?manage\.py\s+(?:flush|reset_db|sqlflush)\b"
    r"|(?:npx\s+|pnpm\s+(?:exec\s+)?|yarn\s+)?prisma\s+(?:migrate\s+reset|db\s+push\s.*"
    r"--(?:force-reset|accept-data-loss))"
    r"|alembic\s+(?:\S+\s+)*downgrade\s+base\b"
    r"|(?:npx\s+)?(?:knex\s+migrate:rollback\s.*--all|sequelize(?:-cli)?\s+db:drop|"
    r"typeorm\s+schema:drop|drizzle-kit\s+drop)"
    r"|dropdb\s|mix\s+ecto\.(?:drop|reset)\b|php\s+artisan\s+(?:migrate:(?:fresh|reset)|db:wipe)"
    r"|redis-cli\s.*\bflush(?:all|db)\b|heroku\s+pg:reset\b)",
    re.IGNORECASE,
)
_PRODUCTION = re.compile(
    r"(?:RAILS_ENV|RACK_ENV|NODE_ENV|APP_ENV|DJANGO_SETTINGS_MODULE|MIX_ENV)=\S*prod"
    r"|DISABLE_DATABASE_ENVIRONMENT_CHECK=1|--env(?:ironment)?[= ]prod|\bprod(?:uction)?\b",
    re.IGNORECASE,
)


_LOCAL_DEV_DB = re.compile(
    r"(?i)^(?:\w*DATABASE_URL|DB_URL|\w*_DSN)=(?:postgres(?:ql)?|mysql|mariadb|mongodb|sqlserver)"
    r"://(?:[^@/\s]*@)?(?:localhost|127\.0\.0\.1|\[::1\])(?::\d+)?/\w*(?:dev|test|local)\w*"
    r"(?:\?\S*)?$|^(?:\w*DATABASE_URL|DB_URL)=(?:sqlite|file):|"
    r"^(?:RAILS_ENV|RACK_ENV|NODE_ENV|APP_ENV|MIX_ENV)=(?:test|development|dev)$"
)
"""The command's own settings name a local development or test database."""


@rule
def database_reset(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """A framework's task that drops, wipes or resets a database (``rails db:drop``,
    ``manage.py flush``, ``prisma migrate reset``, ``alembic downgrade base``, ``dropdb``):
    a human confirms it; in production, or past the framework's own guard, it is stopped."""
    text = _words(cmd)
    if not _RESETS.search(text):
        return
    assigned = " ".join(f"{k}={v}" for k, v in cmd.assigns)
    if _PRODUCTION.search(f"{assigned} {text}"):
        yield critical(
            "drops or wipes a production database",
            cmd.text,
            "every row is gone; the framework's production guard is bypassed or named.",
            "Never reset a production database from an agent.",
        )
    elif not any(_LOCAL_DEV_DB.match(f"{k}={v}") for k, v in cmd.assigns) and not (
        test_settings(cmd.argv)
        or (cmd.name == "heroku" and review_app(cmd.argv))
        or throwaway_database(cmd.argv, cmd.assigns)
    ):
        yield high(
            "drops or wipes a database",
            cmd.text,
            "every table or row of the configured database is removed.",
            "Confirm which database this reaches, and that its data may go.",
        )


_EXPORTS_KEYS = re.compile(
    r"^aws\s.*\bconfigure\s+(?:export-credentials\b|get\s+\S*(?:secret|session_token))"
)


@rule
def secret_shown(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """A cloud's keys printed (``aws configure export-credentials``): stopped; a secret store's
    value shown (``vault kv get``, ``kubectl get secret -o yaml``): a human confirms. Given to
    another program or a variable instead, it is the flow rules' (what is done with it)."""
    consumed = bool(cmd.owner) and cmd.owner not in ("echo", "printf", "print")
    if consumed or cmd.name not in ("aws", "vault", "az", "gcloud", "kubectl", "gh"):
        return
    text = _words(cmd)
    if _EXPORTS_KEYS.search(text):
        yield critical(
            "prints the cloud account's keys",
            cmd.text,
            "the access keys end up in the transcript, readable by whatever reads it.",
            "Let the SDKs read credentials themselves; never print them.",
        )
    elif SECRET_STORES.search(text) and not (metadata_only(cmd.argv) or counted_only(cmd)):
        yield high(
            "shows a secret's value",
            cmd.text,
            "the secret ends up in the transcript.",
            "Pass secrets to the program that needs them without printing them.",
        )


_DEPLOYERS = re.compile(
    r"(?:^|/)(?:[\w.-]*deploy[\w.-]*|[\w.-]*release[\w.-]*|ansible-playbook|helm|kubectl|"
    r"terraform|tofu|serverless|sls|cap|fab|pulumi|cdk|flyctl|fly|heroku|vercel|netlify|"
    r"kustomize|argocd|eb|gcloud|az|aws)$"
)
_READ_ONLY = frozenset(
    {"get", "describe", "logs", "log", "status", "plan", "diff", "template", "lint", "list",
     "ls", "show", "view", "history", "top", "explain", "version", "validate", "--check",
     "--syntax-check", "--list-hosts", "--list-tasks", "preview", "info", "whoami"}
)  # fmt: skip
_PROD_TARGET = re.compile(
    r"(?i)^(?:--?(?:env|environment|stage|context|namespace|workspace|limit|target|profile|"
    r"project|app|cluster)[= ]|-[neci] ?|inventor(?:y|ies)/)?\S*?(?:^|[/=_.:-])"
    r"(?:prod|production|prd|live)(?:$|[/_.:-]\S*$)"
)


@rule
def production_change(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """A deploy, playbook, release or cluster change aimed at production (``ansible-playbook
    -i inventories/prod``, ``./deploy.sh --env production``): a human confirms it; one
    instance restarted (``shell_restarts``) is no change."""
    if not cmd.argv or not _DEPLOYERS.search(cmd.argv[0]) or restarts_one(cmd.argv):
        return  # one instance restarted: its controller starts a fresh copy
    words = cmd.argv[1:40]
    if any(w in _READ_ONLY for w in words) or (
        cmd.name in ("gcloud", "az", "aws")
        and not any(w in ("deploy", "update-function-code", "update-service") for w in words)
    ):
        return
    pairs = [f"{a} {b}" for a, b in itertools.pairwise(words)]
    if any(_PROD_TARGET.search(w) for w in [*words, *pairs]):
        yield high(
            "changes production",
            cmd.text,
            "it deploys, configures or changes what runs in production.",
            "Let a person confirm changes to production.",
        )


_GH_METHOD = frozenset({"-X", "--method"})


@rule
def gh_api(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """``gh api -X DELETE repos/o/r/branches/main/protection``: a call of GitHub's API judged by
    the same catalogue as an HTTP tool's request to it."""
    if cmd.name != "gh" or cmd.argv[1:2] != ["api"]:
        return
    from .http_apis import destructive_call
    from .http_call import HttpCall
    from .http_url import parse_url

    argv, method, path = cmd.argv, "GET", ""
    i = 2
    while i < len(argv):
        word = argv[i]
        if word in _GH_METHOD and i + 1 < len(argv):
            method, i = argv[i + 1].upper(), i + 2
            continue
        if word.startswith("--method="):
            method = word.split("=", 1)[1].upper()
        elif not word.startswith("-") and not path:
            path = word
        i += 1
    url = parse_url("https://api.github.com/" + path.lstrip("/"))
    if url is None or not path:
        return
    call = HttpCall("endpoint", path, url, method, None, (), ())
    found = destructive_call(call)
    if found is not None:
        severity, title = found
        make = critical if severity is Severity.CRITICAL else high
        yield make(title, cmd.text, f"gh api {method} {path[:80]}.", "Ask a human first.")
