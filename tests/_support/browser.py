"""A real browser for the page tests: Debian's chromium driven by Playwright's Python package.

No browser is downloaded (``playwright install`` is never run): ``launch`` starts
``/usr/bin/chromium`` (``CHROMIUM``) headless with ``ARGS``. ``skip_reason`` says why the
browser tests cannot run here; outside CI they skip with it, in CI (``CI`` set) they fail,
because ``.ci/run`` installs chromium and the ``dev`` extra installs playwright.

``open_page`` loads a file:// URL with every other request aborted (the page must work
offline) and records console errors and uncaught page errors.
"""

from __future__ import annotations

import importlib.util
import io
import os
from contextlib import contextmanager
from pathlib import Path

import numpy as np

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


def skip_reason() -> str | None:
    """Why the browser tests cannot run (``None`` when they can)."""
    if importlib.util.find_spec("playwright") is None:
        return "playwright is not installed (pip install -e '.[dev]')"
    if not os.path.exists(CHROMIUM):
        return f"{CHROMIUM} is missing (apt-get install -y chromium; .ci/run installs it)"
    return None


def require_browser() -> None:
    """Skip the calling test when the browser cannot run, or fail in CI (``CI`` set)."""
    import pytest

    reason = skip_reason()
    if reason is None:
        return
    if os.environ.get("CI"):
        pytest.fail(f"browser tests must run in CI: {reason}")
    pytest.skip(reason)


@contextmanager
def browser():
    """A launched chromium (closed on exit)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield b
        finally:
            b.close()


class LoadedPage:
    """A page loaded offline: ``page`` (Playwright), ``errors`` (console errors and page errors),
    ``blocked`` (the URLs of the requests that were aborted)."""

    def __init__(self, page) -> None:
        self.page = page
        self.errors: list[str] = []
        self.blocked: list[str] = []

    def traces(self) -> list[dict]:
        """``[{type, name, visible, meta}]`` of every trace of the first plotly figure, as the page has it."""
        return self.page.evaluate(
            "() => document.querySelector('.plotly-graph-div').data.map("
            "t => ({type: t.type, name: t.name, visible: t.visible === undefined ? true : t.visible,"
            " meta: t.meta || null}))")

    def screenshot_variance(self) -> float:
        """Variance of the grey levels of a screenshot of the page's viewport (0 for a blank page)."""
        from PIL import Image

        png = self.page.screenshot()
        grey = np.asarray(Image.open(io.BytesIO(png)).convert("L"), dtype=float)
        return float(grey.var())


def open_page(b, path: Path, width: int = 1200, height: int = 900) -> LoadedPage:
    """Load ``path`` (file://) in a new page of ``b`` with the network blocked; waits for the figure."""
    page = b.new_page(viewport={"width": width, "height": height})
    loaded = LoadedPage(page)
    page.on("console", lambda m: loaded.errors.append(f"console: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: loaded.errors.append(f"page error: {e}"))

    def route(r):
        if r.request.url.startswith("file:"):
            r.continue_()
        else:
            loaded.blocked.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    page.goto(Path(path).resolve().as_uri())
    page.wait_for_selector(".plotly-graph-div .main-svg", timeout=20000)
    page.wait_for_function("() => document.querySelector('.plotly-graph-div')._fullLayout !== undefined")
    page.wait_for_timeout(300)
    return loaded
