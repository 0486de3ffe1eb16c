"""The sandbox reached in process (``SandboxServer.transport()``, sandbox/in_process.py): the
same answers as over its socket, the same client address for its throttle, and what a
client sees of a dropped answer, a slow one and a stopped server as a socket would show it.
Real sockets beside it: the server still listens for everyone else."""

import httpx
import pytest

from tests.helpers import payment


def _client(sb, transport=None, timeout=10.0, mode="test"):
    headers = {"Authorization": f"Bearer {sb.key(mode)}", "Accept": "application/json"}
    return httpx.AsyncClient(base_url=sb.base_url + "/", headers=headers, timeout=timeout, transport=transport)


async def test_the_same_answers_as_over_the_socket(sandbox):
    async with _client(sandbox) as net, _client(sandbox, sandbox.server.transport()) as near:
        made = await near.post("api/payment", json=payment("T-NEAR"))
        assert made.status_code == 201, made.text
        assert made.json()["data"]["checkout_url"].startswith(sandbox.base_url + "/")  # its own address
        # what one made, the other reads: one sandbox, one database
        seen = await net.get("api/verify-payment/T-NEAR")
        assert seen.status_code == 200 and seen.json()["data"]["tx_ref"] == "T-NEAR"
        for path in ("api/verify-payment/NOPE", "api/verify-payment/T-NEAR", "openapi.json"):
            a, b = await net.get(path), await near.get(path)
            assert (a.status_code, a.json()) == (b.status_code, b.json()), path
        # a key it does not know is refused the same way
        near.headers["Authorization"] = "Bearer sk_test-nobody"
        net.headers["Authorization"] = "Bearer sk_test-nobody"
        a, b = await net.get("api/verify-payment/T-NEAR"), await near.get("api/verify-payment/T-NEAR")
        assert a.status_code == b.status_code in (401, 403) and a.json() == b.json()


async def test_its_throttle_counts_it_as_this_computer(make_sandbox):
    sb = make_sandbox("throttled", base_path="/pay", rate_limit=3)
    async with _client(sb) as net, _client(sb, sb.server.transport()) as near:
        said = [(await c.get("api/verify-payment/NOPE")).status_code for c in (net, near, net, near)]
    assert said == [404, 404, 404, 429]  # one window for 127.0.0.1, whichever way it came


async def test_a_dropped_answer_is_a_connection_closed_without_one(sandbox):
    sandbox.faults(drop_after_commit_rate=1.0)
    async with _client(sandbox, sandbox.server.transport()) as near:
        with pytest.raises(httpx.RemoteProtocolError):
            await near.post("api/payment", json=payment("T-DROPPED"))
    sandbox.faults()
    async with _client(sandbox) as net:  # committed, as after a connection cut
        assert (await net.get("api/verify-payment/T-DROPPED")).status_code == 200


async def test_an_answer_slower_than_the_read_timeout_times_out(sandbox):
    sandbox.faults(latency_ms=3000)
    async with _client(sandbox, sandbox.server.transport(), timeout=0.3) as near:
        with pytest.raises(httpx.ReadTimeout):
            await near.get("api/verify-payment/NOPE")


async def test_nothing_answers_once_it_stopped(make_sandbox):
    sb = make_sandbox("stopped", base_path="/pay")
    transport = sb.server.transport()
    sb.stop()
    async with _client(sb, transport) as near, _client(sb) as net:
        with pytest.raises(httpx.ConnectError):
            await near.get("api/verify-payment/NOPE")
        try:
            answer = await net.get("api/verify-payment/NOPE")
        except httpx.ConnectError:
            return
        # The port it freed is the system's again: another worker's sandbox may already listen
        # there (a fresh clone's run saw it). Whatever answers does not know this one's key.
        assert answer.status_code in (401, 403), (answer.status_code, answer.text)
