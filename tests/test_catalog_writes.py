"""`add-model` and `prices import` write into the catalog all or nothing, one at a time, and keep
what the deployer's file was: its mode, line endings, symlink and comments.

A full disk is a real write failure here: the command runs with a file-size limit (RLIMIT_FSIZE,
SIGXFSZ ignored), so writing the new file fails with EFBIG as a full disk fails with ENOSPC.
"""

from __future__ import annotations

import os
import resource
import signal
import stat
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from generator.catalog.file_writes import catalog_lock
from tests import hf_configs
from tests.conftest import ROOT
from tests.test_add_model import checkpoint_folder

HEADER = "gpu,price_per_gpu_hour,provider,date,source\n"
H100_PRICE = "    price_per_gpu_hour: {value: 2.69, provider: RunPod Community Cloud, date: 2026-09-25,"


def cli(*args: str, file_size_limit: int | None = None) -> subprocess.CompletedProcess:
    def limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (file_size_limit, file_size_limit))
    return subprocess.run([sys.executable, "-m", "generator", *args], capture_output=True, text=True, cwd=ROOT,
                          preexec_fn=limit if file_size_limit is not None else None)


def feed(tmp_path: Path, name: str, gpu: str, price: str) -> Path:
    path = tmp_path / name
    path.write_text(HEADER + f"{gpu},{price},RunPod,2026-11-28,https://r.example\n")
    return path


def hidden_files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(".") and p.name != ".vram-guide-catalog.lock")


def test_a_crlf_file_stays_crlf_and_a_remark_after_the_price_stays(tmp_path, content_copy):
    gpus = content_copy / "gpus.yaml"
    text = gpus.read_text()
    line = next(line for line in text.splitlines() if line.startswith(H100_PRICE))
    text = text.replace(line, line + "  # checked weekly")
    gpus.write_bytes(text.replace("\n", "\r\n").encode())
    result = cli("prices", "import", str(feed(tmp_path, "p.csv", "h100-sxm", "2.49")), "--content", str(content_copy))
    assert result.returncode == 0, result.stderr
    data = gpus.read_bytes().decode()
    assert data.count("\r\n") == data.count("\n")  # every line still ends in CRLF
    new = next(line for line in data.split("\r\n") if line.startswith("    price_per_gpu_hour: {value: 2.49"))
    assert new.endswith("}  # checked weekly")


def test_a_symlinked_gpus_file_is_written_where_it_points(tmp_path, content_copy):
    """(A link inside the content folder: one to outside it is refused, test_catalog.py.)"""
    (content_copy / "shared").mkdir()
    real = content_copy / "shared" / "gpus.yaml"
    (content_copy / "gpus.yaml").rename(real)
    (content_copy / "gpus.yaml").symlink_to(real)
    result = cli("prices", "import", str(feed(tmp_path, "p.csv", "h100-sxm", "2.49")), "--content", str(content_copy))
    assert result.returncode == 0, result.stderr
    assert (content_copy / "gpus.yaml").is_symlink() and "value: 2.49" in real.read_text()


def test_imports_at_once_keep_every_change(tmp_path, content_copy):
    gpus = ("h100-sxm", "h200", "b300", "rtx-4090")
    for round_ in range(4):
        feeds = [feed(tmp_path, f"{gpu}-{round_}.csv", gpu, f"{index + 1}.{round_}7") for index, gpu in enumerate(gpus)]
        with ThreadPoolExecutor(len(feeds)) as pool:
            results = list(pool.map(lambda f: cli("prices", "import", str(f), "--content", str(content_copy)), feeds))
        assert [r.returncode for r in results] == [0] * len(feeds), [r.stderr for r in results]
        text = (content_copy / "gpus.yaml").read_text()
        assert [index for index in range(len(gpus)) if f"value: {index + 1}.{round_}7," not in text] == [], round_


def test_a_full_disk_writes_nothing_and_says_so_in_one_line(tmp_path, content_copy):
    gpus = content_copy / "gpus.yaml"
    before = gpus.read_bytes()
    result = cli("prices", "import", str(feed(tmp_path, "p.csv", "h100-sxm", "2.49")), "--content", str(content_copy),
                 file_size_limit=len(before) // 2)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stderr.startswith(f"prices: {content_copy / 'gpus.yaml'}: File too large; nothing written")
    assert gpus.read_bytes() == before and hidden_files(content_copy) == []

    folder = checkpoint_folder(tmp_path, hf_configs.LLAMA_3_1_8B)
    models = sorted((content_copy / "models").iterdir())
    result = cli("add-model", str(folder), "--id", "meta-llama/Llama-3.1-8B", "--content", str(content_copy),
                 file_size_limit=200)
    assert result.returncode == 1 and "Traceback" not in result.stderr and len(result.stderr.splitlines()) == 1
    assert result.stderr.endswith(": File too large; nothing written\n")
    assert sorted((content_copy / "models").iterdir()) == models and hidden_files(content_copy / "models") == []


def test_add_model_writes_with_the_catalogs_mode(tmp_path, content_copy):
    os.chmod(content_copy / "gpus.yaml", 0o644)
    folder = checkpoint_folder(tmp_path, hf_configs.LLAMA_3_1_8B)
    result = cli("add-model", str(folder), "--id", "meta-llama/Llama-3.1-8B", "--content", str(content_copy))
    assert result.returncode == 0, result.stderr
    assert stat.S_IMODE((content_copy / "models" / "llama-3-1-8b.yaml").stat().st_mode) == 0o644


def test_add_model_never_writes_through_a_link_to_outside_the_catalog(tmp_path, content_copy):
    """A planted models/<slug>.yaml linking elsewhere: --force refuses in one line, the file it
    points to is untouched."""
    outside = tmp_path / "bashrc"
    outside.write_text("export PATH\n")
    (content_copy / "models" / "llama-3-1-8b.yaml").symlink_to(outside)
    folder = checkpoint_folder(tmp_path, hf_configs.LLAMA_3_1_8B)
    result = cli("add-model", str(folder), "--id", "meta-llama/Llama-3.1-8B", "--content", str(content_copy), "--force")
    assert result.returncode == 1 and len(result.stderr.splitlines()) == 1
    assert result.stderr.endswith(": a link to outside the content folder; copy the file in instead; nothing written\n")
    assert outside.read_text() == "export PATH\n" and hidden_files(content_copy / "models") == []


def test_an_import_reads_the_catalog_only_once_the_writer_before_it_is_done(tmp_path, content_copy):
    # another writer holds the lock with the catalog half written (here: site.yaml broken): the import
    # waits, and reads the catalog as that writer leaves it, not as it was in between
    site = content_copy / "site.yaml"
    good = site.read_text()
    with catalog_lock(content_copy):
        site.write_text(good.replace("currency: USD", "currency: [not, a, currency]"))
        importing = subprocess.Popen([sys.executable, "-m", "generator", "prices", "import",
                                      str(feed(tmp_path, "p.csv", "h100-sxm", "2.49")), "--content", str(content_copy)],
                                     cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(2)
        assert importing.poll() is None  # waiting for the lock
        site.write_text(good)
    out, err = importing.communicate(timeout=60)
    assert importing.returncode == 0, err
    assert "value: 2.49" in (content_copy / "gpus.yaml").read_text()
