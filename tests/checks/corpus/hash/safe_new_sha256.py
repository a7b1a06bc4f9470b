import hashlib


def signature(payload: bytes) -> str:
    return hashlib.new("sha256", payload).hexdigest()
