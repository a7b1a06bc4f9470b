"""Catalogue of the SQL review: credential columns and tables, functions and procedures that
reach the operating system or files, administrator roles, scratch-table names and the
statements that only read or manage a session. Data and small predicates only."""

from __future__ import annotations

import re

__all__ = [
    "ADMIN_ROLES",
    "BENIGN_HEADS",
    "CREDENTIAL_TABLES",
    "FILE_FUNCTIONS",
    "OS_FUNCTIONS",
    "OS_PROCEDURES",
    "RECON_FUNCTIONS",
    "SCHEMA_TABLES",
    "SESSION_HEADS",
    "SLEEP_FUNCTIONS",
    "UNTRUSTED_LANGUAGES",
    "credential_column",
    "dated_scratch",
    "personal_table",
    "scratch_name",
]

_QUALIFIERS = frozenset(
    {"hash", "hashed", "digest", "enc", "encrypted", "cipher", "ciphertext", "plain", "plaintext",
     "value", "raw", "clear", "md5", "sha1", "sha256", "bcrypt", "crypt", "b64"}
)  # fmt: skip
_SECRET_WORDS = frozenset(
    {"password", "passwd", "pwd", "pass", "passphrase", "passcode", "secret", "token", "apikey",
     "cvv", "cvc", "cvv2", "ssn", "pin", "otp", "totp", "mfa"}
)  # fmt: skip
_SECRET_PAIRS = frozenset(
    {("api", "key"), ("private", "key"), ("secret", "key"), ("access", "key"), ("signing", "key"),
     ("card", "number"), ("cc", "number"), ("credit", "card"), ("account", "number"),
     ("social", "security"), ("auth", "key"), ("encryption", "key"), ("master", "key"),
     ("session", "key"), ("otp", "secret"), ("totp", "secret"), ("mfa", "secret"),
     ("recovery", "codes"), ("backup", "codes"), ("user", "pass"), ("login", "pass"),
     ("admin", "pass"), ("db", "pass"), ("root", "pass"), ("smtp", "pass"), ("ftp", "pass"),
     ("bank", "account"), ("bank", "routing"), ("routing", "number"), ("bank", "iban")}
)  # fmt: skip
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_SECRET_NAMES = frozenset({"authentication_string", "userpassword", "unicodepwd", "passwordhash"})
_ONLY_QUALIFIED = frozenset({"pin", "otp", "totp", "mfa"})
"""Words that name a secret only with a qualifier (``pin_hash``)."""
_NOT_TOKEN = frozenset({"page", "next", "continuation", "cursor", "pagination", "sync", "resume"})

CREDENTIAL_TABLES = frozenset(
    {"pg_shadow", "pg_authid", "pg_user_mapping", "sql_logins", "syslogins", "sysxlogins",
     "user$", "dba_users", "mysql.user", "shadow", "credentials", "api_keys", "apikeys",
     "secrets", "access_tokens", "oauth_tokens", "personal_access_tokens", "auth_tokens",
     "refresh_tokens", "passwords", "user_credentials", "oauth_access_tokens"}
)  # fmt: skip
"""Tables whose rows are credentials (``mysql.user``, ``pg_shadow``, ``api_keys``)."""
SCHEMA_TABLES = frozenset(
    {"information_schema", "pg_catalog", "sqlite_master", "sqlite_schema", "sys", "mysql",
     "all_tables", "all_tab_columns", "user_tables", "sysobjects", "syscolumns", "pg_tables",
     "pg_user", "pg_roles", "sysdatabases", "performance_schema"}
)  # fmt: skip
"""Catalogues an injection reads to learn the schema."""

