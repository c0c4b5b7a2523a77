"""Authoring: master notebooks from percent scripts, the generated folders (``source/``,
``release/``, ``solutions/``), the student copy, and the static checks of the tree (integrity,
solution shapes, the names tests read)."""
