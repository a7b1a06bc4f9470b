import subprocess


def compress(path):
    """Compress a file next to itself."""
    subprocess.run(f"gzip -k {path}", shell=True, check=True)
