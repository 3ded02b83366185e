"""Linear objectives over the named quantities of a system: ``qdd.<coordinate>``,
``f.<contact>.<component>`` and ``tau.<actuator>``, the components those of the system's contact
model (``t``, ``n`` planar; ``t1``, ``t2``, ``n`` spatial: ``ContactSystem.contact_model``).

An objective is written as text, e.g. ``"qdd.theta"``, ``"tau.hip1 - tau.hip2"`` or
``"2*f.tip.n + 0.5 * qdd.x"``, and parsed by a small tokenizer and recursive-descent parser
(never ``eval``) that accepts only numbers, the names above, ``+``, ``-``, ``*``, ``/`` by a
number and parentheses, and keeps the result linear: a product of two quantities is rejected,
naming the term. The result, ``LinearObjective``, holds one coefficient per quantity in the
system's own units (a coefficient on ``qdd.x`` multiplies m/s² when the file is in SI).

Every coefficient and the constant must be finite and at most ``MAGNITUDE_MAX`` (1e60,
``contactmodes.tolerances``) in magnitude, the bound of every number of a system file: the
controller multiplies the coefficients by the system's units (``contactmodes.model.scaling``)
and the LP solvers by its data, which must stay finite (``1e308*qdd.x`` overflowed to ``inf``
inside SciPy before this check). The scale of an objective does not change its optimizer, so
nothing is lost: write ``qdd.x`` for ``1e308*qdd.x``.

Names of the system file may contain ``-`` (``[A-Za-z0-9_-]+``): a name is read as the longest
name of the system that follows the dot and ends at a character that cannot continue a name, so
``tau.hip-1`` is the actuator ``hip-1`` when it exists and ``tau.hip`` minus ``1`` otherwise.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from contactmodes.errors import ContactModelError
from contactmodes.tolerances import MAGNITUDE_MAX

__all__ = ["LinearObjective", "parse_objective", "objective_for", "SENSES"]

#: The two senses of an objective.
SENSES = ("maximize", "minimize")

_NUMBER_RE = re.compile(r"(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_WORD_RE = re.compile(r"[A-Za-z0-9_]+")
_NAME_CHAR = re.compile(r"[A-Za-z0-9_]")


@dataclass(frozen=True)
class LinearObjective:
    """A linear objective ``J = qdd·q̈ + force·f + tau·τ (+ constant)`` and its sense.

    Parameters
    ----------
    qdd : numpy.ndarray
        Coefficients of the generalized accelerations, shape ``(n_q,)``, in coordinate order
        (per m/s² or rad/s² in SI).
    force : numpy.ndarray
        Coefficients of the contact forces, shape ``(n_f,)``, in the system's contact order
        (planar ``(t_1, n_1, …, t_k, n_k)``; spatial ``(t1_1, t2_1, n_1, …)``).
        (``docs/conventions.md``; per N).
    tau : numpy.ndarray
        Coefficients of the actuator torques, shape ``(n_τ,)``, in actuator order (per N·m or N).
    sense : str
        ``"maximize"`` or ``"minimize"``.
    text : str
        The text it was parsed from (for reports); ``""`` when built by hand.
    constant : float, optional
        A constant term (it does not change the optimizer, only the reported value).

    Raises
    ------
    ContactModelError
        When ``sense`` is not one of ``SENSES``, a coefficient array is not 1-D and finite, or a
        coefficient or the constant exceeds ``MAGNITUDE_MAX`` in magnitude.

    Examples
    --------
    >>> from contactmodes.control.objective import parse_objective
    >>> obj = parse_objective("2*f.tip.n - tau.a", coordinates=["x"], contacts=["tip"],
    ...                       actuators=["a"], sense="minimize")
    >>> obj.force.tolist(), obj.tau.tolist(), obj.sense
    ([0.0, 2.0], [-1.0], 'minimize')
    """

    qdd: np.ndarray
    force: np.ndarray
    tau: np.ndarray
    sense: str = "maximize"
    text: str = ""
    constant: float = 0.0

    def __post_init__(self) -> None:
        if self.sense not in SENSES:
            raise ContactModelError(f"sense: must be one of {', '.join(SENSES)}, got {self.sense!r}")
        for name in ("qdd", "force", "tau"):
            arr = np.array(getattr(self, name), dtype=float)
            if arr.ndim != 1 or not np.all(np.isfinite(arr)):
                raise ContactModelError(f"{name}: must be a finite 1-D array, got shape {arr.shape}")
            if arr.size and float(np.abs(arr).max()) > MAGNITUDE_MAX:
                raise ContactModelError(f"{name}: coefficients must be at most {MAGNITUDE_MAX:g} in magnitude "
                                        f"(contactmodes.tolerances.MAGNITUDE_MAX), got {float(np.abs(arr).max()):g}")
            arr.setflags(write=False)
            object.__setattr__(self, name, arr)
        constant = float(self.constant)
        if not (math.isfinite(constant) and abs(constant) <= MAGNITUDE_MAX):
            raise ContactModelError(f"constant: must be finite and at most {MAGNITUDE_MAX:g} in magnitude "
                                    f"(contactmodes.tolerances.MAGNITUDE_MAX), got {constant:g}")
        object.__setattr__(self, "constant", constant)

    @property
    def sign(self) -> float:
        """``+1`` for ``"maximize"``, ``-1`` for ``"minimize"``: ``sign · J`` is maximized."""
        return 1.0 if self.sense == "maximize" else -1.0

    @property
    def is_zero(self) -> bool:
        """Whether every coefficient is zero (any feasible torque is optimal)."""
        return not (self.qdd.any() or self.force.any() or self.tau.any())

    def value(self, qdd, force, tau) -> float:
        """The objective ``J`` at ``(q̈, f, τ)``, the constant included.

        Parameters
        ----------
        qdd : array_like
            ``(n_q,)`` generalized accelerations, the system's units.
        force : array_like
            ``(n_f,)`` contact forces, per contact in the contact model's component order
            (planar ``(f_t, f_n)``, spatial ``(f_t1, f_t2, f_n)``).
        tau : array_like
            ``(n_τ,)`` torques.

        Returns
        -------
        float
            ``J`` in the objective's units.
        """
        return float(self.qdd @ np.asarray(qdd, dtype=float) + self.force @ np.asarray(force, dtype=float)
                     + self.tau @ np.asarray(tau, dtype=float) + self.constant)

    def to_json(self) -> dict:
        """``{"text", "sense", "qdd", "force", "tau", "constant"}`` (lists of floats)."""
        return {"text": self.text, "sense": self.sense, "qdd": self.qdd.tolist(), "force": self.force.tolist(),
                "tau": self.tau.tolist(), "constant": self.constant}


@dataclass
class _Linear:
    """A linear form during parsing: ``{key: coefficient}`` plus a constant; ``text`` its source."""

    terms: dict = field(default_factory=dict)
    constant: float = 0.0
    text: str = ""

    def scaled(self, c: float) -> "_Linear":
        return _Linear({k: c * v for k, v in self.terms.items()}, c * self.constant, self.text)

    def plus(self, other: "_Linear", sign: float) -> "_Linear":
        terms = dict(self.terms)
        for k, v in other.terms.items():
            terms[k] = terms.get(k, 0.0) + sign * v
        return _Linear(terms, self.constant + sign * other.constant)


class _Parser:
    """Recursive descent over ``expr := term (('+'|'-') term)*``, ``term := unary (('*'|'/')
    unary)*``, ``unary := ('+'|'-') unary | atom``, ``atom := number | name | '(' expr ')'``."""

    def __init__(self, text: str, where: str, names: dict) -> None:
        self.s, self.where, self.names, self.i = text, where, names, 0

    def fail(self, message: str) -> ContactModelError:
        return ContactModelError(f"{self.where}: {message}")

    def help(self) -> str:
        """The name forms, for an unknown name, with the contact model's components."""
        forces = ", ".join(f"f.<contact>.{c}" for c in self.names.get("components", ("t", "n")))
        return f"names are qdd.<coordinate>, {forces} and tau.<actuator>"

    def skip(self) -> None:
        while self.i < len(self.s) and self.s[self.i].isspace():
            self.i += 1

    def peek(self) -> str:
        self.skip()
        return self.s[self.i] if self.i < len(self.s) else ""

    def parse(self) -> _Linear:
        if not self.s.strip():
            raise self.fail("empty objective (write e.g. 'qdd.<coordinate>' or 'tau.<actuator>')")
        out = self.expr()
        if self.peek():
            raise self.fail(f"unexpected {self.s[self.i:]!r} in {self.s.strip()!r}")
        return out

    def expr(self) -> _Linear:
        start = self.i
        out = self.term()
        while self.peek() in ("+", "-"):
            sign = 1.0 if self.s[self.i] == "+" else -1.0
            self.i += 1
            out = out.plus(self.term(), sign)
        out.text = self.s[start:self.i].strip()
        return out

    def term(self) -> _Linear:
        start = self.i
        out = self.unary()
        while self.peek() in ("*", "/"):
            op = self.s[self.i]
            self.i += 1
            if self.peek() in ("*", "/"):
                raise self.fail(f"unsupported operator in {self.s[start:self.i + 1].strip()!r} "
                                f"(only +, -, * and / by a number)")
            rhs = self.unary()
            text = self.s[start:self.i].strip()
            if op == "/":
                if rhs.terms or rhs.constant == 0.0:
                    raise self.fail(f"nonlinear term {text!r}" if rhs.terms else f"division by zero in {text!r}")
                out = out.scaled(1.0 / rhs.constant)
            elif out.terms and rhs.terms:
                raise self.fail(f"nonlinear term {text!r}")
            else:
                out = rhs.scaled(out.constant) if not out.terms else out.scaled(rhs.constant)
            out.text = text
        return out

    def unary(self) -> _Linear:
        c = self.peek()
        if c in ("+", "-"):
            self.i += 1
            inner = self.unary()
            return inner if c == "+" else inner.scaled(-1.0)
        return self.atom()

    def atom(self) -> _Linear:
        c = self.peek()
        if c == "(":
            self.i += 1
            inner = self.expr()
            if self.peek() != ")":
                raise self.fail(f"missing ')' in {self.s.strip()!r}")
            self.i += 1
            return inner
        m = _NUMBER_RE.match(self.s, self.i)
        if m:
            self.i = m.end()
            if _NAME_CHAR.match(self.s, self.i):
                raise self.fail(f"unexpected {self.s[m.start():].split()[0]!r} (write a product as '2*name')")
            return _Linear({}, float(m.group()), m.group())
        m = _WORD_RE.match(self.s, self.i)
        if m:
            return self.name(m.group())
        raise self.fail(f"unexpected {self.s[self.i:]!r} in {self.s.strip()!r}" if c else
                        f"incomplete expression {self.s.strip()!r}")

    def dotted(self, known: Sequence[str]) -> str:
        """After a '.', the longest of ``known`` that follows and ends a name, else one word."""
        for name in sorted(known, key=len, reverse=True):
            end = self.i + len(name)
            if name and self.s.startswith(name, self.i) and not _NAME_CHAR.match(self.s, end):
                self.i = end
                return name
        m = _WORD_RE.match(self.s, self.i)
        word = m.group() if m else ""
        self.i += len(word)
        return word

    def expect_dot(self, start: int) -> None:
        if self.i >= len(self.s) or self.s[self.i] != ".":
            raise self.fail(f"unknown name {self.s[start:self.i]!r} ({self.help()})")
        self.i += 1

    def name(self, head: str) -> _Linear:
        start = self.i
        self.i += len(head)
        coords, contacts, actuators = self.names["qdd"], self.names["f"], self.names["tau"]
        if head in ("qdd", "tau"):
            self.expect_dot(start)
            known = coords if head == "qdd" else actuators
            name = self.dotted(known)
            text = self.s[start:self.i]
            if name not in known:
                what = "coordinates" if head == "qdd" else "actuators"
                raise self.fail(f"unknown name {text!r} ({what}: {', '.join(known) or 'none'})")
            return _Linear({(head, known.index(name)): 1.0}, 0.0, text)
        if head == "f":
            self.expect_dot(start)
            contact = self.dotted(contacts)
            if contact not in contacts:
                text = self.s[start:self.i]
                raise self.fail(f"unknown name {text!r} (contacts: {', '.join(contacts) or 'none'})")
            if self.i < len(self.s) and self.s[self.i] == ".":
                self.i += 1
            parts = self.names.get("components", ("t", "n"))
            comp = self.dotted(parts)
            text = self.s[start:self.i]
            if comp not in parts:
                forms = [f"f.{contact}.{c}" for c in parts]
                raise self.fail(f"unknown name {text!r} (a contact force is {', '.join(forms[:-1])} or {forms[-1]})")
            return _Linear({("f", len(parts) * contacts.index(contact) + parts.index(comp)): 1.0}, 0.0, text)
        while self.i < len(self.s) and (_NAME_CHAR.match(self.s, self.i) or self.s[self.i] in ".-"
                                        and _NAME_CHAR.match(self.s, self.i + 1)):
            self.i += 1
        raise self.fail(f"unknown name {self.s[start:self.i]!r} ({self.help()})")


