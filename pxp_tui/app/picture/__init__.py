"""Pictures: terminal graphics (textual-image) or half-cell blocks, drawn in a thread and cached, zoomed,
opened outside; the instance view (an instance with its pictures) and the full-screen picture viewer.

Used by the session and the review; imports neither.
"""
