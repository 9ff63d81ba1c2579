"""The site publishes itself: the GitHub Actions workflow is valid, does what the README says, and deploys
to GitHub Pages with the least privilege, from main only.

The README's test command is the one contract: the workflow runs it verbatim, and so does .ci/run.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
WORKFLOWS = ROOT / ".github" / "workflows"
WORKFLOW = WORKFLOWS / "pages.yml"
README = ROOT / "README.md"
CI_RUN = ROOT / ".ci" / "run"
# The current major version of each action the workflow uses (checked when the workflow was written).
CURRENT_MAJOR = {
    "actions/checkout": 7,
    "actions/upload-artifact": 7,
    "actions/configure-pages": 6,
    "actions/upload-pages-artifact": 5,
    "actions/deploy-pages": 5,
}
ON_MAIN = re.compile(r"github\.event_name\s*==\s*'push'\s*&&\s*github\.ref\s*==\s*'refs/heads/main'")


def readme_commands() -> list[str]:
    """The commands of the README's ```shell blocks, comment lines left out."""
    blocks = re.findall(r"^```shell\n(.*?)^```", README.read_text(encoding="utf-8"), re.M | re.S)
    return [
        "\n".join(line for line in block.splitlines() if line.strip() and not line.lstrip().startswith("#"))
        for block in blocks
    ]


def readme_test_command() -> str:
    commands = [c for c in readme_commands() if re.search(r"-m pytest\b", c)]
    assert len(commands) == 1, f"the README should have one ```shell block that runs pytest: {commands}"
    return commands[0]


def workflow() -> dict:
    return yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))


def steps(job: dict) -> list[dict]:
    return job.get("steps", [])


def runs(wf: dict) -> list[str]:
    return [step["run"].strip() for job in wf["jobs"].values() for step in steps(job) if "run" in step]


def test_there_is_one_workflow():
    assert sorted(p.name for p in WORKFLOWS.glob("*.y*ml")) == ["pages.yml"]


