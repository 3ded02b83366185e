"""Every shell command shown in the documentation runs (issue 22, item 12).

The commands are read from the fenced ```` ```bash ```` (``sh``, ``shell``) blocks of ``README.md``
and ``docs/**/*.md`` at the time the test runs, so a command, option or file name that drifts from
the code fails here. Each distinct command is one parametrized case, its id the first place it
appears (``file:line``) and the command; a command shown on several pages runs once.

Reading a block: a line ending in ``\\`` continues on the next; ``# ...`` (a ``#`` at the start of
a word, outside quotes) is a comment; ``&&`` and ``;`` separate commands; ``NAME=value`` before a
command sets an environment variable. A comment containing ``exit status N`` declares the
command's documented exit status (default 0), e.g. ``contactmodes flip ... # no flip: exit
status 1``.

Every command is either run or skipped by a rule in ``SKIP_RULES`` (each with its reason); a
command that matches neither a skip rule nor a runnable form (``runnable``) is a failing case,
so a new kind of command in the docs needs a decision here. ``cd`` moves the following commands of
its block (``cd`` into the directory of a preceding ``git clone`` is the repository root). Shell
operators other than ``&&`` and ``;`` (pipes, redirections, background jobs) are not interpreted:
such a command fails until this test learns them.

How a command runs:

* from a fresh temporary working directory that mirrors the repository's top level by symbolic
  links (``examples``, ``benchmarks``, ``docs``, ...; not the Python packages, which come from the
  installed distribution as for a user), so relative input paths are the documented ones and a
  relative output a command writes without being asked lands in the temporary directory;
* every output option (``OUTPUT_OPTIONS``) is redirected into the case's own output directory:
  ``--output flip.png`` and ``--output docs/img/flip.png`` become ``OUTDIR/flip.png``; the
  placeholders ``OUT`` and ``DIR`` are that directory (``--plot OUT/painleve.png``);
* placeholder input files (``PLACEHOLDER_FILES``) are written into the working directory;
* at reduced size where a flag exists (``REDUCTIONS``, each with its reason): fewer grid
  points, fewer chain sizes, shorter simulations;
* the two Dask daemons of ``docs/sweeps.md`` (``dask scheduler``, ``dask worker``) are started
  once, as documented but on ``127.0.0.1`` and a free port, and the sweep that names their
  address is sent to them.

Checks: the exit status is the documented one; with ``--json`` the output parses as a JSON
document with a ``schema``; every redirected output exists (a file with content, or a directory
with files); no file appears in the repository's ``docs``, ``examples`` or ``benchmarks`` while
the command runs. Runtime: about 100 s on the shared 2-core development machine (load average 3–4),
a third of it ``benchmarks/bench_sweep.py``, whose two sweeps have no size flag.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHELL_FENCES = ("bash", "sh", "shell")
TIMEOUT_S = 600  # per command; the slowest reduced command takes about a minute
# directories whose new files during a command would mean it wrote into the source tree
GUARDED_DIRS = ("docs", "examples", "benchmarks")


def doc_files() -> list[Path]:
    """``README.md`` and every Markdown file under ``docs/``, in a stable order."""
    return [ROOT / "README.md"] + sorted((ROOT / "docs").rglob("*.md"))


# --------------------------------------------------------------------------------------------
# Reading the commands
# --------------------------------------------------------------------------------------------

@dataclass
class DocCommand:
    """One simple command of a shell block: ``argv`` after ``NAME=value`` assignments."""

    text: str                       # as written (continuation lines joined, comment removed)
    argv: list[str]
    where: str                      # "README.md:33"
    comment: str = ""               # the trailing comment of its line, if any
    env: dict[str, str] = field(default_factory=dict)
    cwd: str = "."                  # relative to the repository root, after the block's ``cd``
    operators: list[str] = field(default_factory=list)  # other shell operators it was written with
    into_clone: bool = False        # ``cd`` into the directory of a ``git clone`` of its block
    also: list[str] = field(default_factory=list)       # further places showing the same command

    @property
    def expected_status(self) -> int:
        m = re.search(r"exit status (\d+)", self.comment)
        return int(m.group(1)) if m else 0


def shell_blocks(text: str) -> list[tuple[int, list[str]]]:
    """``(line number of the first line, lines)`` of every fenced shell block of a Markdown text."""
    blocks = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        m = re.match(r"^(\s*)(`{3,}|~{3,})\s*([\w+-]*)", lines[i])
        if not m:
            i += 1
            continue
        indent, fence, lang = m.groups()
        body, j = [], i + 1
        while j < len(lines) and not re.match(rf"^\s*{re.escape(fence[0])}{{{len(fence)},}}\s*$", lines[j]):
            body.append(lines[j][len(indent):] if lines[j].startswith(indent) else lines[j].lstrip())
            j += 1
        if lang.lower() in SHELL_FENCES:
            blocks.append((i + 2, body))
        i = j + 1
    return blocks


def split_comment(line: str) -> tuple[str, str]:
    """``(code, comment)``: the comment starts at a ``#`` that begins a word outside quotes."""
    quote = None
    for k, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
            elif ch == "\\" and quote == '"':
                continue
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (k == 0 or line[k - 1].isspace()):
            return line[:k].rstrip(), line[k + 1:].strip()
    return line.rstrip(), ""


