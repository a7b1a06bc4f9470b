"""Protected paths in home folders: SSH, shell profiles and autostart entries (persistence),
cloud and tool credentials, key and password stores, browsers, wallets, histories and the
coding agent's own settings. Patterns start at ``~/`` (any user's home, ``/root`` too)."""

from __future__ import annotations

from .paths_rule import CRED, PERSIST, rule

__all__ = ["HOME_RULES"]

_BROWSER = (
    r"^~/(?:\.config/(?:google-chrome[^/]*|chromium|bravesoftware|microsoft-edge[^/]*|vivaldi"
    r"|opera[^/]*)|library/application support/(?:google/chrome[^/]*|chromium|bravesoftware"
    r"|microsoft edge[^/]*|vivaldi|com\.operasoftware\.opera[^/]*|firefox)"
    r"|appdata/(?:local|roaming)/(?:google/chrome[^/]*|chromium|bravesoftware|microsoft/edge"
    r"|vivaldi|opera software|mozilla/firefox)|\.mozilla/firefox|snap/[^/]+/common/\.mozilla"
    r"|library/safari|library/cookies)"
)
_STORES = (
    r"(?:login data(?: for account)?|cookies|web data|local state|logins\.json|key[34]\.db"
    r"|cookies\.sqlite|signons\.sqlite|cookies\.binarycookies|history)"
)
_AGENT = "they set what the agent may run without asking, its hooks and its MCP servers"

