"""The hand-written OpenAPI document matches the routes the server serves, both ways."""

import re

import httpx
import pytest

from paydesk.sandbox.routes import public_routes


def _served(has_cards):
    out = {}
    for route in public_routes(has_cards):
        path = re.sub(r"\{(\w+)(:\w+)?\}", r"{\1}", route.path)
        out.setdefault(path, set()).update(m.lower() for m in route.methods if m != "HEAD")
    return out


@pytest.mark.parametrize("deployment", ["cards", "no-cards"])
def test_document_matches_routes(make_sandbox, deployment):
    sb = make_sandbox(deployment=deployment, base_path="/pay")
    doc = httpx.get(sb.base_url + "/openapi.json").json()
    assert doc["openapi"].startswith("3.1")
    assert doc["servers"] == [{"url": "/pay"}]
    documented = {path: set(ops) for path, ops in doc["paths"].items()}
    assert documented == _served(deployment == "cards")


def test_documented_routes_answer_as_documented(sandbox):
    """Each documented JSON operation answers one of its documented codes, with the envelope."""
    doc = httpx.get(sandbox.base_url + "/openapi.json").json()
    with sandbox.client() as c:
        for path, ops in doc["paths"].items():
            concrete = (path.replace("{tx_ref}", "X").replace("{card_hash}", "ch_x")
                        .replace("{reference}", "PDK-x"))
            for method, op in ops.items():
                r = c.request(method.upper(), concrete, json={} if method == "post" else None,
                              follow_redirects=False)
                assert str(r.status_code) in op["responses"], (method, path, r.status_code)
                if path.startswith("/api/"):
                    assert set(r.json()) >= {"status", "message", "data"}
