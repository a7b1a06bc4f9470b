"""Where databases and stateful services keep their data, and a shell command that overwrites
it (for ``shell_rules_fs``): deleting ``/var/lib/postgresql/…`` or emptying
``/var/lib/mysql/ibdata1`` destroys what the service held, whatever the tool."""

from __future__ import annotations

import re

from .shell_model import Cmd
from .shell_paths import normal

__all__ = ["DATA_STORE", "overwrites_data"]

DATA_STORE = re.compile(
    r"^/(?:var/lib|var/opt|opt)/(?:postgresql|pgsql|mysql|mariadb|mongodb|mongo|redis|"
    r"elasticsearch|opensearch|etcd|cassandra|influxdb|clickhouse|rabbitmq|kafka|zookeeper|"
    r"docker/volumes|containerd|minio|couchdb|neo4j|mssql|vault)(?:/|$)"
)
"""Where databases and stateful services keep their data (``/var/lib/postgresql/15/main``)."""
_SETTINGS_FILE = re.compile(r"/(?:conf|config|etc)/|\.(?:conf|cnf|properties|ya?ml|json|ini)$")


def overwrites_data(cmd: Cmd, path: str, emptying: bool) -> bool:
    """``cmd`` empties (``emptying``: ``truncate``, ``cp /dev/null``, ``: >``) or overwrites
    ``path`` (``dd of=…``, ``> …``), a data file of a database or stateful service; its
    settings files and appends are ordinary system writes."""
    if not DATA_STORE.match(path) or _SETTINGS_FILE.search(path):
        return False
    overwritten = any(r.op in (">", ">|", "&>") and normal(r.target) == path for r in cmd.redirects)
    return overwritten or cmd.name == "dd" or emptying
