"""Optional dependencies (pyproject.toml's extras, contactmodes/extras.py).

Each CLI run here is a subprocess whose import system refuses the named packages (a finder first
on ``sys.meta_path`` that raises ``ModuleNotFoundError`` for them, as when they are not
installed), so one full ``[dev]`` environment stands for the installs without those extras. CI
also runs ``analyze`` and the core tests in a real base install (``.ci/run``, lean-install step).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from _support.without import run_without

from contactmodes.extras import MissingExtraError, install_hint, require
from contactmodes.errors import ContactModelError

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"

# every package of an extra, as imported (dask[distributed] is dask + distributed; pplpy is ppl;
# yourdfpy pulls trimesh; mujoco is the sim extra)
OPTIONAL = ("matplotlib", "plotly", "dask", "distributed", "pandas", "pyarrow", "numba", "yourdfpy", "lxml", "trimesh", "ppl",
            "mujoco", "pinocchio")

_cli = run_without  # contactmodes *argv from the source tree with the packages ``blocked`` not importable


def _one_line(proc, expected: str) -> None:
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr == f"contactmodes: error: {expected}\n"
    assert proc.stdout == ""


def test_require_names_the_extra():
    require("numpy", "plot", "x")  # installed: nothing raised
    with pytest.raises(MissingExtraError) as info:
        require("contactmodes_no_such_package", "plot", "plot")
    err = info.value
    assert str(err) == "plot: needs contactmodes_no_such_package: pip install 'contactmodes[plot]'"
    assert (err.name, err.extra) == ("contactmodes_no_such_package", "plot")
    assert isinstance(err, ContactModelError) and isinstance(err, ImportError)  # CLI exit 2; `except ImportError`
    with pytest.raises(MissingExtraError, match="needs contactmodes_no_such_package.sub:"):
        require("contactmodes_no_such_package.sub", "sweep", "sweep")  # the parent missing
    assert install_hint("urdf") == "pip install 'contactmodes[urdf]'"


def test_require_sees_a_blocked_module(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # how a test or a user hides a package
    with pytest.raises(MissingExtraError, match=r"^draw: needs matplotlib: pip install 'contactmodes\[plot\]'$"):
        require("matplotlib", "plot", "draw")


def test_plot_without_matplotlib_is_one_line_and_exit_2(tmp_path):
    out = tmp_path / "domains.png"
    proc = _cli(["matplotlib"], "plot", EXAMPLES / "two_link_brace.toml", "--output", out)
    _one_line(proc, "plot: needs matplotlib: pip install 'contactmodes[plot]'")
    assert not out.exists()


@pytest.mark.parametrize("blocked, missing", [(("dask", "distributed", "pandas"), "dask"), (("pandas",), "pandas"),
                                              (("distributed",), "distributed")])
def test_sweep_without_its_extra_is_one_line_and_exit_2(tmp_path, blocked, missing):
    # three points would run in this process (no Dask needed to compute them): refused all the same,
    # before anything runs, so that a sweep's needs do not depend on its size
    out = tmp_path / "t.csv"
    proc = _cli(blocked, "sweep", "analyze", EXAMPLES / "two_link_brace.toml", "--vary", "contacts.*.mu=0.1:0.5:3",
                "--output", out)
    _one_line(proc, f"sweep: needs {missing}: pip install 'contactmodes[sweep]'")
    assert not out.exists()


def test_sweep_plot_without_matplotlib_is_refused_before_running(tmp_path):
    out = tmp_path / "s.png"
    proc = _cli(["matplotlib"], "sweep", "analyze", EXAMPLES / "two_link_brace.toml", "--vary",
                "contacts.*.mu=0.1:0.5:3", "--plot", out)
    _one_line(proc, "--plot: needs matplotlib: pip install 'contactmodes[plot]'")
    assert not out.exists()


@pytest.mark.parametrize("option, name", [("--plot", "flip.png"), ("--animate", "flip.gif")])
def test_flip_pictures_without_matplotlib_are_refused_before_simulating(tmp_path, option, name):
    proc = _cli(["matplotlib"], "flip", "--controller", "blind", "--mu-toe", "0.6", option, tmp_path / name,
                timeout=60)
    _one_line(proc, f"{option}: needs matplotlib: pip install 'contactmodes[plot]'")
    assert not (tmp_path / name).exists()


def test_urdf_without_yourdfpy_names_the_extra():
    proc = _cli(["yourdfpy", "trimesh", "lxml"], "analyze", EXAMPLES / "two_link_brace_urdf.toml")
    _one_line(proc, "mechanism.urdf: URDF input: needs yourdfpy: pip install 'contactmodes[urdf]'")


def test_simulate_without_mujoco_names_the_extra(tmp_path):
    out = tmp_path / "run.png"
    proc = _cli(["mujoco"], "simulate", EXAMPLES / "two_link_brace.toml", "--controller", "zero", "--duration", "0.1",
                "--plot", out)
    _one_line(proc, "simulate: needs mujoco: pip install 'contactmodes[sim]'")
    assert not out.exists()


def test_imports_load_no_optional_package():
    proc = _cli([], "--import", ",".join(OPTIONAL))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == ""


@pytest.mark.parametrize("example, options", [("two_link_brace.toml", ()), ("rhex_flip_start.toml", ("--json",)),
                                              ("painleve_rod.toml", ("--unambiguous", "--inconsistency-box=-20:20"))])
def test_analyze_runs_with_every_extra_missing(example, options):
    """The base install's main job: the same answer as with every extra installed."""
    args = ["analyze", EXAMPLES / example, *options]
    lean, full = _cli(OPTIONAL, *args), _cli([], *args)
    assert lean.returncode == 0, lean.stderr
    assert full.returncode == 0, full.stderr
    if "--json" in options:
        assert json.loads(lean.stdout) == json.loads(full.stdout)
    else:
        assert lean.stdout == full.stdout
    assert "needs" not in lean.stderr


def test_help_and_check_run_with_every_extra_missing():
    """``--help`` loads every command, the plug-ins (flip, brace) and sweep kinds included."""
    proc = _cli(OPTIONAL, "--help")
    assert proc.returncode == 0, proc.stderr
    for command in ("analyze", "plot", "check", "sweep", "brace", "flip"):
        assert command in proc.stdout
    proc = _cli(OPTIONAL, "check", EXAMPLES / "rhex_flip_start.toml")
    assert proc.returncode == 0, proc.stderr


def test_the_install_figures_are_dated_and_the_readme_quotes_the_table():
    """The README's Quick start gives the install figures of ``docs/install.md``'s table
    (sizes, empty-cache install times), measured on the date both state (issue 39: the README's
    figures had gone stale: 494 MB / 43–47 s quoted, 1694 MB / 139 s measured by a reader)."""
    import re

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    quick = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    page = (ROOT / "docs" / "install.md").read_text(encoding="utf-8")
    table = page.split("## Size, install time and start-up", 1)[1]
    dates = re.findall(r"\b20\d\d-\d\d-\d\d\b", quick)
    assert dates and dates[0] in table.split("\n|", 1)[0]  # the same day, in the text above the table
    rows = {line.split("|")[1].strip(): [c.strip() for c in line.split("|")[2:4]] for line in table.splitlines()
            if line.startswith("| ") and not line.startswith("| |")}
    base_size, dev_size = rows["`site-packages`"]
    base_time, dev_time = rows["install time, empty cache"]
    for figure in (base_size, dev_size, base_time, dev_time):
        assert figure in " ".join(quick.split()), figure
    assert "MB" in base_size and int(dev_size.split()[0]) > int(base_size.split()[0])
