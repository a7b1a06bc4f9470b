import hashlib
import secrets


def issue_api_token(db, user_id):
    token = secrets.token_urlsafe(32)
    token_hash = hashlib.sha256(token.encode()).hexdigest()
    db.execute("INSERT INTO api_tokens (user_id, hash) VALUES (?, ?)", (user_id, token_hash))
    return token


def content_id(blob: bytes) -> str:
    return hashlib.sha1(blob).hexdigest()
