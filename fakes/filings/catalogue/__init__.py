"""The generated filings catalogue: companies, filings and their arithmetic, derived from the seed.

Nothing here knows HTTP or API keys; the API layer (``model``, ``query``, ``routes``) reads it."""
