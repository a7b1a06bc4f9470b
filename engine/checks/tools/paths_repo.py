"""Protected paths found by their last names, wherever they lie (a workspace included): git
hooks and configuration, CI workflows and hook managers, the coding agent's settings, Python
start-up code, ``.env`` files, and secrets and private keys found by name."""

from __future__ import annotations

from .paths_rule import ANY, CRED, SUPPLY, rule

__all__ = ["REPO_RULES"]

_AGENT = "they set what the agent may run without asking, its hooks and its MCP servers"
_KEYS = r"[^/]+\.(?:pem|key|p12|pfx|jks|keystore|ppk|p8|pkcs12|keytab|kdbx)$"
_PUBLIC = (
    r"(?:^|/)(?:[^/]*(?:cert|crt|chain|bundle|public|trust)[^/]*|(?:[^/]*[-_.])?ca[-_.][^/]*"
    r"|[^/]+\.pub(?:\.[^/]*)?)$"
)

REPO_RULES = (
    rule(
        "a git lock or message file",
        "",
        "---",
        ANY + r"\.git/(?:.+\.lock|info/exclude|commit_editmsg|fetch_head|merge_msg)$",
    ),
    rule(
        "a git hook",
        "it runs on the next commit, checkout or push (persistence)",
        "CH-",
        ANY + r"\.git/(?:modules/.+/|worktrees/[^/]+/)?hooks(?:/.*)?$",
    ),
    rule(
        "the repository's git configuration",
        "core.hooksPath, core.sshCommand, core.fsmonitor and filters run programs on the next "
        "git command",
        "CH-",
        ANY + r"(?:\.git/(?:modules/.+/)?config|\.hg/hgrc)$",
    ),
    rule(
        "the repository's history",
        "deleting it loses every unpushed commit",
        "HC-",
        ANY + r"\.git$",
    ),
    rule(
        "git's internal files",
        "they are git's own; change them with git commands",
        "HH-",
        ANY + r"\.git/.",
    ),
    rule(
        "a git hook manager's script",
        SUPPLY,
        "HH-",
        ANY + r"(?:\.husky/.+|\.pre-commit-config\.ya?ml|\.?lefthook(?:-local)?\.ya?ml)$",
    ),
    rule(
        "the site's list of authorised ad sellers",
        "whoever it names may sell the site's ad space and be paid for it (ads.txt, "
        "app-ads.txt, sellers.json)",
        "HH-",
        ANY + r"(?:app-)?ads\.txt$|" + ANY + r"sellers\.json$",
    ),
    rule(
        "a CI workflow",
        SUPPLY,
        "HH-",
        ANY + r"(?:\.github/(?:workflows|actions)/.+|\.gitlab-ci\.ya?ml|\.gitlab/ci/.+"
        r"|\.circleci/.+|jenkinsfile|azure-pipelines\.ya?ml|\.azure-pipelines/.+|\.travis\.ya?ml"
        r"|bitbucket-pipelines\.ya?ml|\.buildkite/.+|\.drone\.ya?ml|\.woodpecker(?:\.ya?ml|/.+)"
        r"|cloudbuild\.ya?ml|buildspec\.ya?ml|\.tekton/.+)$",
    ),
    rule(
        "the coding agent's settings",
        _AGENT,
        "HH-",
        ANY + r"(?:\.claude/(?:settings(?:\.local)?\.json|hooks/.+)|\.mcp\.json"
        r"|\.(?:cursor|vscode|gemini|roo|windsurf)/mcp(?:_config)?\.json|\.gemini/settings\.json"
        r"|\.codex/config\.toml)$",
    ),
    rule(
        "a direnv file",
        "direnv runs it on entering the folder; it often holds secrets",
        "H-H",
        ANY + r"\.envrc$",
        fixtures=True,
    ),
    rule(
        "Python start-up code",
        "a .pth file or sitecustomize in site-packages runs in every Python process",
        "CH-",
        ANY + r"(?:site|dist)-packages/(?:[^/]+\.pth|(?:site|user)customize\.py)$",
    ),
    rule(
        "Python start-up code",
        "sitecustomize and usercustomize run in every Python process",
        "H--",
        ANY + r"(?:site|user)customize\.py$",
    ),
    rule(
        "an environment template",
        "",
        "---",
        ANY + r"\.env\.(?:example|sample|template|tpl|dist|defaults?|schema|test|testing|ci)$",
    ),
    rule(
        "an environment file",
        "it holds the project's secrets (API keys, database passwords)",
        "--H",
        ANY + r"(?:\.env(?:\.[^/]*)?|[^/]+\.env)$",
        fixtures=True,
    ),
    rule(
        "a credentials file",
        CRED,
        "--C",
        ANY + r"(?:\.netrc|_netrc|\.git-credentials|\.pgpass|\.aws/credentials|\.kube/config"
        r"|\.docker/config\.json|wallet\.dat|key[34]\.db|signons\.sqlite)$",
        fixtures=True,
    ),
    rule(
        "a secrets file",
        "it holds passwords, tokens or cloud credentials",
        "--H",
        ANY + r"(?:secrets?\.(?:ya?ml|json|toml|ini)|credentials\.(?:json|ya?ml|xml|ini)"
        r"|service[-_]?account[^/]*\.json|client_secret[^/]*\.json|[^/]+\.tfstate(?:\.backup)?"
        r"|\.htpasswd|\.vault-token)$",
        fixtures=True,
    ),
    rule(
        "an SSH private key",
        CRED,
        "--C",
        ANY + r"(?:id_(?:rsa|dsa|ecdsa|ed25519)(?:_sk)?|identity)$",
        fixtures=True,
    ),
    rule(
        "a wallet or signing keystore",
        CRED,
        "--C",
        ANY + r"(?:(?:keystores?|[\w-]*signers?[\w-]*)/(?:[^/]+/)*[^/]+\.(?:json|key|pem)"
        r"|wallets?/(?:[^/]+/)*keys?/[^/]+|keystore[^/]*\.json|[^/]*passphrase[^/]*)$",
        fixtures=True,
    ),
    rule("a private key", CRED, "--C", ANY + _KEYS, fixtures=True, unless=_PUBLIC),
)
"""Rules matched on the last names of any path, most specific first."""
