import subprocess
import sys


def checkout(branch: str) -> None:
    subprocess.run(["git", "checkout", "--", branch], check=True)


if __name__ == "__main__":
    checkout(sys.argv[1])
