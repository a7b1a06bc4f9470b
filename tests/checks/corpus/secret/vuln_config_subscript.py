from flask import Flask

app = Flask(__name__)
app.config["SECRET_KEY"] = "super-secret"
app.config["SESSION_COOKIE_SECURE"] = True
