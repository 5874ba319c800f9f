"""What the features share: the app's services as a protocol (``host``), the look, tag styles, dialogs
(confirm, note, a session's notes), footers, form fields and helpers for widgets (``css``, ``parts``).

It imports no other group of the app.
"""
