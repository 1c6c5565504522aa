"""deploy/nginx.conf's hardening (issue 20), read from the rendered template (no nginx needed: runs in test-fast).

The same items on real responses, through a running nginx: tests/deploy/test_replicas.py.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from benchmarks import replicas_load as rl
from lessons import link


def _parse(text: str) -> list:
    """nginx's configuration as nested (name, args, block | None), comments dropped; quotes kept on arguments."""
    tokens = re.findall(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|[{};]|[^\s{};]+',
                        "\n".join(line.split("#", 1)[0] for line in text.splitlines()))
    pos = 0

    def block() -> list:
        nonlocal pos
        out, words = [], []
        while pos < len(tokens):
            tok = tokens[pos]
            pos += 1
            if tok == ";":
                out.append((words[0], words[1:], None))
                words = []
            elif tok == "{":
                out.append((words[0], words[1:], block()))
                words = []
            elif tok == "}":
                return out
            else:
                words.append(tok)
        assert not words, words
        return out

    return block()


def _find(tree: list, name: str) -> list:
    return [d for d in tree if d[0] == name]


@pytest.fixture(scope="module")
def conf() -> str:
    return rl.render_conf(Path("/tmp/attnlab-test-prefix"), "127.0.0.1:8790",
                          [("127.0.0.1", 8761), ("127.0.0.1", 8762)])


@pytest.fixture(scope="module")
def server(conf) -> list:
    (http,) = _find(_parse(conf), "http")
    (srv,) = _find(http[2], "server")
    return srv[2]


def _locations(server) -> dict[str, list]:
    return {" ".join(args): body for _, args, body in _find(server, "location")}


def _size(value: str) -> int:
    m = re.fullmatch(r"(\d+)([kKmM]?)", value)
    return int(m[1]) * {"": 1, "k": 1024, "m": 1024 * 1024}[m[2].lower()]


def test_no_header_names_a_replica(conf):
    """$upstream_addr only in the access log's format; no add_header anywhere sends it (or any X-Upstream)."""
    body = "\n".join(line.split("#", 1)[0] for line in conf.splitlines())
    assert "x-upstream" not in body.lower()
    uses = [line.strip() for line in body.splitlines() if "$upstream_addr" in line]
    assert len(uses) == 1 and uses[0].startswith("'route=") and "upstream=\"$upstream_addr\"" in uses[0]
    every_add_header = re.findall(r"^\s*add_header\s+(.*);", body, re.M)
    assert every_add_header and not any("upstream" in h for h in every_add_header)


def test_request_bodies_are_limited_to_1_mb(server):
    (limit,) = _find(server, "client_max_body_size")
    assert _size(limit[1][0]) == 1024 * 1024
    for body in _locations(server).values():  # no location raises it again
        assert not _find(body, "client_max_body_size")


def test_framing_is_for_this_origin_only_on_every_location(server):
    headers = {args[0]: args[1:] for _, args, _ in _find(server, "add_header")}
    assert headers["X-Frame-Options"] == ["SAMEORIGIN", "always"]
    assert headers["Content-Security-Policy"] == ['"frame-ancestors \'self\'"', "always"]
    assert headers["Set-Cookie"] == ["$attnlab_route_cookie", "always"]
    # nginx passes the server's add_header lines down only to a location with no add_header of its own
    for where, body in _locations(server).items():
        assert not _find(body, "add_header"), where


def test_metrics_are_404_and_the_websocket_and_health_routes_are_proxied(server):
    locations = _locations(server)
    assert set(locations) == {"/", "/_stcore/metrics"}  # a prefix: /_stcore/metrics/ and ?families=... too
    assert locations["/_stcore/metrics"] == [("return", ["404"], None)]
    root = locations["/"]
    assert _find(root, "proxy_pass") == [("proxy_pass", ["http://attnlab_replicas"], None)]
    # /_stcore/stream, /_stcore/health and /_stcore/host-config match no other location: they reach "/"
    assert ("proxy_set_header", ["Upgrade", "$http_upgrade"], None) in root


def test_a_shared_link_of_20_kb_fits_the_request_line_buffer(server):
    """A request line must fit in one buffer: a query of MAX_QUERY_CHARS (20,000) characters as sent, and a
    20 KiB URL, with room for the page's path and the protocol."""
    (buffers,) = _find(server, "large_client_header_buffers")
    number, size = buffers[1]
    line = len("GET /qkv?") + max(link.MAX_QUERY_CHARS, 20 * 1024) + len(" HTTP/1.1") + 256
    assert int(number) >= 2 and _size(size) >= line
    assert _size(size) == 64 * 1024  # the value docs/deploy.md states
