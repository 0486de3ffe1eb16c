"""CORS: the document's dialects open the inline checkout's call only (secret-key routes
stay closed to browsers); the family's server opens every ``api/*`` path (Laravel's
``HandleCors`` with the framework's default ``config/cors.php``)."""

from __future__ import annotations


def _with_headers(send, extra: list[tuple[bytes, bytes]]):
    async def sending(message) -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": list(message.get("headers", [])) + extra}
        await send(message)

    return sending


async def _empty(send, status: int, headers: list[tuple[bytes, bytes]]) -> None:
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": b""})


class JsTransferCors:
    """CORS for the inline checkout's call only; secret-key routes stay closed to browsers."""

    def __init__(self, app, path: str):
        self.app = app
        self.path = path

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http" or scope["path"].rstrip("/") != self.path:
            await self.app(scope, receive, send)
            return
        cors = [
            (b"allow", b"POST, OPTIONS"),
            (b"access-control-allow-origin", b"*"),
            (b"access-control-allow-methods", b"POST, OPTIONS"),
            (b"access-control-allow-headers", b"Authorization, Content-Type, Accept"),
            (b"access-control-max-age", b"600"),
        ]
        if scope["method"] == "OPTIONS":
            await _empty(send, 204, cors)
            return
        await self.app(scope, receive, _with_headers(send, cors))


class ApiCors:
    """Every path under ``prefix`` (``{base}/api/``) open to any origin, as the family's
    framework has it (allowed origins, methods and headers ``*``, max age 0, no
    credentials): a preflight (OPTIONS with ``Access-Control-Request-Method``) is answered
    204 before any route is looked for, echoing the method and headers asked for; every
    other answer under the prefix, refusals included, says ``Access-Control-Allow-Origin:
    *``."""

    def __init__(self, app, prefix: str):
        self.app = app
        self.prefix = prefix

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http" or not scope["path"].startswith(self.prefix):
            await self.app(scope, receive, send)
            return
        asked = dict(scope["headers"])
        origin = [(b"access-control-allow-origin", b"*")]
        method = asked.get(b"access-control-request-method")
        if scope["method"] == "OPTIONS" and method:
            headers = origin + [(b"access-control-allow-methods", method.upper())]
            if asked.get(b"access-control-request-headers"):
                headers.append((b"access-control-allow-headers", asked[b"access-control-request-headers"]))
            headers += [
                (b"access-control-max-age", b"0"),
                (b"vary", b"Access-Control-Request-Method, Access-Control-Request-Headers"),
            ]
            await _empty(send, 204, headers)
            return
        if scope["method"] == "OPTIONS":
            origin.append((b"vary", b"Access-Control-Request-Method"))
        await self.app(scope, receive, _with_headers(send, origin))