def test_the_workflow_is_valid_for_github_actions():
    """Validated offline against check-jsonschema's bundled schema of GitHub workflows."""
    executable = Path(sys.executable).parent / "check-jsonschema"
    command = str(executable) if executable.exists() else shutil.which("check-jsonschema")
    assert command, "check-jsonschema is not installed (it is in the project's [test] extra)"
    proc = subprocess.run(
        [command, "--builtin-schema", "vendor.github-workflows", str(WORKFLOW)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, f"{WORKFLOW.name} is not a valid workflow:\n{proc.stdout}\n{proc.stderr}"


def test_the_workflow_installs_and_tests_with_the_readmes_command():
    command = readme_test_command()
    assert command in runs(workflow()), (
        f"{WORKFLOW.name} must run the README's test command verbatim (it also installs the project):\n"
        f"{command}\nIts run steps are:\n" + "\n".join(runs(workflow()))
    )


def test_ci_run_runs_the_readmes_test_command():
    lines = [line.strip() for line in CI_RUN.read_text(encoding="utf-8").splitlines()]
    assert readme_test_command() in lines, ".ci/run must run the README's test command verbatim"
    installs = [line for line in lines if re.search(r"apt-get install .*\bchromium\b", line)]
    assert installs, ".ci/run must install chromium"


def test_the_browser_tests_run_in_the_workflow():
    """Chromium is installed before the tests, and CI=true makes the browser tests fail rather than skip."""
    wf = workflow()
    build = wf["jobs"]["build"]
    assert str(build.get("env", {}).get("CI", "")).lower() == "true"
    commands = [step.get("run", "") for step in steps(build)]
    test_at = commands.index(readme_test_command())
    assert any(re.search(r"apt-get install .*\bchromium\b", c) for c in commands[:test_at]), (
        "chromium must be installed (apt) before the tests run"
    )
    artifacts = [s for s in steps(build) if s.get("uses", "").startswith("actions/upload-artifact@")]
    assert any(s["with"]["path"].rstrip("/") == "tests/screenshots" for s in artifacts), (
        "the screenshots must be kept as an artifact"
    )


def test_the_site_is_built_strictly_for_its_pages_url():
    build = workflow()["jobs"]["build"]
    ids = [s.get("id") for s in steps(build)]
    configure = next(s for s in steps(build) if s.get("uses", "").startswith("actions/configure-pages@"))
    site = next(s for s in steps(build) if "mkdocs build" in s.get("run", ""))
    assert ids.index(configure.get("id")) < steps(build).index(site)
    assert "--strict" in site["run"]
    assert f"steps.{configure['id']}.outputs.base_url" in site["env"]["SITE_URL"], (
        "SITE_URL must come from configure-pages' base_url (mkdocs.yml reads site_url from it)"
    )
    upload = next(s for s in steps(build) if s.get("uses", "").startswith("actions/upload-pages-artifact@"))
    out = re.search(r"--site-dir\s+(\S+)", site["run"])
    assert out and upload["with"]["path"] == out.group(1), "the artifact must be the site that was built"


def test_on_every_push_and_pull_request_and_deploys_from_main_only():
    wf = workflow()
    triggers = wf.get("on", wf.get(True))  # YAML 1.1 reads a bare `on` as true
    assert {"push", "pull_request"} <= set(triggers)
    deploy = wf["jobs"]["deploy"]
    assert ON_MAIN.search(deploy.get("if", "")), "deploy only on a push to main"
    assert deploy["needs"] == "build"
    upload = next(s for s in steps(wf["jobs"]["build"]) if "upload-pages-artifact" in s.get("uses", ""))
    assert ON_MAIN.search(upload.get("if", "")), "pull requests and other branches upload no Pages artifact"
    assert [s.get("uses", "").split("@")[0] for s in steps(deploy)] == ["actions/deploy-pages"]
    assert deploy["environment"]["name"] == "github-pages"


def test_least_privilege():
    wf = workflow()
    assert wf["permissions"] == {"contents": "read"}, "the workflow's token only reads the repository"
    for name, job in wf["jobs"].items():
        permissions = job.get("permissions", {})
        if name == "deploy":
            assert permissions == {"pages": "write", "id-token": "write"}, f"deploy: {permissions}"
        else:
            writes = {k: v for k, v in permissions.items() if v == "write"}
            assert not writes, f"job {name} must not write anything: {writes}"


def test_a_deployment_in_progress_is_never_cancelled():
    wf = workflow()
    concurrency = wf["jobs"]["deploy"].get("concurrency") or wf.get("concurrency")
    assert concurrency == {"group": "pages", "cancel-in-progress": False}


@pytest.mark.parametrize("action", sorted(CURRENT_MAJOR))
def test_actions_are_at_their_current_major_version(action):
    used = [
        step["uses"]
        for job in workflow()["jobs"].values()
        for step in steps(job)
        if step.get("uses", "").split("@")[0] == action
    ]
    assert used, f"the workflow does not use {action}"
    for uses in used:
        version = re.fullmatch(rf"{re.escape(action)}@v(\d+)", uses)
        assert version and int(version.group(1)) >= CURRENT_MAJOR[action], (
            f"{uses}: use the current major, @v{CURRENT_MAJOR[action]}"
        )


def test_the_readme_says_how_the_site_is_published():
    text = README.read_text(encoding="utf-8")
    section = re.search(r"^## Publishing\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert section, "the README has no '## Publishing' section"
    assert ".github/workflows/pages.yml" in section.group(1)


def test_the_workflow_installs_the_versions_that_were_tested():
    """The Pages workflow runs in the Python .ci/run tests with (a pinned image), and pip installs exactly
    the versions of .github/constraints.txt, which must satisfy pyproject.toml's requirements."""
    import tomllib

    from packaging.requirements import Requirement

    build = workflow()["jobs"]["build"]
    assert re.fullmatch(r"python:3\.11\.\d+-bookworm", build["container"]["image"].split()[0]), (
        f"pin the workflow's image to a Python patch release: {build['container']['image']}"
    )
    constraints_path = build["env"].get("PIP_CONSTRAINT", "")
    assert constraints_path == ".github/constraints.txt", "the workflow must install with PIP_CONSTRAINT"
    pinned = {}
    for line in (ROOT / constraints_path).read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, version = line.partition("==")
            assert version, f"{constraints_path}: {line!r} is not name==version"
            pinned[re.sub(r"[-_.]+", "-", name).lower()] = version
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = project["optional-dependencies"]
    for text in [*project["dependencies"], *extras["docs"], *extras["test"]]:
        requirement = Requirement(text)
        name = re.sub(r"[-_.]+", "-", requirement.name).lower()
        if name == "culpa":
            continue
        assert name in pinned, f"{constraints_path} does not pin {requirement.name}"
        assert requirement.specifier.contains(pinned[name]), (
            f"{constraints_path} pins {requirement.name}=={pinned[name]}, outside pyproject's {requirement}"
        )
