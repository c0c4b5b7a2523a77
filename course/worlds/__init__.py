"""Scenario worlds: the tools, data and scripted models each notebook and its tests set up."""
