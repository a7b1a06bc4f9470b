"""Configuration files that hold a service's sign-in beside its settings, for an attachment
that leaves by mail or chat (``egress``): a site's ``wp-config.php`` (database password and
salts), a database or warehouse client's connection file (``.my.cnf``, Snowflake's
``connections.toml``, ``.snowsql/config``, ``.databrickscfg``), a storage tool's (``.s3cfg``,
``.boto``, ``rclone.conf``) and the folders such clients keep them in
(``~/.config/snowflake/``, ``~/.dbt/``). A sample or template of one (``wp-config-sample.php``)
holds none and is not one.
"""

from __future__ import annotations

import re

__all__ = ["config_secret_file"]

_FILE = re.compile(
    r"(?i)(?:^|[/\\])(?:wp-config\.php|\.my\.cnf|\.mylogin\.cnf|connections\.toml|\.s3cfg|"
    r"\.boto|rclone\.conf|\.databrickscfg|\.pgservice\.conf|\.odbc\.ini|tnsnames\.ora)$"
)
_DIR = re.compile(
    r"(?i)(?:^|[/\\])(?:\.config[/\\](?:snowflake|rclone|gh|doctl|heroku)|\.snowsql|\.dbt)"
    r"[/\\][^/\\]{1,120}$"
)
_SAMPLE = re.compile(r"(?i)sample|example|template|\.dist$|\.tpl$")


def config_secret_file(path: str) -> bool:
    """Whether ``path`` names a configuration file that holds a service's credentials."""
    text = path.strip().strip("'\"")[:1024]
    if not text or _SAMPLE.search(text.rpartition("/")[2]):
        return False
    return bool(_FILE.search(text) or _DIR.search(text))