def logical_lines(first: int, body: list[str]) -> list[tuple[int, str, str]]:
    """``(line number, code, comment)`` of a block, continuation lines (``\\``) joined."""
    out: list[tuple[int, str, str]] = []
    pending: list[str] = []
    comments: list[str] = []
    start = first
    for k, raw in enumerate(body):
        code, comment = split_comment(raw)
        if not pending:
            start = first + k
        if comment:
            comments.append(comment)
        if code.endswith("\\"):
            pending.append(code[:-1].strip())
            continue
        pending.append(code.strip())
        joined = " ".join(p for p in pending if p)
        if joined:
            out.append((start, joined, " ".join(comments)))
        pending, comments = [], []
    if pending and any(pending):
        out.append((start, " ".join(p for p in pending if p), " ".join(comments)))
    return out


def _top_level_split(code: str) -> list[str]:
    """``code`` split on ``&&`` and ``;`` outside quotes."""
    parts, quote, start, k = [], None, 0, 0
    while k < len(code):
        ch = code[k]
        if quote:
            if ch == quote:
                quote = None
            elif ch == "\\" and quote == '"':
                k += 1
        elif ch in "'\"":
            quote = ch
        elif ch == "\\":
            k += 1
        elif code.startswith("&&", k) or ch == ";":
            parts.append(code[start:k])
            k += 2 if ch == "&" else 1
            start = k
            continue
        k += 1
    parts.append(code[start:])
    return [p.strip() for p in parts if p.strip()]


