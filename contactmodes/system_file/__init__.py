"""System files: the loader (TOML/JSON, ``docs/system-file.md``), and ``check --snap``'s geometry.
"""
