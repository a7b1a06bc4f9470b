import hashlib
from pathlib import Path


def verify_download(path: Path, expected: str) -> bool:
    sha = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 16), b""):
            sha.update(block)
    return sha.hexdigest() == expected
