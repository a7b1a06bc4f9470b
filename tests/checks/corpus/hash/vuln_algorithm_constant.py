import hashlib

ALGORITHM = "sha1"


def api_key_digest(api_key):
    return hashlib.new(ALGORITHM, api_key.encode()).hexdigest()
