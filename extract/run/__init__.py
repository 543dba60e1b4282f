"""Running many documents: cache, journal, the runner core and its engines."""
