import urllib3

http = urllib3.PoolManager(cert_reqs="CERT_NONE")


def get(url):
    return http.request("GET", url).data
