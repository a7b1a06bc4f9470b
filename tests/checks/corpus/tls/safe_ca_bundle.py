import requests


def fetch_status(url):
    response = requests.get(url, timeout=10, verify="/etc/ssl/internal-ca.pem")
    return response.json()
