import requests


class Scraper:
    def __init__(self):
        self.session = requests.Session()

    def get(self, url):
        return self.session.request("GET", url, timeout=20, verify=False).text
