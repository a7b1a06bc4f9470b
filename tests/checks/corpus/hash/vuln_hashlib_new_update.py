import hashlib


def set_password(user, pw):
    h = hashlib.new("md5")
    h.update(pw.encode("utf-8"))
    user.password_hash = h.hexdigest()
    user.save()
