"""Implementations of the ``humangr`` sub-commands."""
