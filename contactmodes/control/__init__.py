"""One-shot optimal control at a state: the torque, within limits, that optimizes a linear objective
while guaranteeing its contact mode (the unambiguous sets ``T*_c`` of the analysis).

``objective`` parses the objective, ``limits`` builds the torque limits and the acceptable modes,
``optimal`` solves the problem (``contactmodes.control`` is after ``contactmodes.analysis`` in
the pipeline; ``docs/control.md``).
"""
