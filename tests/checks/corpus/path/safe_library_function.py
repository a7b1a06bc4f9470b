def load_text(path):
    """Read a text file (callers choose the path)."""
    with open(path, encoding="utf-8") as fh:
        return fh.read()
