"""What may leave the machine (docs/llm.md, "What leaves the machine"): an endpoint off this machine
must be on the researchers' allowlist (settings.LLM_ENDPOINT_ALLOWLIST); the API key is read from the
environment variable the run names, at the moment of use, and never written anywhere. No Django here
(the caller passes the allowlist)."""
from __future__ import annotations

import ipaddress
import os
import re
from collections.abc import Sequence
from urllib.parse import urlsplit

ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,99}")
# What the OpenAI client sends where no key is needed (local vLLM, llama.cpp, Ollama).
NO_KEY = "not-needed"


class EndpointRefused(ValueError):
    """An endpoint that is malformed, or off this machine and not on the allowlist."""


class KeyUnavailable(ValueError):
    """The named environment variable is malformed or not set."""


def endpoint_host(url: str) -> str:
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise EndpointRefused(f"{url!r} is not an http(s) URL; give the base URL an OpenAI client takes, "
                              "e.g. http://127.0.0.1:8080/v1")
    if parts.username is not None or parts.password is not None or parts.query or parts.fragment:
        # Whatever is in the URL is stored with the run (its endpoint, the audit log): no credentials there.
        raise EndpointRefused(f"{parts.hostname}: give the endpoint without user, password or query; an API key comes "
                              "from the environment variable the run names (--api-key-env), never from the URL.")
    return parts.hostname.lower()


def is_loopback(url: str) -> bool:
    """Loopback addresses and the name "localhost" itself. A name under .localhost is not trusted: where
    the resolver is plain DNS it may resolve anywhere."""
    host = endpoint_host(url)
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def endpoint_check(url: str, allowlist: Sequence[str]) -> bool:
    """True when posts will leave this machine for `url` (allowed), False for loopback; raises
    EndpointRefused for an endpoint off this machine that the allowlist does not name. An entry is
    a host name (exact, case-insensitive) or a URL prefix (scheme, host and path)."""
    host = endpoint_host(url)
    if is_loopback(url):
        return False
    normal = url.strip().rstrip("/").lower()
    for entry in allowlist:
        entry = entry.strip().lower()
        if not entry:
            continue
        if "://" in entry:
            prefix = entry.rstrip("/")
            if normal == prefix or normal.startswith(prefix + "/"):
                return True
        elif host == entry:
            return True
    raise EndpointRefused(
        f"{host} is not on this machine and not on LLM_ENDPOINT_ALLOWLIST, so no post is sent there. A researcher "
        f"who accepts that posts leave the instance for it adds {host} to LLM_ENDPOINT_ALLOWLIST (comma-separated) "
        "and restarts the workers.")


def env_name_check(name: str) -> None:
    if name and not ENV_NAME.fullmatch(name):
        raise KeyUnavailable("Give the NAME of the environment variable holding the API key (e.g. DEEPSEEK_API_KEY), "
                             "never the key itself.")


def api_key(name: str) -> str:
    """The key from environment variable `name` (read now, kept nowhere); NO_KEY when no name is given."""
    env_name_check(name)
    if not name:
        return NO_KEY
    value = os.environ.get(name, "")
    if not value:
        raise KeyUnavailable(f"The environment variable {name} is not set (or empty) where this runs; set it for the "
                             "web process and the workers, or leave the key variable empty for a local endpoint.")
    return value


def scrub(text: str, secret: str) -> str:
    """`text` with every occurrence of the key replaced, and of any run of 8 or more of its first
    characters (endpoints echo a refused key's start: "sk-abcde****mnop")."""
    if not secret or secret == NO_KEY:
        return text
    text = text.replace(secret, "***")
    for length in range(len(secret) - 1, 7, -1):
        text = text.replace(secret[:length], "***")
    return text
