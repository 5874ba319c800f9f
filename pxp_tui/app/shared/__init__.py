"""What the features share: the app's services as a protocol (``host``), the look, tag styles, dialogs
(confirm, note, a session's notes), the fitting footer and helpers for widgets (``css``): each used by
more than one group (what one group alone uses lives in that group).

It imports no other group of the app.
"""
