"""What a path in a command names: the root, a home folder, a system folder, a device, a
credential, a place that runs things at start-up, a log — and whether it lies outside the
workspace. Paths are only read as text: nothing here touches the file system."""

from __future__ import annotations

import posixpath
import re

from .shell_catalogue import words
from .shell_scratch import ci_workspace

__all__ = [
    "DEVICE",
    "HISTORY",
    "LOGS",
    "PERSISTENCE",
    "PRIVILEGE_FILES",
    "SECRET_PATH",
    "SYSTEM_DIRS",
    "classify",
    "empty_var_root",
    "is_home",
    "is_secret",
    "normal",
    "outside_workspace",
]

_HOME = re.compile(r"^(?:~[\w.-]*|\$\{?HOME\}?|/root|/home/[^/]+|/Users/[^/]+)$")
_HOME_PREFIX = re.compile(r"^(?:~[\w.-]*|\$\{?HOME\}?|/root|/home/[^/]+|/Users/[^/]+)(?=/|$)")
DEVICE = re.compile(
    r"^/dev/(?:[sh]d[a-z]+\d*|nvme\d+n\d+(?:p\d+)?|vd[a-z]+\d*|xvd[a-z]+\d*|mmcblk\d+(?:p\d+)?|"
    r"disk\d+(?:s\d+)?|rdisk\d+|md\d+|dm-\d+|mapper/\S+|sr\d+|loop\d+|nbd\d+|mem|kmem|port)$"
)
HISTORY = re.compile(
    r"(?:^|/)\.(?:bash|zsh|sh|ksh|mysql|psql|python|node_repl|lesshst|"
    r"sqlite|rediscli)_?history$|(?:^|/)\.zhistory$|(?:^|/)\.history$"
)
LOGS = re.compile(
    r"^/var/log(?:/.*)?$|^/var/(?:adm|run/utmp)|(?:^|/)(?:wtmp|btmp|utmp|lastlog|auth\.log|"
    r"secure|syslog|messages|audit\.log|kern\.log)(?:\.\d+)?$|^/var/audit(?:/|$)"
)
PERSISTENCE = re.compile(
    r"^/etc/cron|^/var/spool/cron|^/etc/anacrontab|^/etc/(?:systemd|init\.d|init|rc\d?\.d|"
    r"xdg/autostart|update-motd\.d|profile\.d|apt/apt\.conf\.d)(?:/|$)|^/(?:usr/)?lib/systemd/"
    r"|/\.config/(?:systemd|autostart)(?:/|$)|^/etc/rc\.local$|^/etc/(?:profile|bash\.bashrc|"
    r"bashrc|environment|zshrc|zprofile|zshenv|ld\.so\.preload|ld\.so\.conf(?:\.d/.*)?)$"
    r"|(?:^|/)\.(?:bashrc|bash_profile|bash_login|bash_logout|profile|zshrc|zprofile|zshenv|"
    r"zlogin|kshrc|cshrc|tcshrc|inputrc|vimrc|exrc|lessfilter|gdbinit|pythonrc|npmrc_hook)$"
    r"|/\.config/fish/config\.fish$|(?:^|/)authorized_keys2?$|(?:^|/)\.git/hooks(?:/|$)"
    r"|/Library/Launch(?:Agents|Daemons)/|^/etc/modules-load\.d/|^/etc/udev/rules\.d/"
    r"|(?:^|/)\.ssh/(?:config|rc)$|^/etc/ssh/sshd_config|^/etc/rsyslog(?:\.conf$|\.d/)"
)
PRIVILEGE_FILES = re.compile(
    r"^/etc/(?:sudoers(?:\.d(?:/.*)?)?|passwd|shadow|group|gshadow|doas\.conf|security/.*|"
    r"pam\.d/.*|polkit-1/.*)$"
)
_HOME_DIRS = re.compile(
    r"^/(?:\.ssh|\.gnupg|\.aws|\.kube|\.config|\.local|Documents|Desktop|Pictures|Downloads|"
    r"Library|Music|Videos|projects|src|code|work|repos|git|dev)$"
)
_NO_PUBLIC_KEY = re.compile(r"^/etc/(?:shadow|gshadow|sudoers|master\.passwd|security/opasswd)$")
_SAFE_TMP = re.compile(r"^/(?:(?:tmp|var/tmp|private/tmp)/.+|var/cache/[^/]+(?:/.*)?)$")
_CACHES = re.compile(
    r"(?:^|/)(?:\.cache|\.npm|\.yarn|\.pnpm-store|node_modules|__pycache__|\.pytest_cache|"
    r"\.mypy_cache|\.ruff_cache|\.tox|\.venv|venv|\.gradle/caches|\.m2/repository|\.cargo/"
    r"registry|\.rustup/tmp|go/pkg/mod|\.bundle|\.local/share/Trash|Library/Caches|"
    r"\.terraform|\.next|dist|build|target|\.parcel-cache|\.turbo|\.nuxt|coverage)(?:/|$)"
)


