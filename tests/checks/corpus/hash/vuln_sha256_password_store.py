import hashlib
import os


def register(db, username, password):
    salt = os.urandom(16).hex()
    digest = hashlib.sha256((salt + password).encode()).hexdigest()
    db.execute(
        "INSERT INTO users (name, salt, hash) VALUES (?, ?, ?)", (username, salt, digest)
    )
