"""The impact gate end to end, as docs/impact.md's GitHub Actions workflow runs it: a real ``headwater serve``
(write and read tokens, a catalog with owners, a published asset and a subscriber), the pipeline sent by
``headwater sql lineage``, a git repository with a base branch and pull-request branches, and the workflow
step's script run by bash as written in the docs, with a read token."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import httpx
import yaml
from pipeline import DATABASE, NS, PIPELINE_SQL, RAW, REPORT, col

from live_server import ServeProcess, serve_env

ADMIN, READER = "admin-token-e2e", "reader-token-e2e"
DOCS = Path(__file__).resolve().parents[2] / "docs" / "impact.md"


def workflow_script() -> str:
    """The run script of the "Impact check" step of the workflow in docs/impact.md."""
    text = DOCS.read_text(encoding="utf-8")
    block = re.search(r"<!-- the test tests/impact/test_impact_e2e.py runs.*?-->\n```yaml\n(.*?)```", text, re.S)
    assert block, "docs/impact.md lost its workflow block"
    workflow = yaml.safe_load(block.group(1))
    steps = workflow["jobs"]["impact"]["steps"]
    (step,) = [s for s in steps if s.get("name") == "Impact check"]
    assert step["env"]["HEADWATER_TOKEN"] == "${{ secrets.HEADWATER_TOKEN }}"
    return str(step["run"])


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True)
    return done.stdout


def make_repo(tmp: Path) -> Path:
    """A clone of a bare origin whose main branch has the first migration."""
    origin, work = tmp / "origin.git", tmp / "work"
    subprocess.run(["git", "init", "--bare", "-b", "main", str(origin)], check=True, capture_output=True)
    subprocess.run(["git", "clone", str(origin), str(work)], check=True, capture_output=True)
    git(work, "config", "user.email", "ci@example.com")
    git(work, "config", "user.name", "CI")
    (work / "sql" / "migrations").mkdir(parents=True)
    (work / "sql" / "migrations" / "0001_pipeline.sql").write_text(PIPELINE_SQL)
    git(work, "checkout", "-b", "main")
    git(work, "add", ".")
    git(work, "commit", "-m", "pipeline")
    git(work, "push", "origin", "main")
    return work


def pull_request(work: Path, branch: str, name: str, sql: str) -> None:
    git(work, "checkout", "main")
    git(work, "checkout", "-b", branch)
    (work / "sql" / "migrations" / name).write_text(sql)
    git(work, "add", ".")
    git(work, "commit", "-m", name)


def run_workflow(work: Path, url: str, token: str) -> subprocess.CompletedProcess[str]:
    (work / "impact.md").unlink(missing_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("HEADWATER_")}
    env.update(
        HEADWATER_URL=url,
        HEADWATER_TOKEN=token,
        GITHUB_BASE_REF="main",
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
    )
    # GitHub runs a step's script with bash -e -o pipefail
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", workflow_script()],
        cwd=work, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def catalog(url: str) -> str:
    """Analytics owns and publishes the report (owner alice), marketing subscribes; the token of the CI user, a
    viewer of analytics."""
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {ADMIN}"}, timeout=60) as http:

        def ok(answer: httpx.Response) -> dict[str, object]:
            assert answer.status_code in (200, 201), answer.text
            found = answer.json()
            assert isinstance(found, dict)
            return found

        c = "/api/v1/catalog"
        ok(http.post(f"{c}/domains", json={"id": "sales", "name": "Sales"}))
        tokens = {}
        for project, user, role in (
            ("analytics", "alice", "owner"),
            ("marketing", "mia", "owner"),
            ("analytics", "ci", "viewer"),
        ):
            if user != "ci":
                ok(http.post(f"{c}/projects", json={"id": project, "domain": "sales"}))
            tokens[user] = ok(http.post(f"{c}/users", json={"id": user}))["token"]
            ok(http.put(f"{c}/projects/{project}/members/{user}", json={"role": role}))
        asset = ok(http.post(f"{c}/assets", json={"nodeId": REPORT, "project": "analytics"}))["id"]
        ok(http.patch(f"{c}/assets/{asset}", json={"owners": ["alice@example.com"]}))
        ok(http.post(f"{c}/assets/{asset}/publish"))
        sub = ok(
            http.post(
                f"{c}/assets/{asset}/subscriptions",
                json={"target": "dashboards", "reason": "country reach"},
                headers={"Authorization": f"Bearer {tokens['mia']}", "Headwater-Project": "marketing"},
            )
        )
        ok(http.post(f"{c}/subscriptions/{sub['id']}/approve", json={"reason": "ok"}))
        return str(tokens["ci"])


def test_the_documented_workflow_fails_a_breaking_pull_request_and_passes_a_harmless_one(tmp_path: Path) -> None:
    env = serve_env(tmp_path / "data", HEADWATER_WRITE_TOKENS=ADMIN, HEADWATER_READ_TOKENS=READER)
    with ServeProcess(f"sqlite:///{tmp_path / 'hw.db'}", tmp_path / "serve.log", env) as server:
        (tmp_path / "pipeline.sql").write_text(PIPELINE_SQL)
        sent = subprocess.run(
            [sys.executable, "-m", "headwater", "sql", "lineage", str(tmp_path / "pipeline.sql"), "--dialect",
             "postgres", "--namespace", NS, "--default-database", DATABASE, "--url", server.url, "--token", ADMIN],
            capture_output=True, text=True, env={**os.environ, "PYTHONPATH": os.environ.get("PYTHONPATH", "")},
        )  # fmt: skip
        assert sent.returncode == 0, sent.stderr
        ci = catalog(server.url)
        work = make_repo(tmp_path)

        # a pull request dropping a column read three hops downstream fails, its comment says what and who
        pull_request(work, "drop-email", "0002_drop_email.sql", "ALTER TABLE raw.customers DROP COLUMN email;\n")
        failed = run_workflow(work, server.url, ci)
        assert failed.returncode == 1, failed.stdout + failed.stderr
        comment = (work / "impact.md").read_text()
        assert comment.startswith("## \u274c Headwater impact check: 10 breaking, 1 warning, 0 info")
        # the catalog's publish job reads the report with no column lineage: it may read what changed
        assert (
            "| `publish/analytics/shop.reports.country_contacts` | JOB | \u2014 | \u2014 | \u2014 "
            "| may read it (no column lineage known) | shop.raw.customers.email \u2192 " in comment
        )
        assert "sql/migrations/0002_drop_email.sql:1" in comment
        report_row = next(line for line in comment.splitlines() if "`shop.reports.country_contacts.emails`" in line)
        cells = [c.strip() for c in report_row.strip("|").split("|")]
        assert cells[:5] == [
            "`shop.reports.country_contacts.emails` (published)", "FIELD", "analytics", "alice@example.com, alice",
            "marketing",
        ]  # fmt: skip
        hops = cells[6].split(" \u2192 ")  # column, job, column, job ... (names without namespaces)
        assert hops[0::2] == [
            "shop.raw.customers.email", "shop.staging.customers.email", "shop.mart.customer_contacts.email",
            "shop.reports.country_contacts.emails",
        ]  # fmt: skip
        assert [h.rsplit(".", 1)[0] for h in hops[1::2]] == [
            "create_table_as.shop.staging.customers", "create_table_as.shop.mart.customer_contacts",
            "create_table_as.shop.reports.country_contacts",
        ]  # fmt: skip
        for broken in ("shop.staging.customers.email", "shop.mart.customer_contacts.email"):
            assert f"| `{broken}` | FIELD | \u2014 | \u2014 | \u2014 | value flows from it |" in comment
        assert "| `shop.reports.country_contacts.sample_email` (published) | FIELD | analytics |" in comment
        assert "**Published assets affected:** `shop.reports.country_contacts`" in comment

        # renaming a column nobody reads passes
        pull_request(
            work, "rename-notes", "0003_rename_notes.sql", "ALTER TABLE raw.customers RENAME COLUMN notes TO remarks;\n"
        )
        passed = run_workflow(work, server.url, ci)
        assert passed.returncode == 0, passed.stdout + passed.stderr
        assert (
            (work / "impact.md")
            .read_text()
            .startswith("## \u2705 Headwater impact check: nothing downstream is affected")
        )

        # the API obeys the visibility policy: a server read token does not see analytics' inventory table (only
        # its published node), nor the job writing it; they count, restricted once each, and name nothing
        body = {"changes": [{"kind": "drop_column", "namespace": NS, "name": "shop.raw.customers", "column": "email"}]}
        seen = httpx.post(
            f"{server.url}/api/v1/impact/check", json=body, headers={"Authorization": f"Bearer {READER}"}, timeout=60
        )
        assert seen.status_code == 200, seen.text
        answer = seen.json()
        assert answer["severity"] == "breaking"
        restricted = [i for i in answer["items"] if i["type"] == "RESTRICTED"]
        assert [(i["id"], i["severity"], i["name"], i["owners"]) for i in restricted] == [
            ("job:restricted://hidden:1", "breaking", "", []),
            ("dataset:restricted://hidden:2", "breaking", "", []),
        ]
        assert answer["summary"] == {
            "breaking": 8, "warning": 1, "info": 0, "datasets": 2, "jobs": 3, "fields": 2, "restricted": 2,
        }  # fmt: skip
        # the inventory table's id and its columns appear nowhere; the publish job is public while the asset is
        # published (docs/catalog.md), and may read the restricted table
        text = json.dumps(answer)
        assert REPORT not in text and REPORT.replace("dataset:", "datasetField:") not in text
        publish = next(i for i in answer["items"] if i["effect"] == "MAY_READ")
        assert publish["id"] == "job:headwater-catalog://sales:publish/analytics/shop.reports.country_contacts"
        assert publish["path"][-2:] == ["dataset:restricted://hidden:2", publish["id"]]
        assert col(RAW, "email") in answer["changes"][0]["gone"]
        refused = httpx.post(f"{server.url}/api/v1/impact/check", json=body, timeout=60)
        assert refused.status_code == 401
        bad = httpx.post(
            f"{server.url}/api/v1/impact/check",
            json={"changes": [{"kind": "drop_column", "namespace": NS, "name": "t"}]},
            headers={"Authorization": f"Bearer {READER}"},
            timeout=60,
        )
        assert bad.status_code == 400 and bad.json()["error"]["message"] == (
            "changes: [0].column: a non-empty string is required"
        )