def normal(path: str) -> str:
    """``path`` without quotes, trailing slashes, ``/.``, ``/*`` or ``//``; ``~`` kept; a
    ``..`` step taken back (``a/../b`` is ``b``) unless the path starts at ``~`` or a
    variable."""
    p = path.strip().strip("'\"")
    p = re.sub(r"/+", "/", p)
    if "/./" in p:  # ``/./etc``, ``~/./.ssh``: the same folder
        p = re.sub(r"/(?:\./)+", "/", p)
    while len(p) > 1 and (p.endswith("/") or p.endswith("/.")):
        p = (p[:-2] or "/") if p.endswith("/.") else p[:-1]
    if p.startswith("/") and ".." in p:
        p = posixpath.normpath(p)
    elif ".." in p and not p.startswith(("~", "$")) and ".." in p.split("/"):
        p = posixpath.normpath(p)  # ``./build/../..`` is ``..``: where it lands decides
    return p


def is_home(path: str) -> bool:
    """``~``, ``$HOME``, ``/root``, ``/home/alice``, ``/Users/alice``."""
    return bool(_HOME.match(normal(path)))


def is_secret(path: str) -> bool:
    """A file that holds credentials or a private key (public keys excepted)."""
    p = normal(path)
    if p.endswith(".pub") and _NO_PUBLIC_KEY.match(p[:-4]):
        return True  # no public key is named after these: the suffix is a disguise
    if p.endswith(".pub") or re.search(
        r"\.env\.(?:example|sample|template|dist)|\.ssh/(?:known_hosts|authorized_keys2?|config)$",
        p,
    ):
        return False
    return bool(SECRET_PATH.search(p))


def _strip_glob(path: str) -> tuple[str, bool]:
    """The folder a glob deletes everything in: ``/*`` → ``/``, ``~/*`` → ``~``."""
    p = path.strip().strip("'\"")
    m = re.match(r"^(.*?)(/?)(?:\*|\.\*|\.\[!.\]\*|\{\*,\.\*\}|\.\?\*)$", p)
    if m is None:
        return p, False
    if m.group(1) or m.group(2):
        return (m.group(1) or "/"), True
    return ".", True


def classify(path: str, cwd: str | None = None) -> str | None:
    """``root``, ``home``, ``system``, ``device`` or ``history``/``log`` for the places whose
    loss is irreversible and wide; None for anything else."""
    p, glob = _strip_glob(path)
    if not p.startswith(("/", "~", "$")) and cwd is not None:
        if p in (".", "*", "./*", "") or (glob and p in (".", "")):
            p = cwd
        elif p.startswith("./") or not p.startswith("-"):
            p = posixpath.join(cwd, p)
    p = normal(p)
    if p == "/":
        return "root"
    if is_home(p):
        return "home"
    if HISTORY.search(p):
        return "history"
    if LOGS.match(p):
        return "log"
    if p in SYSTEM_DIRS or p.lower() in SYSTEM_DIRS:
        return "system"
    if DEVICE.match(p):
        return "device"
    m = _HOME_PREFIX.match(p)
    if m and _HOME_DIRS.match(p[m.end() :]):
        return "home"
    return None


def empty_var_root(path: str) -> bool:
    """A path that becomes the root, a glob of it or a system folder when its variable is
    empty or unset: ``$DIR/``, ``"$DIR/"*``, ``${X}/*``, ``$X/etc`` (``${X:?}`` is guarded)."""
    m = re.match(r"^\$\{?(\w+)\}?(/.*)$", path.strip().strip("'\""))
    if not m or m.group(1) == "HOME":
        return False
    rest = normal(_strip_glob(m.group(2))[0])
    return rest in ("/", "") or rest in SYSTEM_DIRS


