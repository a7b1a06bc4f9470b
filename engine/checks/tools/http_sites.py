"""Catalogue of hosts an HTTP review knows: cloud metadata services, request-capture and
out-of-band testing services, paste and file-drop sites, and which hosts each kind of token
belongs to. Data only, plus the one matcher every list uses."""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = [
    "CAPTURE",
    "ECHO",
    "FORGES",
    "INTERNAL_NAMES",
    "INTERNAL_SUFFIXES",
    "METADATA_CREDENTIAL_PATH",
    "METADATA_HOSTS",
    "OUT_OF_BAND",
    "PACKAGE_INDEXES",
    "PASTE",
    "PAYMENT",
    "SECRET_HOMES",
    "SENSITIVE_PORTS",
    "SHORTENERS",
    "allowed",
    "host_in",
    "internal_name",
    "is_capture",
    "is_echo",
    "is_paste",
]

METADATA_HOSTS = frozenset(
    {
        "metadata.google.internal",
        "metadata.goog",
        "metadata",
        "instance-data",
        "instance-data.ec2.internal",
        "metadata.azure.com",
        "metadata.azure.internal",
        "metadata.tencentyun.com",
        "metadata.platformequinix.com",
        "metadata.packet.net",
        "metadata.oraclecloud.com",
        "metadata.hetzner.cloud",
        "metadata.vultr.com",
    }
)
METADATA_CREDENTIAL_PATH = re.compile(
    r"(?i)/(?:latest|[\d-]{10})/meta-data/(?:iam|ram)/|/latest/api/token|/computemetadata/v1"
    r"/instance/service-accounts|/metadata/identity/oauth2|/v2/credentials|/metadata/v1/user-data"
    r"|/latest/user-data|/opc/v[12]/identity|/openstack/latest/(?:meta_data|vendor_data)"
)
"""Paths of metadata services that hand out credentials or user data (which holds secrets)."""

OUT_OF_BAND = (
    "interact.sh",
    "interactsh.com",
    "oast.pro",
    "oast.live",
    "oast.site",
    "oast.online",
    "oast.fun",
    "oast.me",
    "burpcollaborator.net",
    "oastify.com",
    "canarytokens.com",
    "dnslog.cn",
    "dnslog.link",
    "ceye.io",
)
"""Out-of-band testing services: a request there exists to prove a server can be reached."""

CAPTURE = (
    "webhook.site",
    "requestbin.com",
    "requestbin.net",
    "requestbin.io",
    "m.pipedream.net",
    "ngrok.io",
    "ngrok.app",
    "ngrok.dev",
    "ngrok-free.app",
    "ngrok-free.dev",
    *OUT_OF_BAND,
    "requestcatcher.com",
    "beeceptor.com",
    "hookbin.com",
    "postb.in",
    "ptsv2.com",
    "ptsv3.com",
    "mockbin.org",
    "mockbin.io",
    "requestinspector.com",
    "webhook.cool",
    "trycloudflare.com",
    "loca.lt",
    "localtunnel.me",
    "serveo.net",
    "serveousercontent.com",
    "localhost.run",
    "lhr.life",
    "lhr.rocks",
    "pagekite.me",
    "bore.pub",
    "xip.io",
    "free.beeceptor.com",
    "typedwebhook.tools",
    "app.interactsh.com",
)
"""Services that record whatever is sent to them, or tunnel it to someone's machine."""

FORGES = re.compile(
    r"(?:^|\.)(?:github\.com|gitlab\.com|bitbucket\.org|codeberg\.org|git\.sr\.ht|"
    r"dev\.azure\.com|golang\.org|go\.googlesource\.com|google\.golang\.org|gopkg\.in|"
    r"go\.uber\.org|k8s\.io|sigs\.k8s\.io|honnef\.co|mvdan\.cc|cloud\.google\.com)$"
)
"""Public forges and well-known module hosts: code from them is what the ecosystem installs."""
PACKAGE_INDEXES = re.compile(
    r"(?:^|\.)(?:registry\.npmjs\.org|registry\.yarnpkg\.com|npm\.pkg\.github\.com|"
    r"pypi\.org|pythonhosted\.org|rubygems\.org|crates\.io|packagist\.org|"
    r"codeload\.github\.com|githubusercontent\.com|download\.pytorch\.org|nodejs\.org|"
    r"yarnpkg\.com|npmjs\.com)$"
)
"""Package indexes and the forges' download hosts: what installs and lockfiles fetch from."""

ECHO = (
    "httpbin.org",
    "httpbingo.org",
    "httpbun.com",
    "httpbun.org",
    "postman-echo.com",
    "echo.hoppscotch.io",
)
"""Public request-echo services: they answer with whatever they were sent. A plain request there
is a test of an HTTP client; a credential or people's data sent there is handed to a third
party (and often into its logs), as to a request-capture site."""

SHORTENERS = (
    "bit.ly",
    "bitly.com",
    "tinyurl.com",
    "t.co",
    "goo.gl",
    "is.gd",
    "v.gd",
    "ow.ly",
    "buff.ly",
    "rebrand.ly",
    "cutt.ly",
    "shorturl.at",
    "rb.gy",
    "tiny.cc",
    "t.ly",
    "s.id",
    "shorte.st",
    "adf.ly",
    "bl.ink",
    "lnkd.in",
)
"""Link shorteners: the address a request really reaches is behind a redirect."""
PASTE = (
    "pastebin.com",
    "gist.github.com",
    "gist.githubusercontent.com",
    "paste.ee",
    "hastebin.com",
    "hastebin.skyra.pw",
    "transfer.sh",
    "0x0.st",
    "file.io",
    "termbin.com",
    "ix.io",
    "sprunge.us",
    "dpaste.com",
    "dpaste.org",
    "ghostbin.com",
    "ghostbin.co",
    "rentry.co",
    "rentry.org",
    "controlc.com",
    "paste.rs",
    "catbox.moe",
    "gofile.io",
    "anonfiles.com",
    "bashupload.com",
    "temp.sh",
    "filebin.net",
    "tmpfiles.org",
    "justpaste.it",
    "pastes.io",
    "privatebin.net",
    "pastie.org",
    "katb.in",
    "clbin.com",
    "oshi.at",
    "keep.sh",
    "uguu.se",
    "pixeldrain.com",
    "bpa.st",
    "paste.c-net.org",
    "p.ip.fi",
    "wetransfer.com",
    "sendspace.com",
    "mega.nz",
    "anonymfile.com",
    "files.catbox.moe",
)
"""Sites where whatever is posted becomes readable by anyone with the link."""

