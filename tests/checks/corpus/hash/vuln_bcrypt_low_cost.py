import bcrypt


def store_credentials(user, plain):
    user.password_hash = bcrypt.hashpw(plain.encode(), bcrypt.gensalt(rounds=4))
    user.save()
