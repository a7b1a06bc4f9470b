import code
import subprocess
import sys


def install(package: str) -> None:
    subprocess.run([sys.executable, "-m", "pip", "install", "--", package], check=True)
    subprocess.run([sys.executable, "-c", "import site; print(site.getsitepackages())"])


def banner() -> None:
    console = code.InteractiveConsole()
    console.push("import this")
