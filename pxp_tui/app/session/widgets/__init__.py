"""The session screen's widgets, one per module, each with its ``.tcss`` beside it."""
