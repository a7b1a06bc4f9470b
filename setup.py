"""Packaging: one import name. The repository's top-level folders are installed under ``humangr``
(``contracts/`` → ``humangr.contracts``, …); everything else is in ``pyproject.toml``."""

from setuptools import find_namespace_packages, setup

MAPPED = ("contracts", "engine", "actors", "agents")

setup(
    packages=[
        "humangr",
        *find_namespace_packages(include=["humangr.*"], exclude=["*__pycache__*"]),
        *(
            f"humangr.{name}"
            for name in find_namespace_packages(
                include=[f"{folder}*" for folder in MAPPED], exclude=["*__pycache__*"]
            )
        ),
    ],
    package_dir={"humangr": "humangr", **{f"humangr.{folder}": folder for folder in MAPPED}},
)
