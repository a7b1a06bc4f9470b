import secrets


def new_api_token() -> str:
    token = secrets.token_urlsafe(32)
    return token


def password_reset_link(base_url: str) -> str:
    reset_token = secrets.token_hex(16)
    return f"{base_url}/reset?token={reset_token}"
