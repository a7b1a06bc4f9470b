from psycopg2 import sql


def rows_of(conn, table, row_id):
    query = sql.SQL("SELECT * FROM {} WHERE id = %s").format(sql.Identifier(table))
    with conn.cursor() as cur:
        cur.execute(query, (row_id,))
        return cur.fetchall()
