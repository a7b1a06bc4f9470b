import tornado.web

from app.handlers import HANDLERS


def make_app():
    return tornado.web.Application(HANDLERS, cookie_secret="61oETzKXQAGaYdkL5gEmGeJJFuYh7EQnp2XdTP1o")
