"""The progress heartbeat (issue 28): off a terminal, a stage whose items take long prints its
line once ``after`` seconds have passed, without waiting for an item, and nothing once closed."""

from __future__ import annotations

import io
import threading
import time

from contactmodes.progress import Progress, stage


def _wait_for(predicate, limit: float = 30.0) -> bool:
    """Poll ``predicate`` until it holds (a generous limit: the machine may be loaded)."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.02)
    return False


def test_a_stage_without_updates_prints_its_line_and_stops_when_closed():
    stream = io.StringIO()
    with stage(Progress(after=0.05, every=0.05, stream=stream), "enumerating modes", 10) as st:
        st.update(3, "contact 3")
        assert _wait_for(lambda: "contactmodes: enumerating modes 3/10 (contact 3)" in stream.getvalue())
    lines = stream.getvalue()
    time.sleep(0.3)  # several heartbeat periods: nothing more after close
    assert stream.getvalue() == lines
    assert all(ln.startswith("contactmodes: enumerating modes ") for ln in lines.splitlines())


def test_a_short_stage_prints_nothing_and_its_heartbeat_ends():
    stream = io.StringIO()
    with stage(Progress(after=60.0, every=0.05, stream=stream), "domains", 2) as st:
        st.update(2)
    assert stream.getvalue() == ""
    assert _wait_for(lambda: not any(t.name == "progress: domains" for t in threading.enumerate()))


def test_the_enumeration_reports_while_a_contact_takes_long(monkeypatch):
    """The enumeration's stage is updated once per contact; while the first contact is being
    decided (held here until a line appears) the heartbeat prints the stage's line."""
    import contactmodes as cm
    from contactmodes.modes import enumeration

    stream = io.StringIO()
    progress = Progress(after=0.05, every=0.05, stream=stream)
    held = []

    def slow_stage(p, what, total=None):
        st = p.stage(what, total)
        update = st.update

        def first_held(n=1, label=""):
            if not held:
                held.append(what)
                assert _wait_for(lambda: f"contactmodes: {what} 0/" in stream.getvalue())
            update(n, label)

        st.update = first_held
        return st

    monkeypatch.setattr(enumeration, "stage", slow_stage)
    cm.AnalysisSession(cm.load_system("examples/two_link_brace.toml"), progress=progress).enumeration
    assert held == ["enumerating modes"]


def test_the_stages_after_the_enumeration_report(monkeypatch):
    """The batched mode responses, the emptiness batch of the domains and the bounding boxes of
    the overlap sweep each have a stage: with a line per update (``every = 0``, ``after = 0``)
    each appears, in that order, for a system with enough modes to batch (the six-link brace)."""
    import contactmodes as cm
    from contactmodes.analysis.session import AnalysisSession

    from _support.paths import EXAMPLES

    stream = io.StringIO()
    s = AnalysisSession(cm.load_system(str(EXAMPLES / "six_link_brace.toml")),
                        progress=Progress(after=0.0, every=0.0, stream=stream))
    modes = s.feasible_modes()
    s.candidate_pairs_within(modes)
    text = stream.getvalue()
    at = [text.find(f"contactmodes: {what} ") for what in ("mode responses", "emptiness of the domains", "bounding boxes")]
    assert all(i >= 0 for i in at) and at == sorted(at), text[:2000]
    assert f"contactmodes: bounding boxes {len(modes)}/{len(modes)}" in text
