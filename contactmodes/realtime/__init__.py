"""The real-time plans: per velocity pattern, reused across steps, compiled kernels (``docs/realtime.md``).
"""
