import os


def run_report(name):
    runner = getattr(os, "system")
    return runner("generate-report --name " + name)
