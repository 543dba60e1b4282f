"""Running many documents of a task: the runner core (``runner``) and its runners (``local``, ``ray``,
and ``batch`` for the Batch APIs), the worker step (``settle``), the answer cache, the journal, the
output folder's lock and the code version in every run key."""
