"""Reading documents: files, folders, strings, records, DataFrames."""
