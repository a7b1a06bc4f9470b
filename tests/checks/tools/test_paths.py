"""The paths of file tool calls (``tool-file``): what a write, edit, delete or read of each path
decides through the real gate, with and without a workspace, and the severity and argument of
the finding."""

from __future__ import annotations

from typing import Any

import pytest
from tool_helpers import decide

from humangr.contracts import Finding, Outcome, Severity

WS = "/work/repo"
OK, REVIEW, REJECT = Outcome.APPROVED, Outcome.NEEDS_REVIEW, Outcome.REJECTED


def path_findings(findings: list[Finding]) -> list[Finding]:
    return [f for f in findings if "-R-tool-file-" in f.id]


def read(path: Any) -> tuple[str, dict[str, Any]]:
    return "Read", {"file_path": path}


def write(path: Any, content: str = "x = 1\n") -> tuple[str, dict[str, Any]]:
    return "Write", {"file_path": path, "content": content}


def edit(path: Any, new: str = "a = 2") -> tuple[str, dict[str, Any]]:
    return "Edit", {"file_path": path, "old_string": "a = 1", "new_string": new}


CI_WITH_SECRET = "deploy:\n  script: ./release.sh --token $RELEASE_TOKEN\n"
"""A workflow that reaches a secret (one that only builds and tests is no finding)."""


def delete(path: Any) -> tuple[str, dict[str, Any]]:
    return "delete_file", {"path": path}


