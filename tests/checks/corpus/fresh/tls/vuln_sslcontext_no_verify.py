import socket
import ssl


def connect(host, port=443):
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    sock = socket.create_connection((host, port))
    return context.wrap_socket(sock, server_hostname=host)
