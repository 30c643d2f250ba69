"""The repository itself: strict check, docs in step, fixtures, code blocks."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from skillcite import CODES
from skillcite.check import check
from skillcite.cli.app import main
from skillcite.check.parsing.document import parser

ROOT = Path(__file__).resolve().parent.parent


def test_repository_passes_strict_check() -> None:
    r = CliRunner().invoke(main, ["check", str(ROOT), "--strict"])
    assert r.exit_code == 0, r.output
    assert " 0 errors, 0 warnings" in r.output


def test_repository_has_quotes_to_verify() -> None:
    report = check(ROOT)
    assert report.quotes_verified >= 6
    assert report.sources >= 3


def test_codes_page_documents_every_code() -> None:
    page = (ROOT / "docs/codes.md").read_text()
    documented = set(re.findall(r"^## (SC\d{3})$", page, re.MULTILINE))
    assert documented == set(CODES)


def test_no_skill_md_committed_under_tests() -> None:
    out = subprocess.run(["git", "ls-files", "tests"], cwd=ROOT, capture_output=True, text=True)
    if out.returncode != 0:
        pytest.skip("not a git checkout")
    assert not [p for p in out.stdout.splitlines() if p.endswith("SKILL.md")]


def _python_blocks():
    for path in sorted([*ROOT.glob("refs/*.md"), ROOT / "PLAYBOOK.md", ROOT / "SKILL.md", *ROOT.glob("*/SKILL.md")]):
        if not path.is_file():
            continue
        for tok in parser().parse(path.read_text()):
            if tok.type == "fence" and tok.info.strip().split(" ")[0] in ("python", "py"):
                yield pytest.param(path, tok.map[0] + 1, tok.content, id=f"{path.relative_to(ROOT)}:{tok.map[0] + 1}")


@pytest.mark.parametrize("path,line,code", list(_python_blocks()))
def test_python_blocks_compile(path: Path, line: int, code: str) -> None:
    compile(code, f"{path}:{line}", "exec")


def test_readme_opens_with_the_two_setup_commands_and_ci_runs_them() -> None:
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"```sh\n(.*?)```", readme, re.DOTALL).group(1).splitlines()
    assert block[:2] == ['pip install -e . && skillcite check', 'pip install -c .ci/constraints.txt -e ".[test]" && pytest']
    ci = [line.strip() for line in (ROOT / ".ci/run").read_text().splitlines()]
    assert f"step \"tests\" bash -c '{block[1]}'" in ci
    assert 'step "skillcite check --strict" skillcite check --strict' in ci
    assert 'step "slow tests" pytest -m slow' in ci


def test_plugin_manifests_point_at_real_skills() -> None:
    import json

    plugin = json.loads((ROOT / ".claude-plugin/plugin.json").read_text())
    assert plugin["name"] == "ml-debug"
    for rel in plugin["skills"]:
        assert (ROOT / rel / "SKILL.md").is_file(), rel
    market = json.loads((ROOT / ".claude-plugin/marketplace.json").read_text())
    assert [p["name"] for p in market["plugins"]] == ["ml-debug"]


def test_readme_ci_and_skip_messages_install_the_same_cpu_torch() -> None:
    """README's torch command, .ci/run's torch step and the tests' skip messages name one pin and the CPU-only index."""
    readme = " ".join((ROOT / "README.md").read_text().split())
    command = re.search(r"`(pip install torch==[^`]*)`", readme).group(1)
    assert command == "pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu"
    ci = (ROOT / ".ci/run").read_text()
    pin, index = command.split()[2], command.split()[-1]
    assert f'step "torch" pip install --quiet "${{torch_from[@]}}" {pin}\n' in ci
    assert f"torch_cpu_index={index}\n" in ci and 'torch_from=(--extra-index-url "$torch_cpu_index")' in ci
    for test in ("test_bugzoo.py", "test_checks_devices.py", "test_zoo_coverage.py", "test_diagnostics_behaviour.py"):
        text = " ".join((ROOT / "tests" / test).read_text().replace('"\n    "', "").split())
        assert command.removeprefix("pip install ") in text, test
