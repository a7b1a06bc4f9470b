import hashlib
import os

ITERATIONS = 1000


def derive(password, salt=None):
    salt = salt or os.urandom(16)
    key = hashlib.pbkdf2_hmac("sha256", password.encode(), salt, ITERATIONS)
    return salt, key
