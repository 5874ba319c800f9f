"""The Textual app: the start screen, the live session screen, help and dialogs; the review in ``review/``.

Importing this package imports nothing heavy; :mod:`pxp_tui.app.shell.launch` starts the app.
"""
