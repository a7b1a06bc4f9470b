import marshal


def load_extension(path):
    with open(path, "rb") as fh:
        code = marshal.loads(fh.read()[16:])
    exec(code)
