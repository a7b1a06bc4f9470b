import hashlib


def import_user(user, raw):
    user.password = hashlib.md5(raw.encode()).hexdigest()
    return user
