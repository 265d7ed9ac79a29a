"""Where an assessment's responses come from and how they are read: the response sources (the user's LLM, their own
lists or table), the one response frame every family reads (``frame``), what the families need of it (``needs``),
the persons' groups, answer parsers, table files, the scratch store and the personal names the prompts used."""
