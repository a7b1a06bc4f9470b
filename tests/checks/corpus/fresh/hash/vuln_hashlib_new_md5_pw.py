import hashlib


def legacy_hash(user_password):
    h = hashlib.new("md5", user_password.encode("utf-8"))
    return h.hexdigest()
