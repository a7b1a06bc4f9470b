import hashlib


def cache_token(content: bytes) -> str:
    return hashlib.sha1(content, usedforsecurity=False).hexdigest()
