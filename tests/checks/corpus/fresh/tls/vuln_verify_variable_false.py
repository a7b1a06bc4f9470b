import requests


def download(url, dest):
    check_certificate = False
    with requests.get(url, stream=True, verify=check_certificate, timeout=30) as resp:
        resp.raise_for_status()
        with open(dest, "wb") as fh:
            for chunk in resp.iter_content(65536):
                fh.write(chunk)
