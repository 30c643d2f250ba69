"""The reference Agent Skills validator (``skills-ref`` on PyPI) on every skill we ship.

Our own check implements the front-matter rules (SC5xx); this runs the
specification's reference implementation on the same files, in the
repository and in an installed tree, so the two cannot drift apart unseen.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from skillcite.cli.app import main

skills_ref = pytest.importorskip("skills_ref", reason="skills-ref is in the test extra: pip install -e '.[test]'")

ROOT = Path(__file__).resolve().parent.parent


def repository_skills() -> list[Path]:
    """Every SKILL.md in the repository outside hidden folders, the venv and tests."""
    skip = {"tests", "build", "dist", "node_modules"}
    return sorted(
        p for p in ROOT.rglob("SKILL.md") if not any(part.startswith(".") or part in skip for part in p.relative_to(ROOT).parts[:-1])
    )


def test_repository_has_the_three_skills() -> None:
    assert [p.relative_to(ROOT).as_posix() for p in repository_skills()] == ["SKILL.md", "pinn/SKILL.md", "rl/SKILL.md"]


@pytest.mark.parametrize("skill_md", repository_skills(), ids=lambda p: p.relative_to(ROOT).parent.as_posix() or "root")
def test_reference_validator_accepts_each_repository_skill(skill_md: Path, tmp_path: Path) -> None:
    folder = skill_md.parent
    if folder == ROOT:
        # The spec wants the folder named as the skill; a clone's folder name is
        # the user's choice, so validate the root as it is cloned: ml-debug/.
        link = tmp_path / "ml-debug"
        link.symlink_to(ROOT, target_is_directory=True)
        folder = link
    assert skills_ref.validate(folder) == []


def test_reference_validator_accepts_the_installed_skills(tmp_path: Path) -> None:
    dest = tmp_path / "skills"
    r = CliRunner().invoke(main, ["install", str(ROOT), "--dest", str(dest)])
    assert r.exit_code == 0, r.output
    folders = sorted(dest.iterdir())
    assert [f.name for f in folders] == ["ml-debug", "ml-debug-pinn", "ml-debug-rl"]
    for folder in folders:
        assert skills_ref.validate(folder) == [], folder.name


def test_reference_validator_is_not_a_rubber_stamp(tmp_path: Path) -> None:
    """The twin: a name that differs from its folder is rejected, so the passes above mean something."""
    folder = tmp_path / "ml-debug-rl"
    folder.mkdir()
    text = (ROOT / "rl/SKILL.md").read_text(encoding="utf-8")  # name: rl, in a folder named ml-debug-rl
    (folder / "SKILL.md").write_text(text, encoding="utf-8")
    errors = skills_ref.validate(folder)
    assert errors and "must match skill name" in errors[0]
