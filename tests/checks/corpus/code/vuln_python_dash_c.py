import subprocess
import sys


def run_migration_step(step_source: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", step_source], capture_output=True, text=True, check=True
    )
    return done.stdout
