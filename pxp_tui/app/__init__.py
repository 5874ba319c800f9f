"""The Textual app: the start screen, the live session screen, help and dialogs.

Importing this package imports nothing heavy; :mod:`pxp_tui.app.launch` starts the app.
"""
