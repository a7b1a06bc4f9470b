"""Destructive calls to the code hosts' APIs: GitHub (repositories, organizations, default
branches, rulesets, visibility, collaborators, keys, owners), GitLab and Bitbucket."""

from __future__ import annotations

from .http_api_rule_kit import DEFAULT_BRANCH, GITHUB, ID, C, H, Rule, flag, rule

__all__ = ["CODE_HOST_RULES"]

CODE_HOST_RULES: tuple[Rule, ...] = (
    rule(GITHUB, "DELETE", rf"^/repos/{ID}/{ID}$", C, "deletes the repository"),
    rule(GITHUB, "DELETE", rf"^/orgs/{ID}$", C, "deletes the organization"),
    rule(
        GITHUB,
        "DELETE",
        rf"^/repos/{ID}/{ID}/git/refs/heads/{DEFAULT_BRANCH}$",
        C,
        "deletes the default branch",
    ),
    rule(
        GITHUB,
        "PATCH POST",
        rf"^/repos/{ID}/{ID}/git/refs/heads/{DEFAULT_BRANCH}$",
        C,
        "force-updates the default branch",
        flag("force", True, "true"),
    ),
    rule(
        GITHUB,
        "DELETE",
        rf"^/repos/{ID}/{ID}/branches/{ID}/protection(?:/.*)?$",
        C,
        "removes branch protection",
    ),
    rule(GITHUB, "DELETE", rf"^/repos/{ID}/{ID}/rulesets/{ID}$", C, "removes a branch ruleset"),
    rule(
        GITHUB,
        "PATCH",
        rf"^/repos/{ID}/{ID}$",
        C,
        "makes the repository public",
        lambda b: flag("private", False, "false")(b) or flag("visibility", "public")(b),
    ),
    rule(
        GITHUB,
        "PUT",
        rf"^/repos/{ID}/{ID}/collaborators/{ID}$",
        C,
        "grants admin access to the repository",
        flag("permission", "admin", "maintain"),
    ),
    rule(
        GITHUB,
        "PUT",
        rf"^/repos/{ID}/{ID}/collaborators/{ID}$",
        H,
        "grants someone access to the repository",
    ),
    rule(
        GITHUB,
        "POST",
        rf"^/(?:repos/{ID}/{ID}|orgs/{ID})/hooks$",
        H,
        "adds a webhook: every event of the repository goes to its URL",
    ),
    rule(GITHUB, "POST", rf"^/repos/{ID}/{ID}/keys$", H, "adds a deploy key to the repository"),
    rule(
        GITHUB,
        "POST",
        r"^/user/(?:keys|gpg_keys|ssh_signing_keys)$",
        H,
        "adds a key to the account",
    ),
    rule(
        GITHUB,
        "PUT",
        rf"^/repos/{ID}/{ID}/actions/secrets/{ID}$",
        H,
        "sets a secret of the repository's workflows",
    ),
    rule(
        GITHUB,
        "PUT",
        rf"^/orgs/{ID}/memberships/{ID}$",
        C,
        "makes someone an organization owner",
        flag("role", "admin"),
    ),
    rule(
        None,
        "DELETE",
        rf"^/api/v4/(?:projects|groups)/{ID}$",
        C,
        "deletes the GitLab project or group",
    ),
    rule(
        None,
        "DELETE",
        rf"^/api/v4/projects/{ID}/(?:repository/branches/{DEFAULT_BRANCH}"
        rf"|protected_branches/{ID})$",
        C,
        "deletes or unprotects the default branch",
    ),
    rule(
        ("api.bitbucket.org",),
        "DELETE",
        rf"^/2\.0/repositories/{ID}/{ID}$",
        C,
        "deletes the repository",
    ),
)
"""The code hosts' rules, first in ``RULES``."""
