"""What a run leaves: tables, claims.db, the report, the review app (scoring is ``paper_claims.evaluation``)."""
