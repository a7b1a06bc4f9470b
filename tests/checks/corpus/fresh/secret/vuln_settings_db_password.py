DEBUG = False

DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": "orders",
        "USER": "orders_app",
        "PASSWORD": "q7Vd!x2Lp9#rTz4W",
        "HOST": "db.internal",
    }
}
