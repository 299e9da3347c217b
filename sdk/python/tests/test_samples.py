"""The Python x-codeSamples of docs/openapi.json run against the server
(sdk/test.sh starts one): each in a fresh interpreter, in a scratch folder,
with this checkout's SDK."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pytest

from vis_sdk import Vis

HERE = pathlib.Path(__file__).resolve().parent
DOC = HERE.parents[2] / "docs" / "openapi.json"
SRC = HERE.parent / "src"


def python_samples() -> list[tuple[str, str]]:
    doc = json.loads(DOC.read_text())
    found = []
    for path, item in doc["paths"].items():
        for method, op in item.items():
            for sample in op.get("x-codeSamples", []):
                if sample["lang"] == "Python":
                    found.append((f"{method.upper()} {path}", sample["source"]))
    return found


SAMPLES = python_samples()


def test_every_operation_has_a_python_sample() -> None:
    assert len(SAMPLES) >= 15, SAMPLES


@pytest.fixture(scope="module")
def delivery_url() -> str:
    vis = Vis(os.environ["VIS_BASE_URL"], api_key=os.environ["VIS_API_KEY"])
    minted = vis.create_image_urls([{"make": "toyota", "model": "camry", "year": 2019}])
    return minted.data[0].url


@pytest.mark.parametrize(("what", "source"), SAMPLES, ids=[w for w, _ in SAMPLES])
def test_the_python_sample_runs(
    what: str, source: str, delivery_url: str, tmp_path: pathlib.Path
) -> None:
    # The samples address the embedded default; these run against the test server.
    code = source.replace("http://127.0.0.1:8080", os.environ["VIS_BASE_URL"])
    env = {**os.environ, "DELIVERY_URL": delivery_url, "PYTHONPATH": str(SRC)}
    r = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, f"{what}:\n{code}\n{r.stderr}"
