"""`make refresh SOURCE=gpuhunt`: the live path through the gpuhunt library, run offline against recorded
responses (the published per-provider catalog layout, served from disk through GPUHUNT_CATALOG_URL)."""

import zipfile
from pathlib import Path
from types import SimpleNamespace

import pytest

from catalog.refresh import LiveFetchError, apply_refresh, fetch_gpuhunt, plan_refresh
from catalog.refresh_cli import run_refresh

DATA = Path(__file__).parent / "data"


@pytest.fixture
def recorded_gpuhunt(tmp_path, monkeypatch):
    """gpuhunt's bucket layout: <base>/<provider>/version and <base>/<provider>/<version>/catalog.zip."""
    version = "20261101-recorded"
    (tmp_path / "aws" / version).mkdir(parents=True)
    (tmp_path / "aws" / "version").write_text(version)
    with zipfile.ZipFile(tmp_path / "aws" / version / "catalog.zip", "w") as z:
        z.write(DATA / "gpuhunt_aws_from_skypilot.csv", "aws.csv")
    monkeypatch.setenv("GPUHUNT_CATALOG_URL", tmp_path.as_uri())
    return tmp_path


def test_live_fetch_goes_through_the_same_import_path(store, recorded_gpuhunt):
    fetched = fetch_gpuhunt(["aws"])
    data, url = fetched["aws"]
    assert url == f"{recorded_gpuhunt.as_uri()}/aws/20261101-recorded/catalog.zip"
    url = "https://dstack-gpu-pricing.s3.eu-west-1.amazonaws.com/v3/aws/20261101-recorded/catalog.zip"  # as published
    preview = plan_refresh(store, data, "gpuhunt-aws.csv", provider_id="aws", source_url=url, as_of="2026-11-01",
                           skip_unknown_gpus=True)
    assert preview.fmt == "gpuhunt" and preview.problems == []
    line = preview.diff.set_index(["instance_type", "region"]).loc[("p5.48xlarge", "us-east-1")]
    assert line.offer_id == "aws-h100-sxm-p5-48xlarge-us-east-1" and line["on-demand_new"] == pytest.approx(55.04 / 8)
    # The same file imported directly gives the same diff (one import path).
    direct = plan_refresh(store, (DATA / "gpuhunt_aws_from_skypilot.csv").read_bytes(), "aws.csv", provider_id="aws",
                          source_url=url, as_of="2026-11-01", skip_unknown_gpus=True)
    assert direct.counts == preview.counts
    apply_refresh(store, preview, __import__("catalog.models").models.Editor(name="a", role="editor"), "live")
    assert store.row("offers", "aws-h100-sxm-p5-48xlarge-us-east-1")["last_seen"] is not None


def test_without_network_the_message_says_what_to_do(monkeypatch, catalog_path, capsys):
    monkeypatch.setenv("GPUHUNT_CATALOG_URL", "http://127.0.0.1:9")  # nothing listens there: like no network
    with pytest.raises(LiveFetchError, match="Without network access, download"):
        fetch_gpuhunt(["aws"])
    args = SimpleNamespace(source="gpuhunt", providers="aws", as_of=None, skip_unknown_gpus=False, apply=True,
                           message=None, provider=None, source_url=None)
    assert run_refresh(catalog_path, args) == 2
    assert "Could not fetch the gpuhunt catalogs" in capsys.readouterr().err


def test_unknown_gpuhunt_provider_is_named(recorded_gpuhunt):
    with pytest.raises(LiveFetchError, match="not for nosuchcloud"):
        fetch_gpuhunt(["nosuchcloud"])


def test_cli_refresh_previews_then_applies_a_file(catalog_path, capsys):
    args = SimpleNamespace(source=str(DATA / "skypilot_v8_nebius_vms.csv"), providers="", provider="nebius",
                           source_url="https://example.com/nebius.csv", as_of="2026-11-01", skip_unknown_gpus=False,
                           apply=False, message=None)
    assert run_refresh(catalog_path, args) == 0
    out = capsys.readouterr().out
    assert "new: 18, changed: 3" in out and "preview only" in out  # 3 curated Nebius offers refreshed in place
    args.apply = True
    assert run_refresh(catalog_path, args) == 0
    assert "applied as change set #1" in capsys.readouterr().out
    bad = SimpleNamespace(**{**vars(args), "provider": None})
    assert run_refresh(catalog_path, bad) == 2 and "provenance is never made up" in capsys.readouterr().err
