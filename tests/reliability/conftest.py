from porter_cache_fixture import porter_cache_dir  # noqa: F401  (the session's own PORTER_CACHE_DIR, autouse)
