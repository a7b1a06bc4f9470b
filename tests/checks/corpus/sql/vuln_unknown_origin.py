def get_user(cursor, username):
    cursor.execute("SELECT * FROM users WHERE username = '%s'" % username)
    return cursor.fetchone()
