import requests

from app import settings


def fetch(url):
    return requests.get(url, timeout=5, verify=settings.VERIFY_TLS)
