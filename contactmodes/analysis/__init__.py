"""Stage 3, domains and ambiguity: ``D_c`` and ``T_c`` (Sec. III-E), the analysis session, the front
door's ``analyze``, unambiguous and inconsistent sets (Sec.
III-G) and the robust sets under a disturbance (bracing paper).
"""