def parse_objective(text: str, coordinates: Sequence[str], contacts: Sequence[str], actuators: Sequence[str],
                    sense: str = "maximize", where: str | None = None,
                    components: Sequence[str] = ("t", "n")) -> LinearObjective:
    """Parse a linear objective over the named quantities of a system.

    Parameters
    ----------
    text : str
        The objective, e.g. ``"qdd.theta"``, ``"tau.hip1 - tau.hip2"`` or
        ``"2*f.tip.n + 0.5 * qdd.x"``: numbers, ``qdd.<coordinate>``, ``f.<contact>.t``,
        ``f.<contact>.n``, ``tau.<actuator>``, ``+``, ``-``, ``*``, ``/`` by a number and
        parentheses; the result must be linear (affine) in the quantities.
    coordinates : Sequence[str]
        The ``n_q`` coordinate names (``ContactSystem.coordinates``).
    contacts : Sequence[str]
        The ``k`` contact names (``ContactSystem.contacts``).
    actuators : Sequence[str]
        The ``n_τ`` actuator names (``ContactSystem.torques``).
    sense : str, optional
        ``"maximize"`` (default) or ``"minimize"``.
    where : str, optional
        The field named in error messages; default ``"control.<sense>"``.
    components : Sequence[str], optional
        The contact model's force components (``ContactSystem.contact_model.components``):
        ``f.<contact>.<component>``, and the order of a contact's entries in ``force``; default the
        planar ``("t", "n")`` (spatial: ``("t1", "t2", "n")``).

    Returns
    -------
    LinearObjective
        Coefficient arrays of shapes ``(n_q,)``, ``(len(components) k,)`` (per contact in
        ``components`` order) and ``(n_τ,)``, in the system's units; repeated names add up.

    Raises
    ------
    ContactModelError
        One line naming the field and the term: an unknown name
        (``control.maximize: unknown name 'qdd.foo' (coordinates: x, y, theta)``), a nonlinear
        term (``control.maximize: nonlinear term 'tau.a*tau.b'``), a syntax error or division by
        zero, a coefficient or constant that is not finite or exceeds ``MAGNITUDE_MAX``
        (``--maximize: the coefficient 1e+308 of qdd.x exceeds 1e+60 in magnitude …``), or an
        unknown ``sense``.

    Examples
    --------
    >>> from contactmodes.control.objective import parse_objective
    >>> obj = parse_objective("tau.hip1 - 2*(tau.hip2 - qdd.x)", ["x", "y"], ["foot"], ["hip1", "hip2"])
    >>> obj.qdd.tolist(), obj.tau.tolist()
    ([2.0, 0.0], [1.0, -2.0])
    """
    if sense not in SENSES:
        raise ContactModelError(f"sense: must be one of {', '.join(SENSES)}, got {sense!r}")
    where = where or f"control.{sense}"
    if not isinstance(text, str):
        raise ContactModelError(f"{where}: must be a string, got {type(text).__name__} {text!r}")
    coordinates, contacts, actuators = list(map(str, coordinates)), list(map(str, contacts)), list(map(str, actuators))
    components = tuple(map(str, components))
    lin = _Parser(text, where, {"qdd": coordinates, "f": contacts, "tau": actuators, "components": components}).parse()
    arrays = {"qdd": np.zeros(len(coordinates)), "f": np.zeros(len(components) * len(contacts)),
              "tau": np.zeros(len(actuators))}
    for (kind, index), coef in lin.terms.items():
        arrays[kind][index] += coef
    if not all(np.all(np.isfinite(a)) for a in arrays.values()) or not np.isfinite(lin.constant):
        raise ContactModelError(f"{where}: a coefficient is not finite in {text.strip()!r}")
    _check_magnitudes(arrays, lin.constant, coordinates, contacts, actuators, where, text.strip(), components)
    return LinearObjective(arrays["qdd"], arrays["f"], arrays["tau"], sense, text.strip(), lin.constant)


