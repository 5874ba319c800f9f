"""The app itself: :class:`~pxp_tui.app.shell.pxp_app.PXPApp`, which assembles the features (start, session,
review), its launch from the command line, what it loads after the first paint, and its help on every key.

The only group that imports the features' screens; none of them imports it.
"""
