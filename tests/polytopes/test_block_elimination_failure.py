"""cddlib's floating-point block elimination can fail on a small, well-scaled system: pycddlib then
raises ``MemoryError`` (cddlib returned no matrix). ``project(method="auto")`` must treat it as the
method's failure and go on to the next method, as it does for a failed verification, instead of
letting the ``MemoryError`` out (found on the snake's mode SSFFSL projected onto two outputs,
``contactmodes analyze examples/snake/snake_chimney.toml --outputs "qdd.x, qdd.theta"``)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import linprog

from polytopes import Polytope
from polytopes._cdd_io import block_eliminate
from polytopes.errors import NumericalError

# the lifted polytope over (z, y) handed to cdd (7 variables, eliminate the first 5), as recorded
A = np.array([[-0.0008322883000076948, 0.04870029488858499, 0.0, 0.0, 0.0, -0.950119553535648, 0.3080591218632738], [0.0, 0.0, -0.40422604172722176, 0.9146591207600471, 0.0, 0.0, 0.0], [1.0657587274975625e-05, -0.0025650531523928313, 0.9874966855838442, -0.10156590585826138, -0.10816932332892439, 0.053027536022363965, -0.003944747243328841], [2.9320964683474894e-05, -0.000957558264549226, -0.8530205152622254, 0.35694833868482856, 0.3801557218699249, 0.01751604707203676, -0.010852718502100567], [5.589277186797461e-05, -0.004080801846324293, 0.6557029952842167, 0.7418432550556828, -0.11286785692418197, 0.08086018453216944, -0.02068787728962833], [-7.316413540461998e-05, 0.004688954591440706, 0.2986001944694676, -0.800117895308143, 0.5112830565777999, -0.09210625468214514, 0.027080615340170602], [0.0, 0.0, -0.5076730825668103, -0.8615497903412853, 0.0, 0.0, 0.0]])
B = np.array([0.002309523765228524, -0.0939336436627732, -0.13301483418017654, 0.16287825596930897, 0.2255424182828892, -0.26272332204628884, 0.019662093940991488])
C = np.array([[0.011265733737166925, 0.9987436902867406, 0.0, 0.0, 0.0, 0.047453418492128446, -0.011502061954161686], [0.9999328902468755, -0.011221211443709194, 0.0, 0.0, 0.0, -0.0005331546499924467, 0.0028311062122417024]])
D = np.array([0.04689484240830456, -0.01707242757887418])
ELIMINATE = [0, 1, 2, 3, 4]
KEEP = [5, 6]


def test_block_elimination_failure_is_a_numerical_error():
    with pytest.raises(NumericalError, match="block elimination"):
        block_eliminate(A, B, C, D, ELIMINATE)


def test_auto_projection_falls_back_and_is_right():
    """The result's support in several directions equals an LP over the lifted system (SciPy)."""
    Q = Polytope(A, B, C, D).project(KEEP)
    for angle in np.linspace(0.0, 2 * np.pi, 12, endpoint=False):
        u = np.array([np.cos(angle), np.sin(angle)])
        c = np.zeros(A.shape[1])
        c[KEEP] = -u
        res = linprog(c, A_ub=A, b_ub=B, A_eq=C, b_eq=D, bounds=[(None, None)] * A.shape[1], method="highs")
        want = np.inf if res.status == 3 else -res.fun
        got = Q.support(u)
        assert (got == np.inf) if want == np.inf else abs(got - want) <= 1e-7 * max(1.0, abs(want)), (angle, got, want)