def outside_workspace(path: str, workspace: str | None) -> bool:
    """An absolute, ``~`` or ``..`` path outside ``workspace`` (temporary and cache folders
    count as inside: deleting them is routine)."""
    p = normal(path)
    if _SAFE_TMP.match(p) or ci_workspace(p):
        return False
    if p.startswith(("~", "$HOME", "${HOME}")):
        return not _CACHES.search(p)
    if p.startswith("/"):
        if workspace:
            root = normal(workspace)
            return not (p == root or p.startswith(root.rstrip("/") + "/"))
        return True
    return p == ".." or p.startswith("../")


SYSTEM_DIRS = words(
    """
    / /bin /boot /dev /etc /lib /lib32 /lib64 /libx32 /opt /proc /root /sbin /srv /sys /usr
    /var /home /mnt /media /run /snap /usr/bin /usr/sbin /usr/lib /usr/local /usr/share
    /usr/local/bin /usr/include /var/lib /var/log /var/www /var/lib/docker /var/lib/mysql
    /var/lib/postgresql /etc/ssh /etc/ssl /etc/systemd /system /library /applications /users
    /private /windows c: c:/windows /System /Library /Applications /Users
    """
)


SECRET_PATH = re.compile(
    r"(?:^|/)(?:shadow-?|gshadow-?|sudoers(?:\.d(?:/.*)?)?|master\.passwd|\.netrc|_netrc|"
    r"\.git-credentials|\.pgpass|\.my\.cnf|\.npmrc|\.pypirc|\.dockercfg|"
    r"id_(?:rsa|dsa|ecdsa|ed25519)(?:_sk)?|[\w.-]*\.(?:key|p12|pfx|jks|keystore|ppk|kdbx|"
    r"ovpn)|[\w.-]*(?:key|priv|private)[\w.-]*\.pem|\.env(?:\.(?!example|sample|template|dist|defaults?\b|schema)"
    r"[\w.-]+)?|credentials(?:\.json|\.db)?|\.boto|\.s3cfg|secrets?\.(?:ya?ml|json|toml)|"
    r"(?:access|service)[_-]?(?:account|token)s?[\w.-]*\.json|ssh_host_\w+_key|"
    r"\.vault-token|token)$"
    r"|(?:^|/)\.(?:aws|ssh|gnupg|kube|docker|azure)/[^/]+$|/\.config/(?:gcloud|gh|hub|"
    r"rclone|doctl|op|netlify|heroku)(?:/|$)|^/proc/(?:\d+|self|\$\w+|\$\{\w+\}|\$\([^/]*\)|`[^/`]*`|\*)/environ$"
    r"|^/etc/(?:shadow|gshadow|sudoers|master\.passwd|krb5\.keytab|ssl/private(?:/.*)?)$"
    r"|(?:^|/)\.kube/config$|(?:^|/)\.docker/config\.json$|^/var/run/secrets(?:/|$)"
    r"|(?:^|/)(?:wp-config\.php|\.htpasswd|terraform\.tfstate(?:\.backup)?)$"
    r"|(?:chrome|chromium|brave-browser|microsoft-edge|google-chrome[\w-]*|BraveSoftware/"
    r"Brave-Browser|Google/Chrome|Microsoft/Edge)/(?:[^/]+/)?(?:Login Data|Cookies|Web Data|"
    r"Local State)(?:-journal)?$|(?:\.mozilla/firefox|Firefox/Profiles)/[^/]+/(?:logins\.json|"
    r"key[34]\.db|cookies\.sqlite|formhistory\.sqlite)$|(?:^|/)Library/Keychains(?:/|$)",
    re.IGNORECASE,
)
"""Files that hold credentials or private keys (``/etc/shadow``, ``~/.ssh/id_ed25519``,
``.env``, ``~/.aws/credentials``, ``/proc/1/environ``). Public keys and ``known_hosts`` of
``.ssh`` are matched too: the rules exempt ``*.pub`` reads."""
