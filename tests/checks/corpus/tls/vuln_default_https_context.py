import ssl
import urllib.request

ssl._create_default_https_context = ssl._create_unverified_context


def fetch(url):
    with urllib.request.urlopen(url) as resp:
        return resp.read()
