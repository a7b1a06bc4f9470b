import requests

REQUEST_OPTIONS = {"timeout": 10, "verify": False}


def fetch_status(url):
    response = requests.get(url, **REQUEST_OPTIONS)
    response.raise_for_status()
    return response.json()
