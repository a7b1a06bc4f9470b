import ssl

import urllib3


def make_pool():
    return urllib3.PoolManager(cert_reqs=ssl.CERT_NONE, retries=3)
