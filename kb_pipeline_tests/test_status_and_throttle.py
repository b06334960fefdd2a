"""Issue 49, items 4 and 11. `kb-pipeline status` without --input after `kb-pipeline ingest
--input DIR` (the real commands in-process, on the project's dagster.yaml with an instance of
the test's own, the parse from the session's cache), and refusing a DAGSTER_HOME without a
dagster.yaml. The sign-in throttle of `kb-pipeline review` on a real loopback port, where every
client has the one address, as behind a proxy the desk does not trust."""

from __future__ import annotations

import shutil
from pathlib import Path

import httpx
import pytest

from kb_pipeline.cli.instance import PROJECT_ROOT
from kb_pipeline.cli.main import main as cli_main

from .conftest import REPO_ROOT, SAMPLE_DOCS
from .deployment import review_desk
from .test_review_accounts import _CSRF_IN_PAGE, PASSWORDS
from .test_review_rough_edges import accounts  # noqa: F401 (Ada and Rina, made by the CLI)

PDF = "pump_maintenance_manual.pdf"


@pytest.fixture
def project_instance(layout, monkeypatch) -> Path:
    """The project's dagster.yaml over an instance under the test's data root, the model off
    (the deterministic readers only: this is about folders, not knowledge), no KB_DROP_FOLDER:
    the drop folder is the data root's knowledge_docs, which does not exist."""
    monkeypatch.setenv("DAGSTER_HOME", str(REPO_ROOT))
    monkeypatch.setenv("KB_DAGSTER_DIR", str(layout.dagster))
    monkeypatch.setenv("KB_LLM", "off")
    monkeypatch.delenv("KB_DROP_FOLDER", raising=False)
    return layout.knowledge_docs


def _refusal(argv: list[str]) -> str:
    with pytest.raises(SystemExit) as refused:
        cli_main(argv)
    return str(refused.value.code)


def test_status_without_input_lists_the_folder_the_latest_ingest_read(
    project_instance, layout, parses, tmp_path, capsys
):
    drop = project_instance
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    shutil.copy(SAMPLE_DOCS / PDF, inbox)
    parses.seed(layout, inbox / PDF)
    # Nothing ingested yet: what to pass, not a bare "does not exist".
    message = _refusal(["status"])
    assert f"the drop folder {drop} does not exist" in message
    assert "records no ingested document" in message and "pass --input DIR" in message

    assert cli_main(["ingest", "--input", str(inbox)]) == 0
    capsys.readouterr()
    assert cli_main(["status"]) == 0
    listed = capsys.readouterr()
    assert listed.out.splitlines()[0] == str(inbox.resolve())
    assert "pump_maintenance_manual.pdf" in listed.out and "1 files: 1 ingested, 0 failed" in listed.out
    assert f"{drop} does not exist: listing {inbox.resolve()}" in listed.err

    # A drop folder of its own wins, with a note naming the other folder.
    drop.mkdir()
    assert cli_main(["status"]) == 0
    listed = capsys.readouterr()
    assert listed.out.splitlines()[0] == str(drop) and "0 files" in listed.out
    assert f"--input {inbox.resolve()}" in listed.err
    # Neither folder left: both named, and what to pass.
    drop.rmdir()
    inbox.rename(tmp_path / "moved")
    message = _refusal(["status"])
    assert f"nor does {inbox.resolve()}, where the latest ingested document came from" in message
    assert "pass --input DIR" in message


def test_a_dagster_home_without_dagster_yaml_is_refused_and_left_untouched(project_instance, tmp_path, monkeypatch):
    home = tmp_path / "elsewhere"
    home.mkdir()
    monkeypatch.setenv("DAGSTER_HOME", str(home))
    folder = tmp_path / "pdfs"
    folder.mkdir()
    shutil.copy(SAMPLE_DOCS / PDF, folder)
    for command in (["status", "--input", str(folder)], ["ingest", "--input", str(folder)]):
        message = _refusal(command)
        assert message.startswith(f"error: DAGSTER_HOME {home} holds no dagster.yaml"), command
        assert f"point DAGSTER_HOME at {PROJECT_ROOT} or copy {PROJECT_ROOT / 'dagster.yaml'} into {home}" in message
        assert "\n" not in message
        assert list(home.iterdir()) == []  # no default instance made there, no dagster.yaml written


def test_wrong_passwords_for_one_name_lock_out_no_other_but_many_names_are_slowed(accounts, tmp_path):  # noqa: F811
    """Every client reaches the desk from 127.0.0.1 (the X-Forwarded-For a proxy would add is not
    trusted without --trust-forwarded-for): the one address of a desk behind a proxy."""
    with review_desk(tmp_path / "desk.log") as base:

        def attempt(name: str, password: str, client_address: str) -> httpx.Response:
            with httpx.Client(base_url=base, follow_redirects=False, timeout=10) as client:
                token = _CSRF_IN_PAGE.search(client.get("/signin").text).group(1)  # type: ignore[union-attr]
                return client.post(
                    "/signin",
                    data={"name": name, "password": password, "csrf_token": token},
                    headers={"X-Forwarded-For": client_address},
                )

        def codes(name: str, password: str, client_address: str, times: int = 1) -> list[int]:
            return [attempt(name, password, client_address).status_code for _ in range(times)]

        # Rina forgets her password: her name waits, Ada, from the same address, signs in.
        assert codes("Rina", "not-her-password", "198.51.100.7", times=5) == [401] * 5
        refused = attempt("Rina", PASSWORDS["Rina"], "198.51.100.7")
        assert refused.status_code == 429 and 1 <= int(refused.headers["retry-after"]) <= 60
        assert codes("Ada", PASSWORDS["Ada"], "198.51.100.8") == [303]
        # One address guessing names: after five names (Rina's among them) it waits, under any name.
        assert [codes(f"guess{i}", "wrong-guess", "203.0.113.9")[0] for i in range(4)] == [401] * 4
        assert codes("guess4", "wrong-guess", "203.0.113.9") == [429]
        assert codes("Ada", PASSWORDS["Ada"], "198.51.100.8") == [429]
