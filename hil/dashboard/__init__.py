"""`hil serve`: the results database as web pages (Starlette under uvicorn), read-only."""