INTERNAL_SUFFIXES = (
    ".internal",
    ".local",
    ".localdomain",
    ".lan",
    ".intranet",
    ".corp",
    ".home.arpa",
    ".cluster.local",
    ".svc",
)
INTERNAL_NAMES = frozenset(
    {"kubernetes", "kubernetes.default", "host.docker.internal", "gateway.docker.internal"}
)

SENSITIVE_PORTS = {
    22: "SSH",
    23: "telnet",
    25: "SMTP",
    2375: "the Docker API",
    2376: "the Docker API",
    2379: "etcd",
    3306: "MySQL",
    5432: "PostgreSQL",
    5984: "CouchDB",
    6379: "Redis",
    6443: "the Kubernetes API",
    8500: "Consul",
    8200: "Vault",
    9200: "Elasticsearch",
    10250: "the kubelet",
    10255: "the kubelet",
    11211: "memcached",
    27017: "MongoDB",
}
"""Ports of services that trust local callers: reaching them by a URL is how SSRF attacks go."""

SECRET_HOMES: dict[str, tuple[str, ...]] = {
    "GitHub token": ("github.com", "githubusercontent.com", "ghcr.io", "ghe.com"),
    "GitLab token": ("gitlab.com",),
    "Slack token": ("slack.com",),
    "Stripe live key": ("stripe.com",),
    "Stripe test key": ("stripe.com",),
    "Okta API token": ("okta.com", "oktapreview.com", "okta-emea.com", "okta-gov.com"),
    "OpenAI API key": ("openai.com", "openai.azure.com"),
    "Anthropic API key": ("anthropic.com",),
    "npm token": ("npmjs.org", "npmjs.com"),
    "PyPI token": ("pypi.org",),
    "SendGrid API key": ("sendgrid.com",),
    "Twilio API key": ("twilio.com",),
    "Discord bot token": ("discord.com", "discordapp.com"),
    "Azure storage key": ("core.windows.net",),
    "Mailchimp API key": ("mailchimp.com",),
    "Square OAuth secret": ("squareup.com", "squareupsandbox.com"),
    "AWS credential": ("amazonaws.com", "aws.amazon.com"),
    "Google API key": ("googleapis.com", "google.com"),
    "Hugging Face token": ("huggingface.co", "hf.co"),
    "Shopify token": ("myshopify.com", "shopify.com"),
    "DigitalOcean token": ("digitalocean.com",),
    "Linear API key": ("linear.app",),
    "Postman API key": ("getpostman.com", "postman.com"),
}
"""The hosts each kind of token (as ``scan_secrets`` names it) is meant to be sent to."""

PAYMENT = (
    "stripe.com",
    "braintreegateway.com",
    "adyen.com",
    "adyenpayments.com",
    "checkout.com",
    "squareup.com",
    "paypal.com",
    "authorize.net",
    "worldpay.com",
    "mollie.com",
)
"""Payment processors: card numbers are what they are sent."""


def host_in(host: str, suffixes: Iterable[str]) -> bool:
    """``host`` is one of ``suffixes`` or a subdomain of one."""
    return any(host == s or host.endswith("." + s) for s in suffixes)


_CAPTURE_LABEL = re.compile(
    r"(?:^|[.-])(?:requestbin|hookbin|requestcatcher|interactsh|burpcollaborator|canarytokens?|"
    r"webhook-?site|pipedream|beeceptor|mockbin|ngrok)(?:[.-]|$)"
)
_PASTE_LABEL = re.compile(r"^(?:paste|pastes|pastebin|hastebin|dpaste|ghostbin|termbin)\.")


def is_capture(host: str) -> bool:
    """A request-capture, out-of-band or tunnel service: a known one, or a host named after
    one (``x.requestbin.example.net``)."""
    return host_in(host, CAPTURE) or bool(_CAPTURE_LABEL.search(host))


def is_echo(host: str) -> bool:
    """A public request-echo service (``httpbin.org``, ``postman-echo.com``)."""
    return host_in(host, ECHO)


def is_paste(host: str) -> bool:
    """A public paste or file-drop site: a known one, or a host named as one
    (``paste.example.org``)."""
    return host_in(host, PASTE) or bool(_PASTE_LABEL.match(host))


def allowed(host: str, patterns: Iterable[str]) -> bool:
    """``host`` matches an allow-list entry: exactly, or ``*.domain`` for its subdomains."""
    host = host.lower().rstrip(".")
    for raw in patterns:
        entry = raw.strip().lower().rstrip(".")
        if entry.startswith("*."):
            if host.endswith(entry[1:]) and len(host) > len(entry) - 1:
                return True
        elif entry and host == entry:
            return True
    return False


def internal_name(host: str) -> bool:
    """A name only an internal network resolves (``*.internal``, ``*.svc.cluster.local``)."""
    return host in INTERNAL_NAMES or host.endswith(INTERNAL_SUFFIXES)
