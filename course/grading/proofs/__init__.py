"""Proofs: that the tests work. Seeded bugs (mutants) and the samples graded from them,
Validate's catch rate, blind samples written from the release notebook alone."""
