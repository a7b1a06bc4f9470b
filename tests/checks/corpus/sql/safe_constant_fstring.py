TABLE = "users"
COLUMNS = ", ".join(["id", "name", "email"])


def count_users(cur):
    cur.execute(f"SELECT COUNT(*) FROM {TABLE}")
    return cur.fetchone()[0]


def all_users(cur):
    cur.execute(f"SELECT {COLUMNS} FROM {TABLE} ORDER BY id")
    return cur.fetchall()
