import requests


def fetch_status(url):
    response = requests.get(url, timeout=10, verify=False)
    return response.json()
