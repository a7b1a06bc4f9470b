"""Which configuration files ``config_files`` reads, by path (``config_kind``), and which of
those kinds it alone judges the commands of (``HOST_JOB_KINDS``). A leaf: the shell checks'
file readers (``tools.shell_files``) ask it too, without importing the readers."""

from __future__ import annotations

import posixpath
import re

__all__ = ["CONFIG_KINDS", "HOST_JOB_KINDS", "config_kind"]

CONFIG_KINDS = frozenset({"systemd", "cron", "nginx", "apache", "caddy", "terraform"})
_SYSTEMD = (".service", ".socket", ".timer", ".path", ".mount", ".automount")
_DROP_IN = re.compile(r"\.(?:service|socket|timer|path|mount)\.d$")
_TERRAFORM = (".tf", ".tf.json", ".hcl", ".tfvars", ".tfvars.json")
_WEB_FOLDERS = frozenset(
    {"nginx", "conf.d", "apache", "apache2", "httpd", "vhosts", "vhosts.d", "conf-available"}
    | {"conf-enabled", "sites-available", "sites-enabled"}
)
_CRONTAB_NAME = re.compile(
    r"crontab(?:[._-](?!(?:py|sh|js|ts|rb|go|md|json|ya?ml)$)[\w-]{1,40})?(?:\.txt)?"
)
"""``crontab``, ``crontab.prod``, ``crontab-dev.txt`` (not ``crontab.py``: code about crontabs)."""

HOST_JOB_KINDS = frozenset({"systemd", "cron"})
"""Kinds whose commands ``config_files`` judges with the shell rules line by line, in the
host's context (``config_hosts``): the shell checks' reading of configuration values
(``tools.shell_files``) leaves these files to it, so a command is judged once."""


def config_kind(path: str) -> str | None:
    """The kind of configuration file ``path`` names, or None when ``config_files`` does not
    read it: ``systemd`` (units, drop-ins), ``cron`` (``crontab``, ``crontab.prod``, ``*.cron``,
    ``*.crontab``, ``cron.d/*``), ``nginx`` (``nginx.conf``, ``*.conf`` under ``nginx/`` or
    ``conf.d/``, ``sites-available/*``), ``apache`` (``httpd.conf``, ``apache2.conf``,
    ``.htaccess``, vhosts), ``caddy`` (``Caddyfile``) or ``terraform`` (``*.tf``,
    ``*.tf.json``, ``*.hcl``, ``*.tfvars``)."""
    low = path.replace("\\", "/").lower()
    if not low or low.startswith("<"):
        return None
    name = posixpath.basename(low)
    folders = low.split("/")[:-1]
    parent = folders[-1] if folders else ""
    if name.endswith(_SYSTEMD) or (_DROP_IN.search(parent) and name.endswith(".conf")):
        return "systemd"
    if (
        _CRONTAB_NAME.fullmatch(name)
        or name.endswith((".cron", ".crontab"))
        or parent in ("cron.d", "crontabs")
    ):
        return "cron"
    if name == "caddyfile" or name.startswith("caddyfile.") or name.endswith(".caddyfile"):
        return "caddy"
    if name.endswith(_TERRAFORM):
        return "terraform"
    if name in ("httpd.conf", "apache2.conf", ".htaccess"):
        return "apache"
    if name == "nginx.conf" or name.endswith(".nginx"):
        return "nginx"
    conf = name.endswith((".conf", ".conf.template"))
    in_sites = parent in ("sites-available", "sites-enabled")
    if in_sites or (conf and (_WEB_FOLDERS.intersection(folders) or "vhost" in name)):
        apache = any(w in f for f in [*folders, name] for w in ("apache", "httpd", "vhost"))
        return "apache" if apache else "nginx"
    return None
