import hashlib


def hash_password(plain):
    return hashlib.sha1(plain.encode()).hexdigest()
