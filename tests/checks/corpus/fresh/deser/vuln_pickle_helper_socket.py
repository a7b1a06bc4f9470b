import pickle
import socketserver


def decode_message(data):
    header, _, body = data.partition(b"\n")
    if header != b"PICKLE":
        raise ValueError("unknown framing")
    return pickle.loads(body)


class JobHandler(socketserver.StreamRequestHandler):
    def handle(self):
        data = self.request.recv(65536)
        job = decode_message(data)
        self.wfile.write(repr(job).encode())
