"""Shared pieces of the benchmarks: the corpus, the MinerU environment, machine facts, output.

Importing this module is cheap and imports neither kb_pipeline nor MinerU, so each script can
set the MinerU environment up before anything imports `mineru` (and MinerU's spawned render
workers, which re-import the main script, stay light).
"""

from __future__ import annotations

import atexit
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
# The benchmarks import the package and the tests' PDF generators (kb_pipeline_tests.samples).
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))
OUT = BENCH / "out"
SHARED = Path(os.environ.get("KB_SHARED_DIR", REPO.parent / "shared"))
FIXTURE_PDFS = SHARED / "fixtures" / "pdfs"
MINERU_FIXTURES = SHARED / "fixtures" / "mineru-4.0.12-flash"
CORPUS_DIR = OUT / "corpus"
# Ten real PDFs of the shared corpus (185 pages): papers, reports, manuals, a standard, tables.
TEN_REAL_PDFS = [
    SHARED / "corpus" / "pdfs" / f"{name}.pdf"
    for name in (
        "manual_ibm_redpaper_db2_rcac",
        "manual_pymupdf_v1_8",
        "paper_twocol_creativity_ml",
        "paper_twocol_hydrology_afforestation",
        "report_eu_finland_vet",
        "report_eu_food_retail_tables",
        "report_fr_solar_impact_study",
        "report_qwen2_technical",
        "standard_nist_hpc_security",
        "table_nces_projections_multipage",
    )
]

# The six text fixtures (33 pages). scanned_small_ocr is left out: it has no text layer and
# fails by design without OCR weights.
FIXTURE_NAMES = ["demo1", "demo2", "demo3", "chem_intro", "unittest_test", "sample"]
# Four generated documents (27 pages): the project's two drop-folder samples and two reports.
GENERATED_REPORTS = {"bench_report_08": 8, "bench_report_16": 16}


# --------------------------------------------------------------------------- environment


def setup_mineru(home: Path | None = None) -> Path:
    """MinerU's environment, set before anything imports `mineru`: no network, a private
    MINERU_HOME (a temp dir unless given). Returns the home."""
    if "mineru" in sys.modules:
        raise RuntimeError("mineru was imported before the benchmark configured it")
    if home is None:
        home = Path(tempfile.mkdtemp(prefix="kb-bench-mineru-home-"))
        atexit.register(shutil.rmtree, home, ignore_errors=True)
    os.environ["MINERU_MODEL_SOURCE"] = "local"
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ.setdefault("MINERU_LOG_LEVEL", "warning")
    sys.path.insert(0, str(REPO))
    from kb_pipeline.parsing.mineru_adapter import configure_mineru_environment

    configure_mineru_environment(home)
    return home


def quiet_dagster() -> None:
    import warnings

    import dagster as dg

    for category in (dg.BetaWarning, dg.PreviewWarning, DeprecationWarning, UserWarning):
        warnings.filterwarnings("ignore", category=category)


# --------------------------------------------------------------------------- corpus


def report_pdf(path: Path, pages: int, title: str = "Laporan Operasional") -> None:
    """A text-layer report of exactly `pages` pages: numbered headings (1. / 1.1.), body
    paragraphs, a ruled table of numbers every third page, a formula line every second page,
    a running header and page numbers. Deterministic (reportlab invariant mode)."""
    from reportlab.lib import colors
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.lib.units import cm
    from reportlab.platypus import PageBreak, Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

    ss = getSampleStyleSheet()

    def furniture(canvas, doc) -> None:
        canvas.saveState()
        canvas.setFont("Helvetica", 8)
        canvas.drawString(72, A4[1] - 40, f"{title} — benchmark document")
        canvas.drawCentredString(A4[0] / 2, 30, f"{doc.page}")
        canvas.restoreState()

    words = (
        "unit produksi menghasilkan volume material yang diukur setiap shift dan dibandingkan "
        "dengan target bulanan sehingga deviasi dapat dianalisis oleh tim perencanaan tambang"
    ).split()

    def paragraph(seed: int, n_words: int = 70) -> str:
        return " ".join(words[(seed * 7 + i * 3) % len(words)] for i in range(n_words)).capitalize() + "."

    doc = SimpleDocTemplate(
        str(path), pagesize=A4, title=title, invariant=True, topMargin=2.2 * cm, bottomMargin=2 * cm
    )
    story = [Paragraph(title, ss["Title"])]
    for page in range(1, pages + 1):
        story.append(Paragraph(f"{page}. BAGIAN {page}", ss["Heading1"]))
        story.append(Paragraph(paragraph(page), ss["BodyText"]))
        story.append(Paragraph(f"{page}.1. Rincian {page}", ss["Heading2"]))
        story.append(Paragraph(paragraph(page + 1, 60), ss["BodyText"]))
        if page % 2 == 0:
            story.append(Paragraph(f"Produksi = MOHH x Qty x PA x UA x Pty = {1000 + page * 37} BCM", ss["Code"]))
        if page % 3 == 0:
            rows = [["Unit", "PA (%)", "UA (%)", "Produksi (BCM/jam)"]] + [
                [
                    f"HD{700 + page + r}",
                    f"{80 + (page + r) % 15}",
                    f"{70 + (page * r) % 20}",
                    f"{1200 + page * 10 + r * 3}",
                ]
                for r in range(5)
            ]
            story.append(Paragraph(f"Tabel {page // 3}. Kinerja unit", ss["BodyText"]))
            story.append(
                Table(
                    rows,
                    style=TableStyle(
                        [
                            ("GRID", (0, 0), (-1, -1), 0.8, colors.black),
                            ("BACKGROUND", (0, 0), (-1, 0), colors.lightgrey),
                        ]
                    ),
                )
            )
            story.append(Spacer(1, 8))
        story.append(Paragraph(f"{page}.2. Catatan", ss["Heading2"]))
        story.append(Paragraph(paragraph(page + 2, 50), ss["BodyText"]))
        if page < pages:
            story.append(PageBreak())
    doc.build(story, onFirstPage=furniture, onLaterPages=furniture)


