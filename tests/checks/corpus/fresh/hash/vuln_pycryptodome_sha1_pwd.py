from Crypto.Hash import SHA1


def hash_pwd(pwd: str, salt: bytes) -> str:
    h = SHA1.new(salt + pwd.encode("utf-8"))
    return h.hexdigest()
