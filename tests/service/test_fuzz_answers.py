"""Fuzzing the client's reader: whatever a (hostile) service answers, every call returns
or raises a ServiceError, and no error holds the client's key.

A real HTTP server on loopback answers what each example says: arbitrary JSON built by a
recursive strategy (member names the models read, extreme numbers, odd dates, nesting far
past any limit), any status, odd Retry-After headers, gzip or not.
"""

import asyncio
import gzip
import json
from http.server import BaseHTTPRequestHandler

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paydesk.service import ServiceClient, ServiceError
from tests.helpers import Served
from tests.service.test_hostile import OPERATIONS as HOSTILE_OPERATIONS

KEY = "MYSHOP-LIVE-fuzz-9f8e7d6c5b4a"
MEMBERS = [
    "tx_ref",
    "status",
    "amount",
    "charge",
    "currency",
    "email",
    "reference",
    "created_at",
    "updated_at",
    "customization",
    "meta",
    "card_hash",
    "card_pan",
    "cvv",
    "masked_card",
    "balance",
    "paid",
    "id",
    "type",
    "description",
    "checkout_url",
    "data",
    "transactions",
    "cards",
    "card",
    "message",
    "errors",
    "first_name",
]
# texts put into the JSON as they are, past what json.dumps writes
RAW = {
    "__INF__": "Infinity",
    "__NAN__": "NaN",
    "__1E309__": "1e309",
    "__NEG__": "-1e309",
    "__BIGINT__": "9" * 5000,
    "__DEEP__": "[" * 50_000 + "]" * 50_000,
    "__DEEPOBJ__": '{"a":' * 5000 + "1" + "}" * 5000,
    "__KEY__": json.dumps(KEY),
}
ODD_TEXTS = [
    "9999-12-31T23:59:59-14:00",
    "0001-01-01T00:00:00+14:00",
    "2026-02-30T00:00:00Z",
    "2026-11-22T10:00:00.000000Z",
    "1,000.00",
    "1e309",
    "Infinity",
    "-0",
    "NaN",
    "success",
    "suucess",
    "failed",
    "pending",
    "null",
    "",
    "  ",
    "4242424242424242",
    "http://x/payment/PDK-1",
    "9" * 5000,
    f"Invalid key {KEY}",
    "Payment not submitted",
    "Transaction reference has been used before",
    "Card is blocked",
]

scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=20)
    | st.sampled_from(ODD_TEXTS)
    | st.sampled_from(list(RAW))
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(MEMBERS) | st.text(max_size=6), inner, max_size=6)
    ),
    max_leaves=25,
)
envelopes = (
    st.fixed_dictionaries(
        {
            "status": st.sampled_from(["success", "suucess", "failed", "null"]) | values,
            "message": values,
            "data": values,
        },
        optional={"errors": values},
    )
    | values
)
answers = st.fixed_dictionaries(
    {
        "status": st.sampled_from([200, 201, 400, 401, 403, 404, 409, 429, 500, 502, 503]),
        "body": envelopes,
        "retry_after": st.none()
        | st.sampled_from(
            [
                "0",
                "1",
                "99999",
                "-5",
                "inf",
                "nan",
                "1e400",
                "Wed, 21 Oct 2015 07:28:00 GMT",
                "garbage",
                "Fri, 31 Dec 9999 23:59:59 GMT",
            ]
        ),
        "gzip": st.booleans(),
    }
)

OPERATIONS = {  # every call test_hostile tries, and the card calls that read other shapes
    **HOSTILE_OPERATIONS,
    "block_card": lambda c: c.block_card("ch_1"),
    "card_transactions": lambda c: c.card_transactions("ch_1"),
}


def _render(answer: dict) -> tuple[int, dict[str, str], bytes]:
    text = json.dumps(answer["body"], allow_nan=True)
    for marker, raw in RAW.items():
        text = text.replace(json.dumps(marker), raw)
    body = text.encode("utf-8", "surrogatepass")
    headers = {"Content-Type": "application/json"}
    if answer["retry_after"] is not None:
        headers["Retry-After"] = answer["retry_after"]
    if answer["gzip"]:
        body = gzip.compress(body)
        headers["Content-Encoding"] = "gzip"
    return answer["status"], headers, body


class Service:
    """Answers every request with the current example's answer."""

    def __init__(self):
        self.answer = (200, {}, b"{}")
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _answer(self):
                length = int(self.headers.get("Content-Length", 0))
                self.rfile.read(length)
                status, headers, body = outer.answer
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = _answer

            def log_message(self, *args):
                pass

        self.httpd = Served(("127.0.0.1", 0), Handler).start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/pay"

    def close(self):
        self.httpd.close()


@pytest.fixture(scope="module")
def fuzzed():
    service = Service()
    loop = asyncio.new_event_loop()
    client = ServiceClient(
        service.url,
        KEY,
        timeout=3.0,
        retries=1,
        backoff=0.001,
        max_backoff=0.002,
        max_retry_wait=0.01,
        create_attempts=2,
        create_deadline=6,
    )
    yield service, loop, client
    loop.run_until_complete(client.aclose())
    loop.close()
    service.close()


@pytest.mark.slow  # 300 examples, about 25 s: ./dev test runs it, ./dev check leaves it out
@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
)
@given(answer=answers, operation=st.sampled_from(list(OPERATIONS)))
def test_whatever_the_answer_only_service_errors_leave(fuzzed, answer, operation):
    """Item 12 (and 14): hypothesis over arbitrary JSON answers."""
    service, loop, client = fuzzed
    service.answer = _render(answer)
    try:
        loop.run_until_complete(OPERATIONS[operation](client))
    except ServiceError as error:
        texts = [str(error), repr(error), getattr(error, "snippet", "")]
        texts += [f"{k} {m}" for k, v in getattr(error, "errors", {}).items() for m in v]
        assert not any(KEY in t for t in texts), texts
