import ssl

import httpx
import requests
import urllib3


def clients(ca_path: str):
    ctx = ssl.create_default_context(cafile=ca_path)
    ctx.check_hostname = True
    ctx.verify_mode = ssl.CERT_REQUIRED
    pool = urllib3.PoolManager(cert_reqs="CERT_REQUIRED", ca_certs=ca_path)
    session = requests.Session()
    session.verify = ca_path
    return ctx, pool, session, httpx.Client(verify=ctx)
