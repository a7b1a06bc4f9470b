import psycopg


def rename_user(dsn: str, user_id: int, new_name: str) -> None:
    with psycopg.connect(dsn) as conn:
        conn.execute(f"UPDATE users SET name = '{new_name}' WHERE id = {user_id}")