FILE_FUNCTIONS = frozenset(
    {"LOAD_FILE", "PG_READ_FILE", "PG_READ_BINARY_FILE", "PG_LS_DIR", "PG_STAT_FILE",
     "LO_IMPORT", "LO_EXPORT", "READFILE", "WRITEFILE", "UTL_FILE", "OPENROWSET",
     "OPENDATASOURCE", "BFILENAME", "PG_FILE_WRITE", "FILE_READ", "FILE_WRITE", "EDITFILE",
     "LOAD_EXTENSION", "XP_DIRTREE", "XP_FILEEXIST", "XP_SUBDIRS"}
)  # fmt: skip
"""Functions that read or write the database server's files (or load code from them)."""
OS_FUNCTIONS = frozenset(
    {"SYS_EXEC", "SYS_EVAL", "XP_CMDSHELL", "DBLINK", "DBLINK_EXEC", "DBLINK_CONNECT",
     "UTL_HTTP", "UTL_TCP", "UTL_INADDR", "HTTPURITYPE", "DBMS_JAVA", "DBMS_SCHEDULER",
     "DBMS_PIPE", "DBMS_LDAP", "SP_OACREATE", "SP_OAMETHOD", "PG_EXECUTE_SERVER_PROGRAM",
     "SHELL", "SYSTEM", "EXEC_SHELL", "SP_EXECUTE_EXTERNAL_SCRIPT"}
)  # fmt: skip
"""Functions that run operating-system commands or open network connections from the server."""
OS_PROCEDURES = frozenset(
    {"XP_CMDSHELL", "SP_CONFIGURE", "SP_OACREATE", "SP_OAMETHOD", "SP_ADDSRVROLEMEMBER",
     "SP_ADDROLEMEMBER", "SP_ADDLOGIN", "SP_PASSWORD", "SP_GRANTLOGIN", "SP_GRANTDBACCESS",
     "SP_CHANGEDBOWNER", "SP_EXECUTE_EXTERNAL_SCRIPT", "XP_REGWRITE", "XP_REGREAD",
     "XP_DIRTREE", "XP_FILEEXIST", "SP_ADDEXTENDEDPROC", "SP_MAKEWEBTASK", "SP_ADDLINKEDSERVER",
     "SP_ADDLINKEDSRVLOGIN", "SP_SETAPPROLE", "SP_DROPSRVROLEMEMBER", "SP_DROPLOGIN",
     "SP_DROPUSER", "XP_SERVICECONTROL", "SP_START_JOB", "SP_ADD_JOBSTEP"}
)  # fmt: skip
"""Stored procedures (SQL Server mostly) that run commands, change logins or roles."""
SLEEP_FUNCTIONS = frozenset({"SLEEP", "PG_SLEEP", "BENCHMARK", "DBMS_LOCK", "RANDOMBLOB"})
RECON_FUNCTIONS = frozenset(
    {"VERSION", "USER", "CURRENT_USER", "SESSION_USER", "SYSTEM_USER", "DATABASE", "SCHEMA",
     "CURRENT_DATABASE", "DB_NAME", "SUSER_NAME", "SUSER_SNAME", "HOST_NAME", "@@VERSION",
     "@@HOSTNAME", "@@DATADIR", "@@BASEDIR", "SQLITE_VERSION", "BANNER", "CONNECTION_ID"}
)  # fmt: skip
"""What an injection reads first: the server's version, user and database names."""
ADMIN_ROLES = frozenset(
    {"postgres", "rds_superuser", "cloudsqlsuperuser", "azure_superuser", "superuser", "admin",
     "administrator", "root", "sa", "sysadmin", "db_owner", "dba", "dbo", "sys", "system",
     "securityadmin", "serveradmin", "azure_pg_admin", "pg_write_server_files",
     "pg_read_server_files", "pg_execute_server_program", "accountadmin", "orgadmin",
     "useradmin", "rdsadmin", "master", "owner"}
)  # fmt: skip
UNTRUSTED_LANGUAGES = frozenset(
    {"C", "PLPYTHONU", "PLPYTHON3U", "PLPYTHON2U", "PLPERLU", "PLTCLU", "PLSH", "PLRUBYU",
     "PLV8U", "JAVA", "EXTERNAL", "PYTHON", "R"}
)  # fmt: skip
SESSION_HEADS = frozenset(
    {"SHOW", "DESCRIBE", "DESC", "USE", "BEGIN", "START", "COMMIT", "ROLLBACK", "SAVEPOINT",
     "RELEASE", "END", "LISTEN", "NOTIFY", "UNLISTEN", "DEALLOCATE", "LOCK", "UNLOCK", "COMMENT",
     "REFRESH", "CHECKPOINT", "OPTIMIZE", "CHECK", "REPAIR", "CLUSTER", "REINDEX", "FETCH",
     "CLOSE", "MOVE", "PRINT", "ABORT", "DISCARD", "RESET", "PRAGMA", "CACHE", "UNCACHE", "MSCK",
     "SUMMARIZE", "FLUSH", "LIST", "LS", "INSTALL", "GET", "PUT", "VACUUM", "ANALYZE", "ANALYSE",
     "STATISTICS", "GO", "RAISERROR", "THROW", "USING", "UNDROP"}
)  # fmt: skip
"""Statements that manage a session, a transaction or the catalogue: harmless even when
sqlglot cannot parse them."""
BENIGN_HEADS = frozenset(
    {"SHOW", "DESCRIBE", "DESC", "USE", "BEGIN", "START", "COMMIT", "ROLLBACK", "SAVEPOINT",
     "RELEASE", "END", "EXPLAIN", "VACUUM", "ANALYZE", "ANALYSE", "LISTEN", "NOTIFY", "UNLISTEN",
     "PREPARE", "DEALLOCATE", "LOCK", "UNLOCK", "COMMENT", "REFRESH", "CHECKPOINT", "OPTIMIZE",
     "CHECK", "REPAIR", "CLUSTER", "REINDEX", "DECLARE", "FETCH", "CLOSE", "MOVE", "VALUES",
     "TABLE", "PRINT", "ABORT", "DISCARD", "RESET", "SELECT", "WITH", "INSERT", "UPSERT",
     "REPLACE", "PRAGMA", "CACHE", "UNCACHE", "MSCK", "SUMMARIZE", "FLUSH", "HANDLER", "GET",
     "RAISERROR", "THROW", "WAITFOR", "IF", "ELSE", "RETURN", "OPEN", "DO", "STATISTICS", "LIST",
     "LS", "INSTALL", "GO", "UNDROP"}
)  # fmt: skip
"""Statements that only read, manage a session or a transaction, or add rows."""

