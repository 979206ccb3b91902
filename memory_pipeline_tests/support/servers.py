"""Talking to Dagster servers a test started: a free loopback port, the webserver's GraphQL, and
waiting for a condition with a deadline that names what was awaited."""

import json
import socket
import time
import urllib.request

REPOSITORY = {"repositoryLocationName": "memory_pipeline", "repositoryName": "__repository__"}


def free_port() -> int:
    return free_ports(1)[0]


def free_ports(count: int) -> list[int]:
    """`count` distinct free loopback ports: every probe stays bound until all are chosen (one
    probe closed before the next would let the kernel hand out the same port twice)."""
    probes = [socket.socket() for _ in range(count)]
    try:
        for probe in probes:
            probe.bind(("127.0.0.1", 0))
        return [probe.getsockname()[1] for probe in probes]
    finally:
        for probe in probes:
            probe.close()


class GraphQL:
    def __init__(self, url: str):
        self.url = url

    def __call__(self, query: str, **variables) -> dict:
        request = urllib.request.Request(
            f"{self.url}/graphql",
            data=json.dumps({"query": query, "variables": variables}).encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            payload = json.loads(response.read())
        assert "errors" not in payload, payload["errors"]
        return payload["data"]


# How long a test waits for something that depends on the machine's speed: generous, so a loaded
# machine is slow and never failed; a hung test still ends.
DEADLINE_S = 300.0


def wait_for(condition, timeout_s: float, what: str):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        result = condition()
        if result:
            return result
        time.sleep(0.5)
    raise AssertionError(f"timed out after {timeout_s:.0f} s waiting for {what}")


def outside_address() -> str | None:
    """An address of this machine off loopback (a host the pipeline takes as remote), if it has one."""
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # no packet is sent: this only picks the outgoing interface
            address = probe.getsockname()[0]
        except OSError:
            return None
    return None if address.startswith("127.") else address
