about = {}
with open("src/pkg/__about__.py", encoding="utf-8") as fh:
    exec(fh.read(), about)

VERSION = about["__version__"]
