import requests


def make_session(token):
    session = requests.Session()
    session.verify = True
    session.headers["Authorization"] = "Bearer " + token
    return session


def health(url):
    return requests.get(url, timeout=3, verify=True).ok
