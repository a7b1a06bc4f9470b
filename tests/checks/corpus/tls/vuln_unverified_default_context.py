import ssl
import urllib.request

ssl._create_default_https_context = ssl._create_unverified_context


def download(url):
    return urllib.request.urlopen(url).read()
