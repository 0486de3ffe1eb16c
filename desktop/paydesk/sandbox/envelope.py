"""The JSON envelope every /api/ answer wears, in strict or quirks dialect."""

from __future__ import annotations

from typing import Any

from starlette.responses import JSONResponse


class ApiError(Exception):
    """A failure answered with the failed envelope.

    ``errors`` maps field -> list of messages for validation failures.
    ``quirk_status`` is the HTTP code the family uses in quirks mode (400 when None).
    ``plain``: the family's server says this one as text even though it names a field
    (``--family`` only; strict and quirks are unchanged by it).
    """

    def __init__(
        self,
        status: int,
        message: str,
        errors: dict[str, list[str]] | None = None,
        *,
        quirk_status: int | None = None,
        quirk_message: str | None = None,
        quirk_envelope_status: str = "failed",
        headers: dict[str, str] | None = None,
        plain: bool = False,
    ):
        super().__init__(message)
        self.status = status
        self.message = message
        self.errors = errors
        self.quirk_status = quirk_status
        self.quirk_message = quirk_message
        self.quirk_envelope_status = quirk_envelope_status
        self.headers = headers or {}
        self.plain = plain


def validation_error(errors: dict[str, list[str]]) -> ApiError:
    first = next(iter(errors.values()))[0]
    return ApiError(400, first, errors)


class Envelope:
    """Builds responses; ``quirks`` answers the way the family of services does."""

    def __init__(self, quirks: bool):
        self.quirks = quirks

    def ok(
        self,
        message: str,
        data: Any,
        status: int = 200,
        *,
        envelope_status: str = "success",
        headers: dict[str, str] | None = None,
    ) -> JSONResponse:
        if self.quirks:
            status = 201
        body = {"status": envelope_status, "message": message, "data": data}
        return JSONResponse(body, status_code=status, headers=headers)

    def fail(self, err: ApiError) -> JSONResponse:
        if self.quirks:
            body: dict[str, Any] = {
                "status": err.quirk_envelope_status,
                "message": err.quirk_message or (err.errors if err.errors else err.message),
                "data": "null",
            }
            status = err.quirk_status or (err.status if err.status == 429 else 400)
        else:
            body = {"status": "failed", "message": err.message, "data": None}
            if err.errors:
                body["errors"] = err.errors
            status = err.status
        return JSONResponse(body, status_code=status, headers=err.headers)
