"""Seed 000's Python server: FastAPI, one coroutine per request awaiting simulated I/O.

The delay comes from the environment because uvicorn imports the app by name, and with
``--workers N`` each worker process imports it again.
"""

import asyncio
import os

from fastapi import FastAPI

DELAY_S = float(os.environ.get("IODELAY_DELAY_MS", "1")) / 1000

app = FastAPI()


@app.get("/")
async def read_root() -> dict[str, str]:
    await asyncio.sleep(DELAY_S)
    return {"message": "ok"}
