"""Django's PostgreSQL backend, with a pool that drops all of a restart's dead connections at once."""
