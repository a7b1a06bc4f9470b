from argon2 import PasswordHasher
from argon2.exceptions import VerifyMismatchError

_hasher = PasswordHasher()


def hash_password(password):
    return _hasher.hash(password)


def check_password(stored, password):
    try:
        return _hasher.verify(stored, password)
    except VerifyMismatchError:
        return False
