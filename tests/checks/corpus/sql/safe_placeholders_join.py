def fetch_many(cur, ids):
    marks = ", ".join(["?"] * len(ids))
    cur.execute(f"SELECT * FROM items WHERE id IN ({marks})", ids)
    return cur.fetchall()
