import requests


def make_session():
    session = requests.Session()
    session.verify = False
    return session
