"""The real thing a newcomer uses: `kb-pipeline ingest` in a subprocess against an embedded
instance, then `dagster-webserver` on a free loopback port — its GraphQL API lists the assets
and partitions and shows a changed document unsynced — and a headless Chromium loading the
asset graph page."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from kb_pipeline.paths import DataLayout
from kb_pipeline.pipeline import content_hash_of
from kb_pipeline_tests.samples import text_pdf

from .conftest import REPO_ROOT, SAMPLE_PDFS
from .deployment import free_port, make_deployment

pytestmark = pytest.mark.services

BIN = Path(sys.executable).parent
ASSETS = {
    "source_pdf",
    "mineru_raw_output",
    "parsed_document",
    "page_layout",
    "quality_warnings",
    "quality_warnings_table",
    "kb_package",
    "knowledge_payloads",
    "glossary_table",
    "review_queue_table",
    "review_decisions",
    "active_knowledge",
    "glossary_tbx",
    "glossary_skos",
}
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture
def deployment(tmp_path, parses):
    """An embedded instance laid out like the repo's: its own DAGSTER_HOME, data and drop folder;
    the samples' parses are in its cache already (the UI is under test here, not MinerU)."""
    deployment = make_deployment(tmp_path)
    for pdf in SAMPLE_PDFS:
        shutil.copy(pdf, deployment.drop)
    parses.seed(DataLayout(deployment.data), *sorted(deployment.drop.iterdir()))
    return {**os.environ, **deployment.env}, deployment.drop


def _ingest(env) -> str:
    done = subprocess.run([str(BIN / "kb-pipeline"), "ingest"], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def _graphql(port: int, query: str) -> dict:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/graphql",
        data=json.dumps({"query": query}).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        body = json.loads(response.read())
    assert "errors" not in body, body
    return body["data"]


def _stale(port: int, asset: str, partition: str) -> str:
    data = _graphql(
        port,
        f'{{ assetNodeOrError(assetKey: {{path: ["{asset}"]}}) '
        f'{{ ... on AssetNode {{ staleStatus(partition: "{partition}") }} }} }}',
    )
    return data["assetNodeOrError"]["staleStatus"]


@pytest.fixture
def webserver(deployment):
    env, _drop = deployment
    port = free_port()
    server = subprocess.Popen(
        [str(BIN / "dagster-webserver"), "-w", str(REPO_ROOT / "workspace.yaml"), "-h", "127.0.0.1", "-p", str(port)],
        env=env,
        cwd=REPO_ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 120
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/server_info", timeout=5):
                break
        except OSError:
            if server.poll() is not None or time.monotonic() > deadline:
                server.kill()
                pytest.fail(f"dagster-webserver did not start: {server.stderr.read().decode()[-3000:]}")
            time.sleep(0.5)
    yield port
    server.terminate()
    server.wait(timeout=30)


def test_ui_lists_assets_partitions_and_shows_a_changed_document_unsynced(deployment, webserver, tmp_path):
    env, drop = deployment
    text_pdf(drop / "policy.pdf", ["1. Scope", "Applies to all sites."])
    summary = _ingest(env)
    assert "3 ingested, 0 unchanged, 0 failed" in summary
    port = webserver

    nodes = _graphql(port, "{ assetNodes { assetKey { path } } }")["assetNodes"]
    assert {"/".join(n["assetKey"]["path"]) for n in nodes} == ASSETS
    partitions = _graphql(
        port, '{ assetNodeOrError(assetKey: {path: ["parsed_document"]}) { ... on AssetNode { partitionKeys } } }'
    )["assetNodeOrError"]["partitionKeys"]
    assert sorted(partitions) == ["STD_2026_006_parameter_produksi", "policy", "pump_maintenance_manual"]
    assert _stale(port, "mineru_raw_output", "policy") == "FRESH"

    # The document changes; the sensor (here: the same observation ingest records) sees new bytes.
    text_pdf(drop / "policy.pdf", ["1. Scope", "Applies to all sites and contractors."])
    import dagster as dg

    from kb_pipeline.defs.history import observe_source

    os.environ.update({k: env[k] for k in ("DAGSTER_HOME", "KB_DAGSTER_DIR")})
    with dg.DagsterInstance.get() as instance:
        observe_source(instance, "policy", content_hash_of(drop / "policy.pdf"))
    assert _stale(port, "mineru_raw_output", "policy") == "STALE"
    assert _stale(port, "mineru_raw_output", "pump_maintenance_manual") == "FRESH"

    summary = _ingest(env)
    assert "1 ingested, 2 unchanged, 0 failed" in summary
    assert _stale(port, "mineru_raw_output", "policy") == "FRESH"
    versions = _graphql(
        port,
        '{ assetNodeOrError(assetKey: {path: ["parsed_document"]}) { ... on AssetNode '
        '{ latestMaterializationByPartition(partitions: ["policy"]) '
        "{ metadataEntries { label ... on IntMetadataEntry { intValue } } } } } }",
    )
    entries = versions["assetNodeOrError"]["latestMaterializationByPartition"][0]["metadataEntries"]
    assert {e["label"]: e.get("intValue") for e in entries}["version"] == 2


def test_headless_chromium_renders_the_asset_graph(deployment, webserver, tmp_path):
    env, _drop = deployment
    _ingest(env)
    chromium = shutil.which("chromium")
    assert chromium, "Debian's chromium is not installed: `make test` installs it (apt-get install chromium)"
    # mineru_raw_output's lineage: the graph from source_pdf through the parse's two outputs (the
    # artifact and its layout) to the packages and knowledge read from them.
    url = f"http://127.0.0.1:{webserver}/assets/mineru_raw_output?view=lineage&lineageDepth=3"
    profile = tmp_path / "chromium-profile"
    screenshot = tmp_path / "asset-graph.png"
    common = [
        chromium,
        *CHROMIUM_FLAGS,
        f"--user-data-dir={profile}",
        "--window-size=1600,1000",
        "--virtual-time-budget=30000",
    ]
    subprocess.run([*common, f"--screenshot={screenshot}", url], capture_output=True, timeout=180)
    dom = subprocess.run([*common, "--dump-dom", url], capture_output=True, text=True, timeout=180).stdout
    assert screenshot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and screenshot.stat().st_size > 20_000
    for asset in (
        "mineru_raw_output",
        "parsed_document",
        "page_layout",
        "quality_warnings",
        "kb_package",
        "knowledge_payloads",
    ):
        assert asset in dom, asset
    if "KB_SCREENSHOT_DIR" in os.environ:  # keep the picture for a person to look at
        shots = Path(os.environ["KB_SCREENSHOT_DIR"])
        shots.mkdir(parents=True, exist_ok=True)
        shutil.copy(screenshot, shots / "asset-graph.png")
