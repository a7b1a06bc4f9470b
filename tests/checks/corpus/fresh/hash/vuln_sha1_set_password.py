import hashlib
import os


class Account:
    def __init__(self, username):
        self.username = username
        self.salt = os.urandom(8).hex()
        self.digest = ""

    def set_password(self, raw):
        self.digest = hashlib.sha1((self.salt + raw).encode()).hexdigest()

    def check_password(self, raw):
        return hashlib.sha1((self.salt + raw).encode()).hexdigest() == self.digest
