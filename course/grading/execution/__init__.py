"""Execution: a submission run in its sandboxed kernel, hidden tests judged in the grader's
process, the worker pool, the pre-flight, and the gradebook written from the judgements."""
