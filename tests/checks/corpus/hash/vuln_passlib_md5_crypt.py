from passlib.hash import md5_crypt


def set_password(account, new_secret):
    account.pw_hash = md5_crypt.hash(new_secret)
