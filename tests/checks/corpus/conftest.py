"""The corpus is data for `humangr checks-eval`, not tests: pytest collects nothing here."""

collect_ignore_glob = ["*"]
