import httpx

VERIFY_TLS = False


def client():
    return httpx.Client(base_url="https://internal.example", verify=VERIFY_TLS)
