import crypt


def make_hash(password):
    return crypt.crypt(password, "ab")
