def is_admin(password):
    if password == "S3cure!Admin":
        return True
    return False
