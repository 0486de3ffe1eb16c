"""The baseline: a bare one-route JSON app on the same server stack (Starlette + uvicorn)."""

import asyncio
import sys

import uvicorn
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.routing import Route

from paydesk.sandbox.server import bind


async def one(request):
    if request.method == "POST":
        await request.body()
    return JSONResponse({"status": "success", "message": "ok", "data": {}})


app = Starlette(routes=[Route("/one", one, methods=["GET", "POST"])])

if __name__ == "__main__":
    sock = bind("127.0.0.1", 0)
    print(f"serving http://127.0.0.1:{sock.getsockname()[1]}", flush=True)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False))
    asyncio.run(server.serve(sockets=[sock]))
    sys.exit(0)
