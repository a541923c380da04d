"""Seed 002's Python server: FastAPI with one async endpoint returning a fixed string.

Run as the article runs it: one uvicorn process with uvicorn's defaults (its access log
on; uvloop and httptools when installed, as ``uvicorn[standard]`` installs them).
"""

from fastapi import FastAPI

app = FastAPI()


@app.get("/")
async def hello() -> str:
    return "Python-Server"
