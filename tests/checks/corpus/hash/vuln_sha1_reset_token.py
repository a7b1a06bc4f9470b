import hashlib
import time


def new_reset_token(user_id):
    reset_token = hashlib.sha1(f"{user_id}:{time.time()}".encode()).hexdigest()
    return reset_token
