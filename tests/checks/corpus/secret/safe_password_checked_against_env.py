import hmac
import os


def is_admin(password):
    return hmac.compare_digest(password, os.environ["ADMIN_PASSWORD"])


def connection(connector):
    return connector.connect(user="app", password=os.environ["DB_PASSWORD"])
