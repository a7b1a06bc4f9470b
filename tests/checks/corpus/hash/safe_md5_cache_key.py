import hashlib


def cache_key(user_id: str, page: int) -> str:
    return "page:" + hashlib.md5(f"{user_id}:{page}".encode()).hexdigest()
