"""Stage 2, contact modes: the contact conditions of each letter (Tables I–III), the constraints of a mode
(eqs. 24 and 32), the enumeration of the kinematically feasible modes (Sec. III-F) and the SVD
response (eqs. 24–31).
"""
