import socket
import ssl


def open_channel(host, port=8443):
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    raw = socket.create_connection((host, port))
    return ctx.wrap_socket(raw, server_hostname=host)
