"""What the text says, mechanically: the parsed document (``document``: one object per document,
built once), its numbers and units (``quantities``, ``rates``, ``units``), candidate names
(``candidates``) and the marks the model reads (``marks``), what a name's own words say
(``name_words``, ``families``, ``canonical``); ``vocab`` holds the word classes. The rules
(``paper_claims.rules``) decide from it."""
