DEBUG = False
ALLOWED_HOSTS = ["example.org"]
SECRET_KEY = "django-insecure-7x#k2@q9v!m3r$t8w&z1p^c5n"
