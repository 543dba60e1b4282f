"""What the rules decide, one decision a module (GUIDELINES.md made code): selection (is a
number a claim, before the model), kinds, names (what a name is), devices (what a device phrase
is), system (the paper's own), attributes (what a claim is measured on), baselines (what it is
compared against), metric. ``votes`` calls them in order for a document (the built-in claims task and
the learned decisions read its votes). For a schema of your own and a schema filled directly,
``fields`` keeps what an answer may keep and ``spans`` finds where a span field's words stand.
Each rule reads the parsed document (``paper_claims.parse.document.ParsedDocument``), never the
model side."""
