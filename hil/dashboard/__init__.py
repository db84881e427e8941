"""`hil serve`: the results database as web pages (Starlette under uvicorn), read-only.

queries.py reads what one page needs in bounded queries; app.py routes and renders the report's templates;
serve.py is the command.
"""
