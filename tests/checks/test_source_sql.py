"""SQL built from values in other languages' code needs a person; bound parameters, tagged
templates and constant names joined where no value goes are everyday."""

from __future__ import annotations

import pytest

from humangr.contracts import ActionContext, Outcome, ToolCall
from humangr.engine.checks import run_checks
from humangr.engine.checks.source_sql import built_sql
from humangr.engine.review import local_outcome

TITLE = "SQL built from values joined into its text"


def _write(path: str, content: str) -> tuple[Outcome, list[str]]:
    call = ToolCall(
        name="Write",
        arguments={"file_path": f"/srv/app/{path}", "content": content},
        workspace="/srv/app",
    )
    action = ActionContext(
        agent_id="a", action_type="tool_call", action_description="w", tool_call=call
    )
    return local_outcome(run_checks(action, local_only=True))


BUILT = {
    "java joins a parameter after =": (
        "src/main/java/a/ClaimDao.java",
        "class ClaimDao {\n  List<Claim> find(String payer, String sort) {\n"
        '    String sql = "SELECT id FROM claims WHERE payer ILIKE \'" + payer + "%\' ORDER BY "'
        " + sort;\n    return jdbc.query(sql, mapper);\n  }\n}\n",
    ),
    "typescript interpolates into quotes": (
        "src/users.ts",
        "export const byName = (db: Db, name: string) =>\n"
        "  db.query(`SELECT * FROM users WHERE name = '${name}'`);\n",
    ),
    "c# interpolated string": (
        "src/Repo.cs",
        "var cmd = new SqlCommand($\"SELECT * FROM Users WHERE Name = '{name}'\", conn);\n",
    ),
    "go formats the query": (
        "internal/store/users.go",
        'package store\nfunc q(name string) string {\n\treturn fmt.Sprintf("SELECT * FROM users '
        "WHERE name = '%s'\", name)\n}\n",
    ),
    "php joins request input with a dot": (
        "src/list.php",
        '<?php\n$q = "SELECT * FROM orders WHERE id = " . $id;\n$pdo->query($q);\n',
    ),
    "kotlin template": (
        "src/main/kotlin/a/Repo.kt",
        'fun find(id: String) = jdbc.queryForList("SELECT * FROM t WHERE id = ${id}")\n',
    ),
    "rails fragment interpolated": (
        "app/controllers/admin/customers_controller.rb",
        "def index\n  @c = Customer.where(\"name ILIKE '%#{params[:q]}%'\")\nend\n",
    ),
    "slick splices a value": (
        "app/repos/Sales.scala",
        'def by(col: String) = sql"""SELECT a FROM sales ORDER BY #$col""".as[Int]\n',
    ),
}


@pytest.mark.parametrize(("path", "content"), list(BUILT.values()), ids=list(BUILT))
def test_sql_built_from_values_needs_a_person(path: str, content: str) -> None:
    outcome, reasons = _write(path, content)
    assert outcome is not Outcome.APPROVED, reasons
    assert any(TITLE in r for r in reasons), reasons


BOUND = {
    "java binds with ?": (
        "src/main/java/a/ClaimDao.java",
        'class D {\n  List q(String p) {\n    return jdbc.query("SELECT id FROM claims WHERE payer '
        'ILIKE ? ORDER BY submitted_at DESC", mapper, p + "%");\n  }\n}\n',
    ),
    "a constant table name joined": (
        "src/main/java/a/Dao.java",
        'class D {\n  static final String T = "claims";\n'
        '  String q() { return "SELECT * FROM " + T + " WHERE id = ?"; }\n}\n',
    ),
    "a tagged template": (
        "src/users.ts",
        "export const byName = (name: string) => sql`SELECT * FROM users WHERE name = ${name}`;\n",
    ),
    "slick binds its interpolation": (
        "app/repos/Sales.scala",
        'def by(r: String) = sql"""SELECT a FROM sales WHERE region = $r""".as[Int]\n',
    ),
    "go numbered placeholders": (
        "internal/store/users.go",
        "package store\nfunc (s *S) q(ctx context.Context, id int64) {\n"
        "\ts.db.QueryContext(ctx, `SELECT name FROM users WHERE id = $1`, id)\n}\n",
    ),
    "rails binds with ?": (
        "app/models/customer.rb",
        "class Customer < ApplicationRecord\n"
        '  scope :named, ->(q) { where("name ILIKE ?", "%#{q}%") }\nend\n',
    ),
}


@pytest.mark.parametrize(("path", "content"), list(BOUND.values()), ids=list(BOUND))
def test_bound_sql_is_everyday(path: str, content: str) -> None:
    outcome, reasons = _write(path, content)
    assert outcome is Outcome.APPROVED, reasons


def test_hostile_text_is_read_within_bounds() -> None:
    bound = 'q = "SELECT a FROM t WHERE b = ?"\n' * 20_000
    assert built_sql('x = "SELECT a FROM t WHERE b = " + v\n' + bound) == 4
    assert built_sql(bound + 'x = "SELECT a FROM t WHERE b = " + v\n') is None  # 16 read
    assert built_sql('"SELECT a FROM t WHERE b = ' + "x" * 200_000) is None  # never closed
    assert built_sql(("'SELECT a FROM t WHERE b = ' + " * 3) + "v") is not None
    assert built_sql(("'SELECT a FROM t WHERE b = ' + " * 5_000) + "v") is None  # 8 pieces read
