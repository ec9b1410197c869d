"""The table: observations -> refereed turns and events; match store, API, dashboard, CLI.

Joins the engine, the recogniser and the scoreboard bridge; I/O lives here.
"""