# (call, workspace, reason)
EVERYDAY: list[tuple[tuple[str, dict[str, Any]], str | None, str]] = [
    (delete(f"{WS}/tmp/scratch.sql"), WS, "a query file is no backup"),
    (delete(f"{WS}/build/cache.db"), WS, "a cache in the build output"),
    (delete(f"{WS}/migrations/0003_old.py"), WS, "one migration file"),
    (delete(f"{WS}/dist/app-1.3.0.tar.gz"), WS, "a release archive is no backup"),
    (delete(f"{WS}/tests/fixtures/backups/x.sql.gz"), WS, "a test fixture"),
    (read("README.md"), WS, "a file of the workspace"),
    (read("./README.md"), WS, "./ is the workspace"),
    (read("/etc/os-release"), WS, "ordinary system files may be read"),
    (read("/usr/include/stdio.h"), None, "headers are public"),
    (read("/etc/hosts"), None, "reading the hosts file is harmless"),
    (read("/proc/cpuinfo"), None, "hardware facts"),
    (read("/var/log/nginx/error.log"), WS, "a system log, outside the workspace"),
    (read("/tmp/out.log"), WS, "scratch output, outside the workspace"),
    (read("/home/dev/notes.txt"), None, "no workspace: a home read is not judged"),
    (read("~/.bashrc"), None, "reading a profile is harmless; writing it is not"),
    (read("~/.ssh/id_ed25519.pub"), None, "a public key is public"),
    (read("certs/ca.pem"), WS, "a CA certificate, not a key"),
    (read("certs/fullchain.pem"), WS, "a certificate chain, not a key"),
    (read("tests/fixtures/server.key"), WS, "a test fixture key"),
    (read(".env.example"), WS, "a template holds no secrets"),
    (read("tests/.env"), WS, "a test environment"),
    (read("/work/repo/.git/HEAD"), WS, "git metadata may be read"),
    (write("src/app.py"), WS, "the everyday write"),
    (write("/work/repo/src/x.py"), WS, "absolute, inside the workspace"),
    (write("tests/test_x.py"), WS, "a test"),
    (write("build/out.txt"), WS, "build output"),
    (write("docs/index.md", "# Docs\n"), WS, "documentation"),
    (write(".gitignore", "dist/\n"), WS, "a dotfile of the repository"),
    (write("package.json", "{}\n"), WS, "a manifest"),
    (write(".env", "DEBUG=1\n"), WS, "writing the project's own .env"),
    (write("certs/dev.key", "placeholder\n"), WS, "generating a development key"),
    (write("/tmp/scratch.txt"), WS, "scratch space outside the workspace"),
    (write("/tmp/x/y.json", "{}\n"), None, "scratch space, no workspace"),
    (write("/work/repo/.github/CODEOWNERS", "* @me\n"), WS, "not a workflow"),
    (write("/usr/src/app/main.py"), "/usr/src/app", "a container's workspace under /usr"),
    (write("/opt/app/config.yml", "a: 1\n"), "/opt/app", "a workspace under /opt"),
    (write("/root/project/src/x.py"), "/root/project", "root's project as the workspace"),
    (write("/home/bob/project/.bashrc"), "/home/bob/project", "a project file named .bashrc"),
    (write("C:\\Users\\bob\\repo\\src\\x.py"), "C:\\Users\\bob\\repo", "Windows workspace"),
    (write("c:/users/BOB/Repo/src/x.py"), "C:\\Users\\bob\\repo", "Windows paths ignore case"),
    (edit("src/app.py"), WS, "the everyday edit"),
    (edit("/work/repo/README.md"), WS, "an absolute edit inside"),
    (delete("dist/"), WS, "build output"),
    (delete("build"), WS, "build output"),
    (delete("*.pyc"), WS, "compiled files"),
    (delete("src/__pycache__/x.cpython-311.pyc"), WS, "a compiled file"),
    (delete("node_modules"), WS, "dependencies can be reinstalled"),
    (delete(".git/index.lock"), WS, "a stale git lock"),
    (delete("/tmp/build-cache"), WS, "scratch space"),
    (("LS", {"path": "/"}), WS, "listing the root"),
    (("Glob", {"pattern": "src/**/*.ts"}), WS, "a glob in the workspace"),
    (("Glob", {"pattern": "**/*.py", "path": WS}), WS, "a glob with a folder"),
    (("Grep", {"pattern": "def main", "path": "src"}), WS, "a code search"),
    (("Grep", {"pattern": "api_key", "path": "src"}), WS, "hunting secrets in own code"),
    (("NotebookEdit", {"notebook_path": "a.ipynb", "new_source": "print(1)"}), WS, "notebook"),
    (("str_replace_editor", {"command": "view", "path": f"{WS}/src/a.py"}), WS, "editor view"),
    (("mcp__filesystem__list_directory", {"path": f"{WS}/src"}), WS, "MCP listing"),
    (
        ("mcp__filesystem__move_file", {"source": f"{WS}/a.txt", "destination": f"{WS}/b.txt"}),
        WS,
        "a rename inside the workspace",
    ),
    (("create_directory", {"path": "src/utils"}), WS, "a new folder"),
    (
        ("download_file", {"url": "https://example.com/x.tgz", "path": "vendor/x.tgz"}),
        WS,
        "a download into the workspace",
    ),
    (
        ("apply_patch", {"patch": "--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-a\n+b\n"}),
        WS,
        "a patch of the workspace",
    ),
    (("Read", {"file_path": 12345}), WS, "a number is no path"),
    (("read_multiple_files", {"paths": [1, None, True, {"x": 1}]}), WS, "no strings at all"),
]


@pytest.mark.parametrize(("call", "workspace", "reason"), EVERYDAY, ids=[c[2] for c in EVERYDAY])
def test_everyday_paths_pass(
    call: tuple[str, dict[str, Any]], workspace: str | None, reason: str
) -> None:
    outcome, findings, reasons = decide(*call, workspace=workspace)
    assert path_findings(findings) == [], reason
    assert outcome is OK, (reason, reasons)