_SCRATCH = re.compile(
    r"(?i)^(?:#|temp_|tmp_|scratch_|test_|_tmp|_temp)|(?:_tmp|_temp|_scratch|_test|_bak|_backup"
    r"|_old)$|^(?:temp|tmp|scratch)\d*$"
)
_PERSONAL_TABLES = frozenset(
    {"users", "user", "accounts", "account", "admins", "admin", "customers", "customer",
     "members", "employees", "logins", "auth_user", "people", "persons", "patients", "clients",
     "profiles", "subscribers", "contacts"}
)  # fmt: skip


def _words(name: str) -> list[str]:
    spaced = _CAMEL.sub("_", name.strip('`"[]'))
    return [w for w in re.split(r"[^A-Za-z0-9]+", spaced.lower()) if w]


def credential_column(name: str) -> bool:
    """A column that holds a secret: ``password``, ``password_hash``, ``api_key``,
    ``refresh_token``, ``card_number``, ``ssn`` (not ``token_count``, ``password_changed_at``)."""
    if name.lower().strip('`"[]') in _SECRET_NAMES:
        return True
    words = _words(name)
    stripped = False
    while len(words) > 1 and words[-1] in _QUALIFIERS:
        words.pop()
        stripped = True
    if not words:
        return False
    last = words[-1]
    if len(words) >= 2 and (words[-2], last) in _SECRET_PAIRS:
        return True
    if last in _ONLY_QUALIFIED:
        return stripped
    if last == "pass":
        return len(words) == 1
    if last == "token" and len(words) >= 2 and words[-2] in _NOT_TOKEN:
        return False
    if last in _SECRET_WORDS:
        return True
    return "".join(words).endswith(("apikey", "secretkey", "privatekey", "accesskey"))


def personal_table(name: str) -> bool:
    """A table of people (and so of their credentials): ``users``, ``accounts``…"""
    return name.lower().strip('`"[]').rsplit(".", 1)[-1] in _PERSONAL_TABLES


def scratch_name(name: str) -> bool:
    """A temporary or scratch table's name (``#tmp``, ``tmp_orders``, ``orders_backup``)."""
    return bool(_SCRATCH.search(name.strip('`"[]').rsplit(".", 1)[-1]))


_SCRATCH_LEAD = re.compile(r"(?i)^(?:tmp|temp|scratch)_")
_DATE_STAMP = re.compile(r"(?:^|_)(?:19|20)\d\d_?(?:0[1-9]|1[0-2])_?(?:0[1-9]|[12]\d|3[01])(?:_|$)")


def dated_scratch(name: str) -> bool:
    """A scratch table a job makes for one day's run (``tmp_segment_20240610``,
    ``scratch_export_2024_06_10``): named temporary and stamped with its date. A backup
    (``orders_backup_20240610``) is not one: it is what a restore needs."""
    base = name.strip('`"[]').rsplit(".", 1)[-1]
    return bool(_SCRATCH_LEAD.match(base)) and bool(_DATE_STAMP.search(base[:200]))
