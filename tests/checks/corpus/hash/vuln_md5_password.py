import hashlib

from app.models import User


def register(username, password):
    digest = hashlib.md5(password.encode()).hexdigest()
    return User.create(username=username, password_hash=digest)
