"""How fast the live preview shows an edit: figures, not assertions.

    python benchmarks/preview.py [--content DIR] [--model SLUG] [--edits 5]

Copies the catalog to a temporary folder, starts `python -m generator serve` on it, waits for the
first build, then edits one model's license text `--edits` times and prints, for each, the seconds
from the file written to the model page served with the new text (target: at most 2 s on the
shipped catalog), and to the models index showing it too (the pages that list every model).
"""

from __future__ import annotations

import argparse
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def fetch(url: str) -> str:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.read().decode("utf-8", "replace")
    except OSError:
        return ""


def wait_for(url: str, text: str, limit: float) -> float | None:
    started = time.monotonic()
    while time.monotonic() - started < limit:
        if text in fetch(url):
            return time.monotonic() - started
        time.sleep(0.02)
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--content", type=Path, default=ROOT / "content")
    parser.add_argument("--model", default="qwen3-32b")
    parser.add_argument("--edits", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="vram-preview-") as work:
        content = Path(work) / "content"
        shutil.copytree(args.content, content)
        port = free_port()
        started = time.monotonic()
        server = subprocess.Popen([sys.executable, "-m", "generator", "serve", "--content", str(content),
                                   "--out", str(Path(work) / "site"), "--port", str(port)],
                                  cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        said: list[tuple[float, str]] = []  # every line the preview prints, with the time it came
        threading.Thread(target=lambda: [said.append((time.monotonic(), line)) for line in server.stderr], daemon=True).start()
        try:
            while not any(line.startswith("serving ") for _, line in said):
                if server.poll() is not None:
                    raise SystemExit("serve stopped before serving: " + "".join(line for _, line in said)[-2000:])
                time.sleep(0.1)
            print(f"first build and serving: {time.monotonic() - started:.1f} s")
            model_file = content / "models" / f"{args.model}.yaml"
            page = f"http://127.0.0.1:{port}/en/models/{args.model}.html"
            own, listing = [], []
            for edit in range(args.edits):
                text = model_file.read_text(encoding="utf-8")
                marker = f"Licence edited {edit}"
                text = re.sub(r"(license:\n  value: )[^\n]*", lambda m: m.group(1) + marker, text, count=1)
                heard = len(said)
                written = time.monotonic()
                model_file.write_text(text, encoding="utf-8")
                own.append(wait_for(page, marker, 60))
                while not any("pages that list every model" in line for _, line in said[heard:]):
                    time.sleep(0.05)
                    if time.monotonic() - written > 120:
                        raise SystemExit("the pages that list every model did not follow within 120 s: " + "".join(line for _, line in said))
                listing.append(next(at for at, line in said[heard:] if "pages that list every model" in line) - written)
            shown = [s for s in own if s is not None]
            print(f"one-model edit to its page served: median {statistics.median(shown):.2f} s, max {max(shown):.2f} s "
                  f"over {len(shown)} edits ({args.edits - len(shown)} not shown within 60 s)")
            print(f"to the pages that list every model too: median {statistics.median(listing):.1f} s, max {max(listing):.1f} s")
        finally:
            server.terminate()
            server.wait(timeout=30)


if __name__ == "__main__":
    main()
