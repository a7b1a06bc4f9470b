import json
import ssl
import urllib.request


def load_feed(url):
    context = ssl._create_unverified_context()
    with urllib.request.urlopen(url, context=context, timeout=15) as resp:
        return json.load(resp)
