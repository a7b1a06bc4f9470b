import socket
import ssl


def legacy_connect(host, port):
    sock = socket.create_connection((host, port))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context.wrap_socket(sock)