def simple_commands(code: str) -> list[tuple[str, list[str], list[str]]]:
    """``(text, words, other shell operators)`` of each command of a line (split on ``&&``, ``;``)."""
    out = []
    for text in _top_level_split(code):
        lexer = shlex.shlex(text, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        lexer.commenters = ""
        words: list[str] = []
        operators: list[str] = []
        for token in lexer:
            (operators if token and set(token) <= set("|&<>()") else words).append(token)
        out.append((text, words, operators))
    return out


def extract(text: str, name: str) -> list[DocCommand]:
    """Every simple command of the shell blocks of one Markdown text (``name`` for locations)."""
    found = []
    for first, body in shell_blocks(text):
        cwd = "."
        clones: set[str] = set()
        for line, code, comment in logical_lines(first, body):
            for raw, words, operators in simple_commands(code):
                env = {}
                while len(words) > 1 and re.fullmatch(r"[A-Za-z_]\w*=.*", words[0]):
                    key, _, value = words.pop(0).partition("=")
                    env[key] = value
                cmd = DocCommand(raw, words, f"{name}:{line}", comment, env, cwd, operators)
                found.append(cmd)
                if words[:2] == ["git", "clone"]:
                    positional = [w for w in words[2:] if not w.startswith("-")]
                    url_name = re.sub(r"\.git$", "", positional[0].rstrip("/").rsplit("/", 1)[-1]) if positional else ""
                    clones.add(positional[-1] if len(positional) >= 2 else url_name)
                if words[:1] == ["cd"] and not operators:
                    target = words[1] if len(words) > 1 else "."
                    cmd.into_clone = target in clones
                    cwd = "." if cmd.into_clone else os.path.normpath(os.path.join(cwd, target))
    return found


def doc_commands() -> list[DocCommand]:
    """The commands of every documentation file, each distinct command once (first place kept)."""
    seen: dict[tuple, DocCommand] = {}
    for path in doc_files():
        for cmd in extract(path.read_text(encoding="utf-8"), path.relative_to(ROOT).as_posix()):
            key = (cmd.text, cmd.cwd)
            if key in seen:
                seen[key].also.append(cmd.where)
            else:
                seen[key] = cmd
    return list(seen.values())


# --------------------------------------------------------------------------------------------
# What is skipped, and why
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Rule:
    """Commands whose first words fully match ``pattern`` (one regular expression per word)."""

    pattern: tuple[str, ...]
    reason: str

    def matches(self, argv: list[str]) -> bool:
        words = [_python(a) if k == 0 else a for k, a in enumerate(argv)]
        return len(words) >= len(self.pattern) and all(
            re.fullmatch(p, w) for p, w in zip(self.pattern, words))


def _python(word: str) -> str:
    return "python" if re.fullmatch(r"python(3(\.\d+)?)?", word) else word


SKIP_RULES = (
    Rule(("git", "clone"), "gets the repository: the test runs in this checkout"),
    Rule(("python", "-m", "venv"), "creates the virtual environment the test already runs in"),
    Rule((r"\.|source", r".*bin/activate(\.\w+)?"), "activates the virtual environment the test runs in"),
    Rule(("python", "-m", "pip", "install"), "installs the package: the test runs on the installed package"),
    Rule(("pip3?", "install"), "installs the package: the test runs on the installed package"),
    Rule(("python", "-m", "pytest"), "runs the test suite, which contains this test"),
    Rule(("python", "-m", "mkdocs", "serve"),
         "a documentation server that runs until stopped; CI builds the same site (mkdocs build --strict)"),
)


def skip_reason(cmd: DocCommand) -> str | None:
    """Why ``cmd`` is not run, or ``None`` when it is run (or unrecognized)."""
    for rule in SKIP_RULES:
        if rule.matches(cmd.argv):
            return rule.reason
    if cmd.into_clone:
        return "changes into the clone: the commands run from the repository's top level"
    return None


def runnable(cmd: DocCommand) -> bool:
    """The forms of command this test runs: the CLI, Python scripts, ``python -m contactmodes``, Dask."""
    a = [_python(x) for x in cmd.argv[:1]] + cmd.argv[1:]
    if cmd.operators:
        return False
    return bool(a) and (a[0] == "contactmodes" or a[0] == "cd"
                        or (a[0] == "python" and len(a) > 1 and a[1].endswith(".py"))
                        or a[:3] == ["python", "-m", "contactmodes"]
                        or a[:2] in (["dask", "scheduler"], ["dask", "worker"]))


# --------------------------------------------------------------------------------------------
# How what is run is changed: outputs, placeholders, size
# --------------------------------------------------------------------------------------------

# options whose value is a path the command writes
OUTPUT_OPTIONS = ("--output", "--out", "--plot", "--animate", "--write", "--html")
# a documented output directory the reader chooses
OUTPUT_PLACEHOLDERS = ("OUT", "DIR")


def _write_chain(path: Path) -> None:
    sys.path.insert(0, str(ROOT / "tests"))
    from _support.chains import zigzag_chain
    from _support.toml_writer import to_toml

    path.write_text(to_toml(zigzag_chain(4)), encoding="utf-8")


# input files the docs name as the reader's own: written into the working directory
PLACEHOLDER_FILES: dict[str, tuple[Callable[[Path], None], str]] = {
    "chain.toml": (_write_chain, "README 'Many contacts' stands for the reader's own system: the 4-link zig-zag "
                                 "chain of benchmarks/bench_chain.py (3 torques, as --at 0.1,-0.2,0.05 needs)"),
}


def _option_value(argv: list[str], option: str) -> str | None:
    for k, a in enumerate(argv):
        if a == option and k + 1 < len(argv):
            return argv[k + 1]
        if a.startswith(option + "="):
            return a.split("=", 1)[1]
    return None


def _set_option(argv: list[str], option: str, value: str) -> list[str]:
    """``argv`` with ``option``'s value set (appended when absent)."""
    out = list(argv)
    for k, a in enumerate(out):
        if a == option and k + 1 < len(out):
            out[k + 1] = value
            return out
        if a.startswith(option + "="):
            out[k] = f"{option}={value}"
            return out
    return out + [f"{option}={value}"]


def _small_grids(argv: list[str]) -> list[str]:
    """Every ``--vary KEY=LO:HI:N`` with ``N > 2`` becomes ``KEY=LO:HI:2`` (both ends kept)."""
    out = list(argv)
    for k, a in enumerate(out):
        for prefix in ("--vary=", ""):
            if (prefix and a.startswith(prefix)) or (not prefix and k > 0 and out[k - 1] == "--vary"):
                body = a[len(prefix):]
                m = re.fullmatch(r"(.+)=([^:=]+):([^:=]+):(\d+)", body)
                if m and int(m.group(4)) > 2:
                    out[k] = f"{prefix}{m.group(1)}={m.group(2)}:{m.group(3)}:2"
    return out


@dataclass(frozen=True)
class Reduction:
    pattern: tuple[str, ...]        # as in Rule
    change: Callable[[list[str]], list[str]]
    reason: str


REDUCTIONS = (
    Reduction(("contactmodes", "sweep"), _small_grids,
              "every LO:HI:N grid of --vary becomes LO:HI:2 (both ends kept): the same keys, kinds, "
              "cluster and outputs on a few points (4 in today's docs) instead of up to 108"),
    Reduction(("python", r"(.*/)?sweep_brace_atlas\.py"),
              lambda a: _set_option(_set_option(a, "--mu", "0.125:1:2"), "--elbow", "-150:-30:2"),
              "the atlas's default 8 x 9 grid becomes its corners (--mu 0.125:1:2 --elbow -150:-30:2)"),
    Reduction(("contactmodes", "sweep", "flip"), lambda a: _set_option(a, "--duration", "0.4"),
              "--duration 0.4: runs stop at 0.4 s of simulated time (the fast flips still flip, the others "
              "time out; the table and the plot are still produced)"),
    Reduction(("python", r"(.*/)?reproduce_flip\.py"),
              lambda a: _set_option(a if "--quick" in a else a + ["--quick"], "--duration", "0.05"),
              "--quick --duration 0.05: the coarse grids, every run stopping after 50 control steps (a "
              "timeout); every table, figure and runs.json is still produced: 41 runs in about 10 s "
              "instead of 84 runs in minutes"),
    Reduction(("python", r"(.*/)?bench_chain\.py"),
              lambda a: _set_option(_set_option(a, "--kmax", "4"), "--baseline", ""),
              "--kmax 4 (k = 2…4 instead of 2…12); --baseline '': the comparison with an old revision "
              "(extracted by git archive: needs the repository's history, absent from shallow clones) "
              "measures old code, not the documented command"),
    Reduction(("python", r"(.*/)?bench_sweep\.py"),
              lambda a: _set_option(_set_option(a, "--workers", "1"), "--noop", "10"),
              "--workers 1 --noop 10: one cluster size and 10 no-op tasks (its two sweeps have no size flag)"),
    Reduction(("dask", "worker"), lambda a: _set_option(a, "--nworkers", "1"),
              "--nworkers 1: one worker process on a two-core machine"),
)


def reduced(argv: list[str]) -> tuple[list[str], list[str]]:
    """``(argv at reduced size, reasons of the reductions applied)``."""
    reasons = []
    for r in REDUCTIONS:
        if Rule(r.pattern, "").matches(argv):
            argv = r.change(argv)
            reasons.append(r.reason)
    return argv, reasons


def redirect_outputs(argv: list[str], outdir: Path) -> tuple[list[str], list[Path]]:
    """Every output option's path moved into ``outdir``: ``(argv, the paths to expect)``."""
    out, paths = list(argv), []

    def move(value: str) -> str:
        head, _, rest = value.partition("/")
        if head in OUTPUT_PLACEHOLDERS:
            target = outdir / rest if rest else outdir
        else:
            target = outdir / Path(value.rstrip("/")).name
        paths.append(target)
        return str(target)

    k = 0
    while k < len(out):
        a = out[k]
        if a in OUTPUT_OPTIONS and k + 1 < len(out):
            out[k + 1] = move(out[k + 1])
            k += 2
            continue
        opt, eq, value = a.partition("=")
        if eq and opt in OUTPUT_OPTIONS:
            out[k] = f"{opt}={move(value)}"
        k += 1
    return out, paths


def executable(argv: list[str]) -> list[str]:
    """The program of ``argv`` in this test's environment (the same virtual environment)."""
    head = _python(argv[0])
    if head == "python":
        return [sys.executable] + argv[1:]
    script = Path(sys.executable).parent / head
    if script.exists():
        return [str(script)] + argv[1:]
    found = shutil.which(head)
    if found:
        return [found] + argv[1:]
    if head == "contactmodes":
        return [sys.executable, "-m", "contactmodes"] + argv[1:]
    return argv


def workdir(tmp: Path) -> Path:
    """A working directory mirroring the repository's top level (packages left out) by symlinks."""
    tmp.mkdir(parents=True, exist_ok=True)
    for entry in ROOT.iterdir():
        if entry.name.startswith(".") or entry.name.endswith(".egg-info") or (entry / "__init__.py").exists():
            continue
        (tmp / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())
    return tmp


def tree_files() -> set[str]:
    files: set[str] = set()
    for d in GUARDED_DIRS:
        for dirpath, dirnames, filenames in os.walk(ROOT / d):
            dirnames[:] = [n for n in dirnames if n != "__pycache__"]
            files.update(os.path.join(dirpath, n) for n in filenames)
    return files


# --------------------------------------------------------------------------------------------
# The Dask daemons of docs/sweeps.md
# --------------------------------------------------------------------------------------------

def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class DaskDaemons:
    """The documented ``dask scheduler`` / ``dask worker`` commands, started on this machine."""

    def __init__(self, commands: list[DocCommand], tmp: Path) -> None:
        self.addresses: dict[str, str] = {}   # documented address -> live address
        self.procs: dict[str, subprocess.Popen] = {}  # where -> process
        self.logs: dict[str, Path] = {}
        self.workers: dict[str, int] = {}     # live scheduler address -> workers started for it
        self.tmp = tmp
        for cmd in commands:
            if cmd.argv[:2] == ["dask", "scheduler"]:
                port = _free_port()
                argv = _set_option(_set_option(cmd.argv, "--host", "127.0.0.1"), "--port", str(port))
                self.addresses[documented_schedulers([cmd])[0]] = f"tcp://127.0.0.1:{port}"
                self._start(cmd, argv)
        for cmd in commands:
            if cmd.argv[:2] == ["dask", "worker"]:
                argv, _ = reduced(self.rewrite(cmd.argv))
                self._start(cmd, argv)
                live = next((a for a in argv if a.startswith("tcp://")), "")
                self.workers[live] = self.workers.get(live, 0) + int(_option_value(argv, "--nworkers") or 1)

    def _start(self, cmd: DocCommand, argv: list[str]) -> None:
        log = self.tmp / f"daemon{len(self.procs)}.log"
        self.logs[cmd.where] = log
        with open(log, "wb") as fh:
            self.procs[cmd.where] = subprocess.Popen(executable(argv), stdout=fh, stderr=subprocess.STDOUT,
                                                     stdin=subprocess.DEVNULL, cwd=self.tmp,
                                                     env=dict(os.environ, TMPDIR=str(self.tmp)),
                                                     start_new_session=True)

    def rewrite(self, argv: list[str]) -> list[str]:
        out = []
        for a in argv:
            for documented, live in self.addresses.items():
                a = a.replace(documented, live)
            out.append(a)
        return out

    def wait_ready(self, timeout: float = 90.0) -> None:
        """Every scheduler answers with the workers started for it, or an assertion with the logs."""
        from distributed import Client

        deadline = time.monotonic() + timeout
        for live in self.addresses.values():
            want = self.workers.get(live, 0)
            while True:
                dead = {w: p.returncode for w, p in self.procs.items() if p.poll() is not None}
                assert not dead, f"a documented Dask daemon exited: {dead}\n{self.log_text()}"
                try:
                    with Client(live, timeout="5s") as client:
                        client.wait_for_workers(want, timeout=max(1.0, deadline - time.monotonic()))
                    break
                except Exception:  # noqa: BLE001 - not up yet; the deadline decides
                    if time.monotonic() > deadline:
                        raise AssertionError(f"Dask cluster at {live} not ready with {want} workers:\n"
                                             f"{self.log_text()}") from None
                    time.sleep(0.5)

    def log_text(self) -> str:
        return "\n".join(f"--- {w}:\n{p.read_text(errors='replace')[-3000:]}" for w, p in self.logs.items())

    def close(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                try:
                    os.killpg(proc.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        for proc in self.procs.values():
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


COMMANDS = doc_commands()


@pytest.fixture(scope="module")
def dask_daemons(tmp_path_factory):
    daemons = DaskDaemons([c for c in COMMANDS if c.argv[:1] == ["dask"]], tmp_path_factory.mktemp("dask"))
    try:
        daemons.wait_ready()
        yield daemons
    finally:
        daemons.close()


# --------------------------------------------------------------------------------------------
# The cases
# --------------------------------------------------------------------------------------------

def _case_id(cmd: DocCommand) -> str:
    text = cmd.text if len(cmd.text) <= 100 else cmd.text[:97] + "..."
    return f"{cmd.where} {text}"


def documented_schedulers(commands: list[DocCommand]) -> list[str]:
    """The addresses of the documented ``dask scheduler`` commands (``tcp://HOST:PORT``)."""
    return [f"tcp://{_option_value(c.argv, '--host') or '127.0.0.1'}:{_option_value(c.argv, '--port')}"
            for c in commands if c.argv[:2] == ["dask", "scheduler"]]


def _uses_daemons(cmd: DocCommand) -> bool:
    return cmd.argv[:1] == ["dask"] or any(addr in a for a in cmd.argv for addr in documented_schedulers(COMMANDS))


@pytest.mark.slow
@pytest.mark.parametrize("cmd", COMMANDS, ids=[_case_id(c) for c in COMMANDS])
def test_doc_command(cmd: DocCommand, tmp_path, request):
    reason = skip_reason(cmd)
    if reason is not None:
        pytest.skip(f"{reason} ({cmd.where})")
    if not runnable(cmd):
        pytest.fail(f"{cmd.where}: `{cmd.text}` is neither run nor skipped by tests/test_doc_commands.py: "
                    f"add a skip rule with its reason (SKIP_RULES) or teach the test to run it (runnable)")

    work = workdir(tmp_path / "work")
    cwd = work / cmd.cwd
    assert cwd.is_dir(), f"{cmd.where}: `{cmd.text}` runs in {cmd.cwd}, which does not exist (after the block's cd)"
    if cmd.argv[0] == "cd":
        target = cwd / (cmd.argv[1] if len(cmd.argv) > 1 else ".")
        assert target.is_dir(), f"{cmd.where}: `{cmd.text}`: no directory {cmd.argv[1:]} in the repository"
        return

    daemons = request.getfixturevalue("dask_daemons") if _uses_daemons(cmd) else None
    if cmd.argv[:1] == ["dask"]:
        assert daemons is not None
        proc = daemons.procs[cmd.where]
        assert proc.poll() is None, f"`{cmd.text}` exited with {proc.returncode}:\n{daemons.log_text()}"
        return  # started by the fixture, which waited for the scheduler and its workers

    outdir = tmp_path / "out"
    outdir.mkdir()
    argv = daemons.rewrite(cmd.argv) if daemons else list(cmd.argv)
    argv, reductions = reduced(argv)
    argv, outputs = redirect_outputs(argv, outdir)
    for name, (write, _why) in PLACEHOLDER_FILES.items():
        if name in argv:
            write(cwd / name)
    (tmp_path / "tmp").mkdir()
    env = dict(os.environ, **cmd.env)
    env["TMPDIR"] = str(tmp_path / "tmp")  # default output directories of the scripts, Dask's scratch space

    before = tree_files()
    t0 = time.monotonic()
    try:
        proc = subprocess.run(executable(argv), cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                              text=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"{cmd.where}: `{cmd.text}` (run as {argv}) did not finish in {TIMEOUT_S} s: {exc}")
    seconds = time.monotonic() - t0
    written = sorted(tree_files() - before)

    context = (f"{cmd.where} (also {', '.join(cmd.also) or 'nowhere else'}): `{cmd.text}`\n"
               f"run as: {shlex.join(argv)}  [{seconds:.1f} s]\n"
               + "".join(f"reduced: {r}\n" for r in reductions)
               + f"--- stdout (end):\n{proc.stdout[-3000:]}\n--- stderr (end):\n{proc.stderr[-3000:]}")
    assert proc.returncode == cmd.expected_status, (
        f"exit status {proc.returncode}, documented {cmd.expected_status}\n{context}")
    assert not written, f"wrote into the source tree: {written}\n{context}"
    if "--json" in argv:
        text = proc.stdout
        if not text.strip():
            files = [p for p in outputs if p.is_file()]
            assert files, f"--json printed nothing and wrote no file\n{context}"
            text = files[0].read_text(encoding="utf-8")
        doc = json.loads(text)
        assert isinstance(doc, dict) and str(doc.get("schema", "")).startswith("contactmodes."), context
    if cmd.expected_status in (0, 1):  # the contract: the usual output is written with status 1 too
        for path in outputs:
            assert path.exists(), f"{path.name} was not written\n{context}"
            if path.is_dir():
                assert any(path.iterdir()), f"{path} is empty\n{context}"
            else:
                assert path.stat().st_size > 0, f"{path} is empty\n{context}"


# --------------------------------------------------------------------------------------------
# The reader itself
# --------------------------------------------------------------------------------------------

SAMPLE = """\
Text `contactmodes not-a-command` and a Python block:

```python
import contactmodes
```

```bash
git clone <this repository> proj && cd proj
python3 -m venv .venv                  # a virtual environment
contactmodes sweep analyze x.toml --vary contacts.0.mu=0.25:3:12 \\
    --vary 'state.qdot.x=-2:2:9' --plot OUT/p.png   # a sweep
contactmodes flip --controller blind --mu-toe 1.5 --output flip#1.txt  # no flip: exit status 1
ls examples | head
```

1. In a list:

   ```sh
   CONTACTMODES_CACHE_DIR=/tmp/c python benchmarks/bench_chain.py --kmax 12
   ```
"""


def test_reader_joins_continuations_and_strips_comments():
    cmds = extract(SAMPLE, "sample.md")
    assert [c.where for c in cmds] == ["sample.md:8", "sample.md:8", "sample.md:9", "sample.md:10",
                                       "sample.md:12", "sample.md:13", "sample.md:19"]
    clone, cd, venv, sweep, flip, ls, chain = cmds
    assert clone.argv[:2] == ["git", "clone"] and cd.argv == ["cd", "proj"]
    assert venv.argv == ["python3", "-m", "venv", ".venv"] and venv.comment == "a virtual environment"
    assert sweep.argv == ["contactmodes", "sweep", "analyze", "x.toml", "--vary", "contacts.0.mu=0.25:3:12",
                          "--vary", "state.qdot.x=-2:2:9", "--plot", "OUT/p.png"]
    assert sweep.cwd == "."  # cd into the clone is the repository root
    assert flip.argv[-1] == "flip#1.txt" and flip.expected_status == 1 and sweep.expected_status == 0
    assert ls.operators == ["|"] and not runnable(ls)
    assert chain.env == {"CONTACTMODES_CACHE_DIR": "/tmp/c"} and chain.argv[0] == "python"


def test_reader_classifies_every_sample_command():
    clone, cd, venv, sweep, flip, ls, chain = extract(SAMPLE, "sample.md")
    assert skip_reason(clone) and skip_reason(venv)
    assert skip_reason(sweep) is None and runnable(sweep) and runnable(flip) and runnable(chain)
    assert skip_reason(ls) is None and not runnable(ls)  # unrecognized: its case fails

    argv, why = reduced(sweep.argv)
    assert argv[5] == "contacts.0.mu=0.25:3:2" and argv[7] == "state.qdot.x=-2:2:2" and len(why) == 1
    argv, why = reduced(chain.argv)
    assert _option_value(argv, "--kmax") == "4" and _option_value(argv, "--baseline") == "" and why
    argv, paths = redirect_outputs(["contactmodes", "plot", "a.toml", "--output=docs/img/x.png", "--plot", "OUT/p.png",
                                    "--out", "DIR"], Path("/o"))
    assert argv[3:] == ["--output=/o/x.png", "--plot", "/o/p.png", "--out", "/o"]
    assert paths == [Path("/o/x.png"), Path("/o/p.png"), Path("/o")]


def test_unrecognized_command_fails(tmp_path):
    (ls,) = [c for c in extract(SAMPLE, "sample.md") if c.argv[0] == "ls"]
    with pytest.raises(pytest.fail.Exception, match="neither run nor skipped"):
        test_doc_command(ls, tmp_path, None)


def test_the_docs_have_commands():
    """The reader finds the README's quick start and commands on the worked-example pages."""
    texts = {c.text for c in COMMANDS}
    assert "contactmodes analyze examples/two_link_brace.toml" in texts
    assert "python -m pytest -n auto --dist loadfile" in texts
    places = {c.where.split(":")[0] for c in COMMANDS} | {w.split(":")[0] for c in COMMANDS for w in c.also}
    assert {"README.md", "docs/index.md", "docs/examples/flipping.md", "docs/sweeps.md"} <= places
    assert len(COMMANDS) >= 25
