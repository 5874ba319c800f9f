"""The start screen: a run's configuration, from the tasks, models and humans available."""
