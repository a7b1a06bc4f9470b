import hashlib


def checksum(path):
    with open(path, "rb") as fh:
        return hashlib.sha256(fh.read()).hexdigest()


def legacy_checksum(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()
