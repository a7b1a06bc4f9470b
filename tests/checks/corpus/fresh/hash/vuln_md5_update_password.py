import hashlib


def store_credentials(db, username, password):
    hasher = hashlib.md5()
    hasher.update(username.encode())
    hasher.update(password.encode())
    db.execute(
        "INSERT INTO credentials (username, pw) VALUES (?, ?)",
        (username, hasher.hexdigest()),
    )
