"""Shell lines of refs/hardware.md and refs/hosts.md run as written, on this machine (issue 27): the ECC
filter against a stand-in `nvidia-smi` that prints counters with zeros inside them, and the pgrep lines
against a real torchrun launching two workers (the script gets a unique name, so other jobs on the
machine cannot match)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def doc_line(path: str, start: str) -> str:
    """The line of a reference file's shell block that starts with `start`, without its trailing comment."""
    line = next(ln for ln in (ROOT / path).read_text(encoding="utf-8").splitlines() if ln.startswith(start))
    return line.split("  #")[0].strip()


NVIDIA_SMI_Q = """\
    ECC Errors
        Volatile
            SRAM Correctable                  : 0
            SRAM Uncorrectable Parity         : 0
            DRAM Correctable                  : 10
            DRAM Uncorrectable                : 0
        Aggregate
            SRAM Correctable                  : 1024
            SRAM Uncorrectable Parity         : 0
            DRAM Correctable                  : 7
            DRAM Uncorrectable                : 0
"""


def fake_nvidia_smi(tmp_path: Path) -> dict[str, str]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "nvidia-smi"
    script.write_text(f"#!/bin/sh\ncat <<'EOF'\n{NVIDIA_SMI_Q}EOF\n", encoding="utf-8")
    script.chmod(0o755)
    return {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}


def counters(command: str, env: dict[str, str]) -> list[str]:
    done = subprocess.run(["bash", "-c", command], capture_output=True, text=True, env=env, check=False, timeout=30)
    return [ln.split(":")[1].strip() for ln in done.stdout.splitlines()]


def test_ecc_filter_keeps_counts_that_contain_a_zero(tmp_path):
    env = fake_nvidia_smi(tmp_path)
    command = doc_line("refs/hardware.md", "nvidia-smi -q -d ECC | grep -i correctable")
    assert counters(command, env) == ["10", "1024", "7"]
    # the line it replaced: every count with a 0 digit vanished, 10 and 1024 among them
    assert counters("nvidia-smi -q | grep -i correctable | grep -v 0", env) == ["7"]


@pytest.mark.skipif(shutil.which("pgrep") is None, reason="needs pgrep (procps)")
def test_pgrep_lines_tell_the_launcher_from_the_ranks(tmp_path):
    pytest.importorskip("torch")
    name = f"train_{uuid.uuid4().hex[:12]}.py"
    (tmp_path / name).write_text("import time\ntime.sleep(120)\n", encoding="utf-8")
    launcher = subprocess.Popen(  # torchrun as the console script would run it
        [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2", name],
        cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)

    def sh(command: str) -> list[int]:
        out = subprocess.run(["bash", "-c", command.replace("train.py", name)], capture_output=True, text=True,
                             check=False, timeout=30).stdout
        return sorted(int(p) for p in out.split())

    try:
        deadline = time.monotonic() + 120
        while len(sh(f"pgrep -P {launcher.pid} -f train.py")) < 2 and time.monotonic() < deadline:
            time.sleep(0.5)
        workers = sh(f"pgrep -P {launcher.pid} -f train.py")
        assert len(workers) == 2, "torchrun did not start its two workers in time"
        # `pgrep -f train.py`, as refs/hosts.md's ps line uses it: the launcher matches too
        assert sh("pgrep -f train.py") == sorted([launcher.pid, *workers])
        # the py-spy line's launcher and its children, with py-spy replaced by echo
        found = doc_line("refs/hosts.md", "launcher=$(pgrep -o -f")
        children = doc_line("refs/hosts.md", 'pgrep -P "$launcher"').replace("py-spy dump --native --pid", "echo")
        assert sh(f"{found}; echo $launcher") == [launcher.pid]
        assert sh(f"{found}; {children}") == workers
    finally:
        os.killpg(launcher.pid, signal.SIGTERM)
        launcher.wait(timeout=60)