# (call, workspace, outcome, argument, words in the title, reason)
FLAGGED: list[tuple[tuple[str, dict[str, Any]], str | None, Outcome, str, str, str]] = [
    (delete(f"{WS}/backups/db-2024-06-01.sql.gz"), WS, REVIEW, "path", "cannot be rebuilt", "dump"),
    (delete(f"{WS}/db/prod.dump"), WS, REVIEW, "path", "cannot be rebuilt", "a database dump"),
    (delete(f"{WS}/data/app.db"), WS, REVIEW, "path", "cannot be rebuilt", "the app's database"),
    (delete(f"{WS}/backups/"), WS, REVIEW, "path", "cannot be rebuilt", "the backups folder"),
    (delete(f"{WS}/migrations/"), WS, REVIEW, "path", "cannot be rebuilt", "the migrations"),
    (delete(f"{WS}/infra/terraform.tfstate"), WS, REVIEW, "path", "cannot be rebuilt", "state"),
    # writes and edits of system and start-up files: persistence, privilege
    (write("/etc/sudoers"), WS, REJECT, "file_path", "account database", "sudo rules"),
    (write("/etc/passwd"), None, REJECT, "file_path", "account database", "accounts"),
    (write("/etc/hosts"), None, REJECT, "file_path", "hosts file", "name redirection"),
    (write("/etc/crontab"), None, REJECT, "file_path", "cron", "scheduled code"),
    (write("/etc/cron.d/job"), WS, REJECT, "file_path", "cron", "scheduled code"),
    (write("/var/spool/cron/crontabs/root"), None, REJECT, "file_path", "cron", "user crontab"),
    (write("/etc/ld.so.preload"), None, REJECT, "file_path", "start-up", "library injection"),
    (write("/etc/systemd/system/x.service"), None, REJECT, "file_path", "service", "unit"),
    (write("/etc/profile.d/x.sh"), None, REJECT, "file_path", "start-up", "login script"),
    (write("/etc/nginx/nginx.conf"), WS, REJECT, "file_path", "system configuration", "/etc"),
    (write("/usr/local/bin/git"), WS, REJECT, "file_path", "system", "shadowing git"),
    (write("/bin/ls"), None, REJECT, "file_path", "system", "a system program"),
    (write("/boot/grub/grub.cfg"), None, REJECT, "file_path", "system", "the boot loader"),
    (write("/root/notes.txt"), WS, REJECT, "file_path", "root user", "root's home"),
    (write("/proc/sys/kernel/core_pattern"), None, REJECT, "file_path", "kernel", "a kernel knob"),
    (write("/dev/sda"), None, REJECT, "file_path", "disk", "overwriting a disk"),
    (edit("~/.bashrc"), WS, REJECT, "file_path", "shell profile", "runs at each shell"),
    (write("~/.zshrc"), None, REJECT, "file_path", "shell profile", "zsh"),
    (edit("~/.profile"), None, REJECT, "file_path", "shell profile", "login shell"),
    (edit("/root/.bashrc"), WS, REJECT, "file_path", "shell profile", "root's profile"),
    (write("/home/bob/.bash_profile"), None, REJECT, "file_path", "shell profile", "bash"),
    (write("~/.config/fish/config.fish"), None, REJECT, "file_path", "shell profile", "fish"),
    (write("~/.ssh/authorized_keys"), None, REJECT, "file_path", "authorized_keys", "ssh door"),
    (write("~/.ssh/config"), WS, REJECT, "file_path", "SSH client", "ProxyCommand"),
    (write("~/.ssh/id_rsa"), WS, REJECT, "file_path", "SSH", "replacing a key"),
    (write("~/.config/systemd/user/x.service"), None, REJECT, "file_path", "autostart", "unit"),
    (write("~/.config/autostart/x.desktop"), None, REJECT, "file_path", "autostart", "desktop"),
    (write("~/Library/LaunchAgents/x.plist"), None, REJECT, "file_path", "autostart", "macOS"),
    (write("/Library/LaunchDaemons/x.plist"), None, REJECT, "file_path", "launch", "macOS"),
    (write("~/.gitconfig"), WS, REJECT, "file_path", "git configuration", "core.pager"),
    (write("~/.aws/credentials"), WS, REJECT, "file_path", "AWS credentials", "cloud keys"),
    (write("~/.kube/config"), WS, REJECT, "file_path", "Kubernetes", "cluster access"),
    (write("~/.docker/config.json"), WS, REJECT, "file_path", "Docker", "credential helper"),
    (write("~/.npmrc"), WS, REJECT, "file_path", "credentials", "registry token"),
    (write("~/.pypirc"), WS, REJECT, "file_path", "credentials", "upload token"),
    (write("~/.netrc"), WS, REJECT, "file_path", "credentials", "passwords"),
    (write(".git/hooks/pre-commit"), WS, REJECT, "file_path", "git hook", "runs on commit"),
    (edit(".git/config"), WS, REJECT, "file_path", "git configuration", "hooksPath"),
    (write("vendor/lib/.git/hooks/post-checkout"), WS, REJECT, "file_path", "git hook", "nested"),
    (
        write(f"{WS}/.venv/lib/python3.11/site-packages/x.pth"),
        WS,
        REJECT,
        "file_path",
        "Python start-up",
        "runs in every python",
    ),
    # Windows
    (write("C:\\Windows\\System32\\evil.dll"), None, REJECT, "file_path", "Windows", "system32"),
    (
        write("%APPDATA%\\Microsoft\\Windows\\Start Menu\\Programs\\Startup\\x.bat"),
        None,
        REJECT,
        "file_path",
        "autostart",
        "user startup folder",
    ),
    (
        write("C:\\ProgramData\\Microsoft\\Windows\\Start Menu\\Programs\\StartUp\\x.lnk"),
        None,
        REJECT,
        "file_path",
        "startup",
        "all users' startup folder",
    ),
    (
        write("C:\\Users\\bob\\Documents\\PowerShell\\Microsoft.PowerShell_profile.ps1"),
        None,
        REJECT,
        "file_path",
        "PowerShell profile",
        "PowerShell persistence",
    ),
    (
        write("C:/Windows/System32/drivers/etc/hosts"),
        None,
        REJECT,
        "file_path",
        "hosts",
        "Windows hosts",
    ),
    # supply chain and agent settings: legitimate, but a human looks
    (
        edit(".github/workflows/ci.yml", CI_WITH_SECRET),
        WS,
        REVIEW,
        "file_path",
        "CI workflow",
        "CI runs it",
    ),
    (write(".gitlab-ci.yml", CI_WITH_SECRET), WS, REVIEW, "file_path", "CI workflow", "GitLab"),
    (write(".circleci/config.yml", CI_WITH_SECRET), WS, REVIEW, "file_path", "CI workflow", "CI"),
    (write("Jenkinsfile", CI_WITH_SECRET), WS, REVIEW, "file_path", "CI workflow", "Jenkins"),
    (write(".husky/pre-commit"), WS, REVIEW, "file_path", "hook manager", "husky"),
    (write(".pre-commit-config.yaml"), WS, REVIEW, "file_path", "hook manager", "pre-commit"),
    (write(".claude/settings.json", "{}\n"), WS, REVIEW, "file_path", "agent", "permissions"),
    (write(".mcp.json", "{}\n"), WS, REVIEW, "file_path", "agent", "MCP servers"),
    (write(".envrc"), WS, REVIEW, "file_path", "direnv", "runs on cd"),
    # outside the workspace
    (write("../other/x.py"), WS, REVIEW, "file_path", "outside the workspace", "sibling"),
    (write("/home/bob/notes.txt"), WS, REVIEW, "file_path", "outside", "someone's home"),
    (edit("/data/other/app.py"), WS, REVIEW, "file_path", "outside", "another project"),
    (delete("/home/bob/old.txt"), WS, REVIEW, "path", "outside", "a delete elsewhere"),
    (write("../other/x.py"), None, REVIEW, "file_path", "above the working folder", "escape"),
    (write("src/../../x.py"), None, REVIEW, "file_path", "above the working folder", "escape"),
    (write("/opt/tool/x.cfg"), None, REVIEW, "file_path", "system-wide", "/opt"),
    (write(".bashrc"), None, REVIEW, "file_path", "shell profile", "maybe the home's"),
    # deletes that cannot be undone
    (delete("/"), None, REJECT, "path", "root of the file system", "everything"),
    (delete("/*"), WS, REJECT, "path", "root of the file system", "everything"),
    (delete("~"), None, REJECT, "path", "home folder", "the home"),
    (delete("$HOME"), None, REJECT, "path", "home folder", "the home, by variable"),
    (delete("~/*"), WS, REJECT, "path", "home folder", "the home's content"),
    (delete("."), WS, REJECT, "path", "the workspace", "the workspace itself"),
    (delete("*"), WS, REJECT, "path", "the workspace", "all of the workspace"),
    (delete(WS), WS, REJECT, "path", "the workspace", "by absolute path"),
    (delete("/work"), WS, REJECT, "path", "holding the workspace", "an ancestor"),
    (delete("../"), WS, REJECT, "path", "holding the workspace", "the parent"),
    (delete("./*"), None, REJECT, "path", "working folder", "the working folder"),
    (delete("/etc"), None, REJECT, "path", "system", "system configuration"),
    (delete("/usr/lib"), None, REJECT, "path", "system", "system libraries"),
    (delete("~/Documents"), None, REJECT, "path", "Documents", "the user's documents"),
    (delete(".git"), WS, REJECT, "path", "history", "unpushed commits"),
    (delete("/var/log/auth.log"), None, REJECT, "path", "logs", "hiding traces"),
    (delete("~/.bash_history"), None, REJECT, "path", "history", "hiding traces"),
    (delete("~/.ssh/*"), WS, REJECT, "path", "SSH", "the user's keys"),
    (delete("C:\\"), None, REJECT, "path", "root", "a whole drive"),
    (delete("$TARGET/*"), WS, REVIEW, "path", "variable", "unknown target"),
    # reads of secrets
    (read("/etc/shadow"), None, REJECT, "file_path", "credential", "password hashes"),
    (read("/etc/passwd"), None, REVIEW, "file_path", "account database", "reconnaissance"),
    (read("~/.ssh/id_rsa"), None, REJECT, "file_path", "SSH private key", "the key"),
    (read("/home/bob/.ssh/deploy_key"), WS, REJECT, "file_path", "SSH", "any name in ~/.ssh"),
    (read("~/.ssh/known_hosts"), None, REVIEW, "file_path", "known-hosts", "lateral movement"),
    (read("~/.aws/credentials"), None, REJECT, "file_path", "AWS credentials", "cloud keys"),
    (read("~/.aws/config"), None, REVIEW, "file_path", "AWS configuration", "accounts"),
    (
        read("~/.config/gcloud/application_default_credentials.json"),
        None,
        REJECT,
        "file_path",
        "cloud",
        "gcloud",
    ),
    (read("~/.azure/msal_token_cache.json"), None, REJECT, "file_path", "cloud", "Azure"),
    (read("~/.kube/config"), None, REJECT, "file_path", "Kubernetes", "cluster tokens"),
    (read("~/.docker/config.json"), None, REJECT, "file_path", "Docker", "registry tokens"),
    (read("~/.netrc"), None, REJECT, "file_path", "credentials", "passwords"),
    (read("~/.git-credentials"), None, REJECT, "file_path", "credentials", "git tokens"),
    (read("~/.config/gh/hosts.yml"), None, REJECT, "file_path", "credentials", "GitHub token"),
    (read("~/.gnupg/private-keys-v1.d/x.key"), None, REJECT, "file_path", "GnuPG", "gpg key"),
    (read("/proc/self/environ"), None, REJECT, "file_path", "environment", "process secrets"),
    (read("/proc/1/environ"), None, REJECT, "file_path", "environment", "init's environment"),
    (
        read("/var/run/secrets/kubernetes.io/serviceaccount/token"),
        None,
        REJECT,
        "file_path",
        "secrets",
        "service account",
    ),
    (read("/etc/ssh/ssh_host_ed25519_key"), None, REJECT, "file_path", "credential", "host key"),
    (
        read("/home/alice/.config/google-chrome/Default/Login Data"),
        None,
        REJECT,
        "file_path",
        "browser",
        "saved passwords",
    ),
    (
        read("~/.mozilla/firefox/abc.default/logins.json"),
        None,
        REJECT,
        "file_path",
        "browser",
        "Firefox passwords",
    ),
    (
        read("~/Library/Keychains/login.keychain-db"),
        None,
        REJECT,
        "file_path",
        "key store",
        "macOS keychain",
    ),
    (read("~/.bash_history"), None, REVIEW, "file_path", "history", "past commands"),
    (read("server.key"), WS, REJECT, "file_path", "private key", "a TLS key"),
    (read("deploy/prod.pem"), WS, REJECT, "file_path", "private key", "a PEM key"),
    (read("keystore.p12"), WS, REJECT, "file_path", "private key", "a PKCS#12 bundle"),
    (read(".env"), WS, REVIEW, "file_path", "environment file", "the project's secrets"),
    (
        read("/home/dev/other-client/src/billing.py"),
        WS,
        REVIEW,
        "file_path",
        "home folder outside the workspace",
        "another client's code",
    ),
    (read("~/.gitconfig"), WS, REVIEW, "file_path", "outside the workspace", "private config"),
    (
        ("Grep", {"pattern": "BEGIN (RSA|OPENSSH) PRIVATE KEY", "path": "/home/dev"}),
        WS,
        REVIEW,
        "pattern",
        "secrets outside the workspace",
        "hunting keys in a home",
    ),
    (
        ("Glob", {"pattern": "**/id_rsa*", "path": "/"}),
        WS,
        REVIEW,
        "pattern",
        "SSH private key",
        "hunting keys on the whole disk",
    ),
    (read(".env.production"), WS, REVIEW, "file_path", "environment file", "production"),
    (read("config/secrets.yml"), WS, REVIEW, "file_path", "secrets file", "Rails secrets"),
    (read("terraform.tfstate"), WS, REVIEW, "file_path", "secrets file", "state holds secrets"),
    (
        read("%USERPROFILE%\\.ssh\\id_ed25519"),
        None,
        REJECT,
        "file_path",
        "SSH private key",
        "Windows home",
    ),
    (read("C:\\Windows\\System32\\config\\SAM"), None, REJECT, "file_path", "registry", "SAM"),
    (
        read("C:\\Users\\bob\\AppData\\Roaming\\Microsoft\\Protect\\x"),
        None,
        REJECT,
        "file_path",
        "key store",
        "DPAPI master keys",
    ),
]


@pytest.mark.parametrize(
    ("call", "workspace", "outcome", "argument", "title", "reason"),
    FLAGGED,
    ids=[f"{c[0][0]}:{c[0][1].get('file_path', c[0][1].get('path'))}" for c in FLAGGED],
)
def test_flagged_paths(
    call: tuple[str, dict[str, Any]],
    workspace: str | None,
    outcome: Outcome,
    argument: str,
    title: str,
    reason: str,
) -> None:
    got, findings, reasons = decide(*call, workspace=workspace)
    assert got is outcome, (reason, reasons)
    mine = [f for f in path_findings(findings) if f.argument == argument]
    assert len(mine) == 1, (reason, findings)
    severity = Severity.CRITICAL if outcome is REJECT else Severity.HIGH
    assert mine[0].severity is severity, reason
    assert title.lower() in mine[0].title.lower(), (reason, mine[0].title)
