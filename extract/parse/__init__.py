"""What the parser and the rules decide: numbers, units, name spans, kinds."""
