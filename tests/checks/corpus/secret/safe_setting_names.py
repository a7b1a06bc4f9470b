SECRET_KEY_ENV = "SECRET_KEY"
PASSWORD_FIELD = "password"
TOKEN_URL = "/oauth/token"
