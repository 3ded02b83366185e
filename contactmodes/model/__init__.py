"""Stage 1, the model: the planar mechanism and its dynamics (flipping paper eqs. 1–6), URDF input, the
instantaneous ``ContactSystem`` and its nondimensionalization.
"""
