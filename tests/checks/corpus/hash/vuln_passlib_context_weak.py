from passlib.context import CryptContext

pwd_context = CryptContext(schemes=["hex_sha1"], deprecated="auto")


def hash_for_storage(raw):
    return pwd_context.hash(raw)
