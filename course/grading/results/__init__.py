"""Results: one model of what grading a class produced, rendered as text and as HTML, the
diagnosis of lost cells by mutant signature, and feedback pages without hidden tests."""