def _check_magnitudes(arrays: dict, constant: float, coordinates: Sequence[str], contacts: Sequence[str],
                      actuators: Sequence[str], where: str, text: str,
                      components: Sequence[str] = ("t", "n")) -> None:
    """Raise ``ContactModelError`` naming ``where`` and the first quantity whose coefficient
    (or the constant) exceeds ``MAGNITUDE_MAX`` in magnitude (module doc)."""
    names = {"qdd": [f"qdd.{c}" for c in coordinates],
             "f": [f"f.{c}.{part}" for c in contacts for part in components],
             "tau": [f"tau.{a}" for a in actuators]}
    for kind, arr in arrays.items():
        for index in np.flatnonzero(np.abs(arr) > MAGNITUDE_MAX):
            raise ContactModelError(f"{where}: the coefficient {arr[index]:g} of {names[kind][index]} exceeds "
                                    f"{MAGNITUDE_MAX:g} in magnitude (contactmodes.tolerances.MAGNITUDE_MAX) in "
                                    f"{text!r}; an objective's scale does not change its optimum")
    if abs(constant) > MAGNITUDE_MAX:
        raise ContactModelError(f"{where}: the constant {constant:g} exceeds {MAGNITUDE_MAX:g} in magnitude "
                                f"(contactmodes.tolerances.MAGNITUDE_MAX) in {text!r}")


def objective_for(system, text: str, sense: str = "maximize", where: str | None = None) -> LinearObjective:
    """``parse_objective`` with the names of ``system``.

    Parameters
    ----------
    system : ContactSystem
        Its ``coordinates``, ``contacts``, ``torques`` and ``contact_model.components`` name the
        quantities.
    text : str
        The objective (``parse_objective``).
    sense : str, optional
        ``"maximize"`` (default) or ``"minimize"``.
    where : str, optional
        The field named in error messages; default ``"control.<sense>"``.

    Returns
    -------
    LinearObjective
        As ``parse_objective``.

    Raises
    ------
    ContactModelError
        As ``parse_objective``.
    """
    return parse_objective(text, system.coordinates, system.contacts, system.torques, sense, where,
                           tuple(system.contact_model.components))
