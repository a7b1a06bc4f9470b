import urllib3


def client():
    urllib3.disable_warnings(urllib3.exceptions.InsecureRequestWarning)
    return urllib3.PoolManager(cert_reqs="CERT_NONE", retries=3)