HOME_RULES = (
    rule("a public SSH key", CRED, "CC-", r"^~/\.ssh/[^/]+\.pub$"),
    rule(
        "the SSH authorized_keys file",
        "a key added there logs anyone in as this user",
        "CCH",
        r"^~/\.ssh/authorized_keys2?$",
    ),
    rule(
        "the SSH client configuration",
        "ProxyCommand and LocalCommand run programs",
        "CCH",
        r"^~/\.ssh/(?:config|rc|environment)$",
    ),
    rule(
        "the SSH known-hosts file",
        "changing it lets a forged server pass",
        "CHH",
        r"^~/\.ssh/known_hosts2?(?:\.old)?$",
    ),
    rule("an SSH private key", CRED, "CCC", r"^~/\.ssh(?:/.*)?$"),
    rule(
        "a shell profile",
        PERSIST,
        "CH-",
        r"^~/\.(?:bashrc|bash_profile|bash_login|bash_logout|profile|zshrc|zshenv|zprofile|zlogin"
        r"|zlogout|cshrc|tcshrc|kshrc|mkshrc|login|logout|xprofile|xinitrc|xsessionrc|xsession"
        r"|pam_environment|config/fish/(?:config\.fish|conf\.d/.+|functions/.+)"
        r"|config/environment\.d/.+)$",
    ),
    rule(
        "a PowerShell profile",
        PERSIST,
        "CH-",
        r"^~/(?:(?:onedrive[^/]*/)?documents/(?:windows)?powershell|\.config/powershell)/"
        r"[^/]*profile\.ps1$",
    ),
    rule(
        "the git configuration",
        "core.pager, core.sshCommand, core.hooksPath and aliases run programs on the next git "
        "command",
        "CH-",
        r"^~/(?:\.gitconfig|\.config/git/config)$",
    ),
    rule(
        "an editor or tool start-up file",
        "it can run commands when the tool starts",
        "H--",
        r"^~/(?:\.vimrc|\.exrc|\.config/nvim/init\.(?:vim|lua)|\.emacs|\.emacs\.d/init\.el"
        r"|\.tmux\.conf|\.screenrc|\.curlrc|\.wgetrc|\.inputrc|\.pythonrc(?:\.py)?)$",
    ),
    rule(
        "a user autostart entry",
        PERSIST,
        "CH-",
        r"^~/(?:\.config/(?:systemd/user|autostart|upstart|plasma-workspace/(?:env|shutdown))"
        r"|\.local/share/systemd/user|library/(?:launchagents|launchdaemons)|\.kde4?/autostart"
        r"|appdata/roaming/microsoft/windows/start menu/programs/startup)(?:/.*)?$",
    ),
    rule("the Windows user registry hive", PERSIST, "CCC", r"^~/ntuser\.dat(?:\.log\d*)?$"),
    rule(
        "a program folder on the user's PATH",
        "a program placed there can shadow a real one",
        "H--",
        r"^~/(?:\.local/bin|bin)/.",
    ),
    rule(
        "the AWS credentials file",
        CRED,
        "CCC",
        r"^~/\.aws/(?:credentials|(?:sso|cli)/cache(?:/.*)?)$",
    ),
    rule(
        "the AWS configuration",
        "credential_process runs a program; it names the accounts",
        "CCH",
        r"^~/\.aws(?:/.*)?$",
    ),
    rule(
        "cloud CLI credentials",
        CRED,
        "CCC",
        r"^~/(?:\.config/gcloud|\.azure|\.oci|\.aliyun|\.bluemix|\.config/doctl|\.config/hcloud"
        r"|\.config/heroku|\.config/rclone|\.fly)(?:/.*)?$",
    ),
    rule("the Kubernetes configuration", CRED, "CCC", r"^~/\.kube/config$"),
    rule("the Kubernetes cache", "", "H--", r"^~/\.kube(?:/.*)?$"),
    rule(
        "the Docker credentials",
        "credential helpers run programs; it holds registry tokens",
        "CCC",
        r"^~/\.docker/config\.json$",
    ),
    rule(
        "a credentials file",
        CRED,
        "CCC",
        r"^~/(?:\.netrc|_netrc|\.git-credentials|\.config/git/credentials|\.npmrc|\.pypirc"
        r"|\.pgpass|\.vault-token|\.config/gh/hosts\.yml|\.config/hub|\.terraformrc"
        r"|\.terraform\.d/credentials\.tfrc\.json|\.cargo/credentials(?:\.toml)?|\.gem/credentials"
        r"|\.s3cfg|\.boto|\.databrickscfg|\.snowsql/config)$",
    ),
    rule(
        "a package or database client configuration",
        "it often holds tokens or passwords",
        "HHH",
        r"^~/(?:\.yarnrc(?:\.yml)?|\.my\.cnf|\.m2/settings\.xml|\.gradle/gradle\.properties"
        r"|\.nuget/nuget/nuget\.config|\.config/pip/pip\.conf|\.pip/pip\.conf|\.condarc"
        r"|\.config/op/.*)$",
    ),
    rule(
        "a GnuPG private key",
        CRED,
        "CCC",
        r"^~/\.gnupg/(?:private-keys-v1\.d(?:/.*)?|secring\.gpg)$",
    ),
    rule(
        "the GnuPG folder",
        "its configuration runs programs (pinentry)",
        "CCH",
        r"^~/\.gnupg(?:/.*)?$",
    ),
    rule(
        "a password or key store",
        CRED,
        "CCC",
        r"^~/(?:\.password-store|\.local/share/(?:keyrings|kwalletd)|library/keychains"
        r"|appdata/(?:roaming|local)/microsoft/(?:credentials|protect|vault))(?:/.*)?$",
    ),
    rule(
        "a browser's password or cookie store",
        "saved passwords and session cookies log in as the user",
        "CCC",
        _BROWSER + r"/(?:.*/)?" + _STORES + "$",
    ),
    rule(
        "a browser profile",
        "it holds the user's history and sessions",
        "HHH",
        _BROWSER + r"(?:/.*)?$",
    ),
    rule(
        "a cryptocurrency wallet",
        CRED,
        "CCC",
        r"^~/(?:\.bitcoin|\.litecoin|\.dogecoin|\.ethereum/keystore|\.electrum|\.config/solana"
        r"|\.config/exodus|library/application support/exodus|appdata/roaming/(?:bitcoin|electrum"
        r"|exodus|ethereum))(?:/.*)?$",
    ),
    rule(
        "a shell history",
        "it holds past commands, often with secrets; erasing it hides traces",
        "CCH",
        r"^~/(?:\.(?:bash_history|zsh_history|zhistory|history|sh_history|psql_history"
        r"|mysql_history|python_history|node_repl_history|rediscli_history|sqlite_history"
        r"|irb_history|lesshst)|\.local/share/fish/fish_history|appdata/roaming/microsoft/windows"
        r"/powershell/psreadline/consolehost_history\.txt)$",
    ),
    rule(
        "the coding agent's settings",
        _AGENT,
        "HH-",
        r"^~/(?:\.claude\.json|\.claude/(?:settings(?:\.local)?\.json|hooks/.+)|\.cursor/mcp\.json"
        r"|\.codeium/windsurf/mcp_config\.json|\.codex/config\.toml|\.gemini/settings\.json"
        r"|\.continue/config\.(?:json|ya?ml)|\.aider\.conf\.ya?ml)$",
    ),
)
"""Home-folder rules, most specific first."""
