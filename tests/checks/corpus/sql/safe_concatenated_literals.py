def names(cur):
    cur.execute("SELECT id, name " + "FROM users " + "WHERE active = 1")
    return cur.fetchall()


def pair(cur):
    cur.execute("SELECT %s, %s FROM settings" % ("key", "value"))
    return dict(cur.fetchall())
