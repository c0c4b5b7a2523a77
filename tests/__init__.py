"""The course's own test suite; ``ROOT`` is the course folder it tests."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
