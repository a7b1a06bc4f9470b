import _pickle as cPickle
import socket


def serve(port):
    server = socket.socket()
    server.bind(("0.0.0.0", port))
    server.listen()
    conn, _ = server.accept()
    data = conn.recv(65536)
    job = cPickle.loads(data)
    return job