def pdf_pages(pdf: Path) -> int:
    import pypdfium2

    document = pypdfium2.PdfDocument(str(pdf))
    try:
        return len(document)
    finally:
        document.close()


def build_corpus(folder: Path = CORPUS_DIR) -> list[Path]:
    """The 10-document speed corpus: six fixture PDFs plus four generated ones (same bytes on
    every run). Written once; reused while complete."""
    folder.mkdir(parents=True, exist_ok=True)
    sys.path.insert(0, str(REPO))
    from kb_pipeline_tests.samples import SAMPLES

    wanted = (
        [folder / f"{n}.pdf" for n in FIXTURE_NAMES]
        + [folder / n for n in SAMPLES]
        + [folder / f"{n}.pdf" for n in GENERATED_REPORTS]
    )
    for name in FIXTURE_NAMES:
        if not (folder / f"{name}.pdf").is_file():
            shutil.copyfile(FIXTURE_PDFS / f"{name}.pdf", folder / f"{name}.pdf")
    for name, make in SAMPLES.items():
        if not (folder / name).is_file():
            make(folder / name)
    for name, pages in GENERATED_REPORTS.items():
        if not (folder / f"{name}.pdf").is_file():
            report_pdf(folder / f"{name}.pdf", pages)
    return sorted(wanted, key=lambda p: p.name)


def corpus_from(folder: Path | None) -> list[Path]:
    if folder is None:
        return build_corpus()
    pdfs = sorted(p for p in Path(folder).iterdir() if p.suffix.lower() == ".pdf" and p.is_file())
    if not pdfs:
        raise SystemExit(f"no PDFs in {folder}")
    return pdfs


# --------------------------------------------------------------------------- process tree memory


