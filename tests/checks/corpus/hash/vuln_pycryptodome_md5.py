from Crypto.Hash import MD5


def store_credentials(db, user, password):
    db.save(user, MD5.new(password.encode()).hexdigest())
