import os
import sys


def main():
    target = sys.argv[1]
    os.system("tar czf backup.tgz " + target)


if __name__ == "__main__":
    main()