def _stat_fields(pid: int | str) -> list[bytes] | None:
    """The fields of /proc/<pid>/stat after the command name (state first), None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return None
    # comm may hold spaces or parentheses: split after the last ')'.
    return stat[stat.rfind(b")") + 2 :].split()


def _ppid_map() -> dict[int, int]:
    parents = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit() and (fields := _stat_fields(entry.name)) is not None:
            parents[int(entry.name)] = int(fields[1])
    return parents


def process_tree(root: int) -> list[int]:
    parents = _ppid_map()
    tree, frontier = [root], [root]
    while frontier:
        frontier = [pid for pid, ppid in parents.items() if ppid in frontier]
        tree += frontier
    return tree


def _status_kib(pid: int, *keys: str) -> dict[str, int]:
    found = {}
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                key = line.split(":", 1)[0]
                if key in keys:
                    found[key] = int(line.split()[1])
    except OSError:
        pass
    return found


def _command(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return "?"


def tree_cpu_seconds(root: int) -> dict[int, tuple[str, float]]:
    """CPU seconds (user + system, its reaped children's included) of each live process of the
    tree under `root`, with its command line. The difference of two readings is what the tree
    spent between them; a process that ended meanwhile counts in its parent's children time."""
    tick = os.sysconf("SC_CLK_TCK")
    found = {}
    for pid in process_tree(root):
        if (fields := _stat_fields(pid)) is not None:
            found[pid] = (_command(pid), sum(int(v) for v in fields[11:15]) / tick)
    return found


def cpu_spent(before: dict[int, tuple[str, float]], after: dict[int, tuple[str, float]]) -> list[tuple[float, str]]:
    """CPU seconds each process of `after` spent since `before` (all of it for a new one), largest first."""
    spent = [(seconds - before.get(pid, ("", 0.0))[1], command) for pid, (command, seconds) in after.items()]
    return sorted(((s, c) for s, c in spent if s >= 0.05), reverse=True)


def _pss_kib(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


class TreeMemorySampler:
    """Samples the process tree under `root` every `interval` s from /proc: the sum of VmRSS
    (and of PSS, which does not double-count shared pages) over all live processes, and each
    process's VmHWM (its own high-water mark, read while it is alive). `at_peak` says which
    processes made up the RSS peak: (VmRSS KiB, command line), largest first."""

    def __init__(self, root: int, interval: float = 0.05):
        import threading

        self.root, self.interval = root, interval
        self.peak_rss_kib = self.peak_pss_kib = self.max_processes = 0
        self.hwm_kib: dict[int, int] = {}
        self.at_peak: list[tuple[int, str]] = []
        self.samples = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def sample(self) -> None:
        pids = process_tree(self.root)
        rss = pss = 0
        each: dict[int, int] = {}
        for pid in pids:
            status = _status_kib(pid, "VmRSS", "VmHWM")
            each[pid] = status.get("VmRSS", 0)
            rss += each[pid]
            pss += _pss_kib(pid)
            if "VmHWM" in status:
                self.hwm_kib[pid] = max(self.hwm_kib.get(pid, 0), status["VmHWM"])
        if rss > self.peak_rss_kib:
            self.at_peak = sorted(((kib, _command(pid)) for pid, kib in each.items()), reverse=True)
        self.peak_rss_kib = max(self.peak_rss_kib, rss)
        self.peak_pss_kib = max(self.peak_pss_kib, pss)
        self.max_processes = max(self.max_processes, len(pids))
        self.samples += 1

    def _run(self) -> None:
        while not self._stop.is_set():
            self.sample()
            self._stop.wait(self.interval)

    def __enter__(self) -> TreeMemorySampler:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()


# --------------------------------------------------------------------------- output


def machine() -> dict:
    info = {
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        # Other work on the machine skews every figure: recorded with each result.
        "loadavg_1_5_15": [round(x, 2) for x in os.getloadavg()],
    }
    try:
        with open("/proc/meminfo") as f:
            info["mem_gib"] = round(int(f.readline().split()[1]) / 1024**2, 1)
        with open("/proc/cpuinfo") as f:
            info["cpu"] = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), "")
    except OSError:
        pass
    try:
        from importlib.metadata import version

        info["mineru"] = version("mineru")
        info["dagster"] = version("dagster")
    except Exception:  # noqa: BLE001 — not installed in the peer venv
        pass
    try:
        info["git"] = subprocess.run(
            ["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(REPO), "status", "--porcelain", "--", "kb_pipeline"], capture_output=True, text=True
        ).stdout.strip()
        info["kb_pipeline_dirty"] = bool(dirty)
    except (OSError, subprocess.CalledProcessError):
        pass
    return info


def warn_if_busy() -> None:
    load = os.getloadavg()[0]
    if load > 0.7:
        print(
            f"note: 1-minute load average is {load:.2f} before the benchmark; other processes share the "
            f"{os.cpu_count()} cores and will skew the figures",
            file=sys.stderr,
            flush=True,
        )


def table(headers: list[str], rows: list[list]) -> str:
    cells = [[str(h) for h in headers]] + [
        ["" if v is None else (f"{v:.3f}" if isinstance(v, float) else str(v)) for v in row] for row in rows
    ]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = ["  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))) for r in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def timings(seconds: list[float]) -> dict[str, float]:
    """A benchmark's repeated timings summed up: the median, the 95th percentile (the nearest
    rank: with 20 runs the 19th, with 5 the slowest) and the slowest, in seconds."""
    ordered = sorted(seconds)
    return {
        "median_s": statistics.median(ordered),
        "p95_s": ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))],
        "max_s": ordered[-1],
    }


def timings_table(what: str, results: dict[str, dict], **more: Callable[[dict], object]) -> str:
    """One row per result (`timings`' median, p95 and max), then a column per `more` (its
    header the keyword, its cell the function of the result)."""
    headers = [what, "median s", "p95 s", "max s", *more]
    rows = [
        [name, r["median_s"], r["p95_s"], r["max_s"], *(f(r) for f in more.values())] for name, r in results.items()
    ]
    return table(headers, rows)


def write_json(name: str, payload: dict) -> Path:
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"{name}.json"
    payload = {
        "benchmark": name,
        "at": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": machine(),
        **payload,
    }
    path.write_text(json.dumps(payload, indent=2, ensure_ascii=False), encoding="utf-8")
    return path


def verdict(measured: float, target: float, higher_is_better: bool = True) -> str:
    ok = measured >= target if higher_is_better else measured <= target
    return "MET" if ok else "NOT MET"


class Stopwatch:
    def __enter__(self) -> Stopwatch:
        self.started = time.perf_counter()
        return self

    def __exit__(self, *exc) -> None:
        self.seconds = time.perf_counter() - self.started
