import requests

CORPORATE_BUNDLE = "/etc/ssl/certs/corporate-bundle.pem"


def post_event(url, event):
    resp = requests.post(url, json=event, timeout=5, verify=CORPORATE_BUNDLE)
    resp.raise_for_status()
    return resp.status_code
