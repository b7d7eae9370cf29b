"""The live preview (`python -m generator serve`), run as an editor runs it: it builds, serves on
localhost, remakes what an edit changes, keeps the last good site when an edit breaks the catalog,
and stops on Ctrl-C. How fast it shows an edit is measured by benchmarks/preview.py, not here.
"""

from __future__ import annotations

import json
import re
import signal
import socket
import subprocess
import sys
import threading
import time

from benchmarks.preview import fetch, free_port
from tests.conftest import ROOT

LLAMA = "models/llama-3-1-8b-instruct.yaml"


def until(check, seconds: float = 120) -> bool:
    started = time.monotonic()
    while time.monotonic() - started < seconds:
        if check():
            return True
        time.sleep(0.1)
    return False


class Serving:
    def __init__(self, content, out, port):
        self.lines: list[str] = []
        self.process = subprocess.Popen(
            [sys.executable, "-m", "generator", "serve", "--content", str(content), "--out", str(out), "--port", str(port)],
            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        threading.Thread(target=lambda: self.lines.extend(self.process.stderr), daemon=True).start()

    def said(self, text: str) -> bool:
        return any(text in line for line in self.lines)


def test_serve_builds_serves_and_remakes_what_an_edit_changes(tmp_path, content_copy):
    port = free_port()
    base = f"http://127.0.0.1:{port}/"
    serving = Serving(content_copy, tmp_path / "preview", port)
    try:
        assert until(lambda: serving.said("serving ")), "".join(serving.lines)
        page = fetch(base + "en/models/llama-3-1-8b-instruct.html")
        assert "Llama 3.1 Community License" in page
        assert "/__preview__/version" in page  # the script that reloads the page is served...
        assert "__preview__" not in (tmp_path / "preview" / "en" / "models" / "llama-3-1-8b-instruct.html").read_text()  # ...not built
        # the pages' absolute links lead to the preview, not to the site's address
        assert f'<link rel="canonical" href="{base}en/models/llama-3-1-8b-instruct.html">' in page
        version = fetch(base + "__preview__/version")

        licence = content_copy / LLAMA
        licence.write_text(licence.read_text().replace("value: Llama 3.1 Community License", "value: Llama 3.1 Licence (edited)"))
        assert until(lambda: "Llama 3.1 Licence (edited)" in fetch(base + "en/models/llama-3-1-8b-instruct.html"))
        assert "Llama 3.1 Licence (edited)" in fetch(base + "pt/models/llama-3-1-8b-instruct.html")
        assert until(lambda: fetch(base + "__preview__/version") != version)  # and the browser reloads
        assert until(lambda: serving.said("pages that list every model")), "".join(serving.lines)
        assert serving.said("and 0 of the "), "".join(serving.lines)  # none shows a licence: none is made again
        assert "Llama 3.1 Licence (edited)" in fetch(base + "api/v1/models/llama-3-1-8b-instruct.json")

        # the GPU pages: the edited model's llama.cpp row is made again (the others are the last build's)
        def context_on_the_gpu_page() -> int | None:
            rows = json.loads(fetch(base + "api/v1/gpus/rtx-4090.json"))["llama_cpp"]["models"]
            return next(row["context_tokens"] for row in rows if row["model"] == "llama-3-1-8b-instruct")
        assert context_on_the_gpu_page() == 32768
        licence.write_text(licence.read_text().replace("value: 131072", "value: 4096", 1))
        assert until(lambda: context_on_the_gpu_page() == 4096)
        # made again: the GPU pages that show the row and the fit page, not the indexes (they show no window)
        assert until(lambda: any(re.search(r"and [1-9]\d* of the \d+ pages", line) for line in serving.lines)), "".join(serving.lines)

        # a broken catalog: one line naming the file and field, and the last good pages stay served
        licence.write_text(licence.read_text().replace("value: 8030261248", "value: -5", 1))
        assert until(lambda: serving.said("llama-3-1-8b-instruct.yaml")), "".join(serving.lines)
        problem = next(line for line in serving.lines if "llama-3-1-8b-instruct.yaml" in line)
        assert "params" in problem and "Traceback" not in "".join(serving.lines)
        assert "Llama 3.1 Licence (edited)" in fetch(base + "en/models/llama-3-1-8b-instruct.html")
    finally:
        serving.process.send_signal(signal.SIGINT)
        serving.process.wait(timeout=60)
    assert serving.process.returncode == 0
    assert until(lambda: serving.said("stopped"), 5), "".join(serving.lines)


def test_a_port_in_use_is_one_line_and_a_non_zero_exit(tmp_path, content_copy):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run([sys.executable, "-m", "generator", "serve", "--content", str(content_copy),
                               "--out", str(tmp_path / "preview"), "--port", str(port)],
                              cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert lines[-1].startswith("serve: ") and f"port {port}" in lines[-1] and "Traceback" not in done.stderr
