import subprocess

import tornado.web


class PingHandler(tornado.web.RequestHandler):
    def get(self):
        host = self.get_argument("host")
        out = subprocess.check_output("ping -c 1 " + host, shell=True)
        self.write(out)
