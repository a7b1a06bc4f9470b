import subprocess


def _run(cmd):
    return subprocess.check_output(cmd, shell=True)


def disk_usage():
    return _run("df -h /")


def uptime():
    return _run("uptime")
