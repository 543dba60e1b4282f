"""What a run leaves: tables, the report, the evaluation."""
