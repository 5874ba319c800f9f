"""The app's widgets, one per module, each with its ``.tcss`` beside it (reused by the review screens)."""
