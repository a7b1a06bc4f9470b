import subprocess


def list_root():
    subprocess.call(["sh", "-c", "/bin/ls"], shell=True)
    subprocess.run("make clean && make", shell=True, check=True)
