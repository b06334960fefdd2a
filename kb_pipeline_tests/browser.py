"""A headless Chromium driven over the Chrome DevTools Protocol (a websocket, the `websockets`
package): navigate, evaluate, press keys, type, take screenshots. Debian's `chromium`, with the
UI test's flags."""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
import time
import urllib.request
from contextlib import ExitStack
from pathlib import Path

from websockets.sync.client import connect

from .deployment import free_port
from .test_ui import CHROMIUM_FLAGS

# DevTools' key descriptions for the keys the tests press.
_KEYS = {
    "Enter": {"key": "Enter", "code": "Enter", "windowsVirtualKeyCode": 13, "text": "\r"},
    "Escape": {"key": "Escape", "code": "Escape", "windowsVirtualKeyCode": 27},
    "Tab": {"key": "Tab", "code": "Tab", "windowsVirtualKeyCode": 9},
}


class Browser:
    def __init__(self, profile: Path, width: int = 1400, height: int = 1000) -> None:
        chromium = shutil.which("chromium")
        assert chromium, "Debian's chromium is not installed: `make test` installs it (apt-get install chromium)"
        port = free_port()
        self.process = subprocess.Popen(
            [
                chromium,
                *CHROMIUM_FLAGS,
                f"--remote-debugging-port={port}",
                f"--user-data-dir={profile}",
                f"--window-size={width},{height}",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=2) as response:
                    pages = [t for t in json.load(response) if t["type"] == "page"]
                if pages:
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline, "chromium's DevTools endpoint did not come up in 30 s"
            time.sleep(0.2)
        self._stack = ExitStack()
        self.socket = self._stack.enter_context(
            connect(pages[0]["webSocketDebuggerUrl"], max_size=None, open_timeout=10)
        )
        self._id = 0

    def close(self) -> None:
        self._stack.close()
        self.process.terminate()
        self.process.wait(timeout=20)

    def send(self, method: str, **params) -> dict:
        self._id += 1
        self.socket.send(json.dumps({"id": self._id, "method": method, "params": params}))
        while True:  # events arrive in between; the answer carries our id
            message = json.loads(self.socket.recv(timeout=30))
            if message.get("id") == self._id:
                assert "error" not in message, message
                return message["result"]

    def evaluate(self, expression: str):
        result = self.send("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        assert "exceptionDetails" not in result, result
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 15.0):
        """The expression's value once truthy (a page load, an image decoded, a fetch answered)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                value = self.evaluate(expression)
            except AssertionError:  # evaluated while the page was navigating
                value = None
            if value:
                return value
            assert time.monotonic() < deadline, f"still false after {timeout} s: {expression}"
            time.sleep(0.1)

    def goto(self, url: str) -> None:
        self.send("Page.navigate", url=url)
        self.wait_for(f"location.href === {json.dumps(url)} && document.readyState === 'complete'")

    def press(self, key: str) -> None:
        """A key press as a person's: keydown (with its character), keyup."""
        described = _KEYS.get(key) or {
            "key": key,
            "code": f"Key{key.upper()}",
            "windowsVirtualKeyCode": ord(key.upper()),
            "text": key,
        }
        self.send("Input.dispatchKeyEvent", type="keyDown", **described)
        self.send("Input.dispatchKeyEvent", type="keyUp", **{k: v for k, v in described.items() if k != "text"})

    def type(self, text: str) -> None:
        self.send("Input.insertText", text=text)

    def name_the_reviewer(self, name: str, then: str = "true") -> None:
        """The single expert's name typed at the top of a desk page and sent: wait for the page
        the server renders with it (its button says "Change", not "Set"), and `then`, a further
        condition of that page (the queue's first row selected: its script has run)."""
        self.evaluate("document.getElementById('reviewer-name').focus()")
        self.type(name)
        self.press("Enter")
        self.wait_for(
            "document.readyState === 'complete' && document.querySelector('.reviewer button').textContent === 'Change'"
            f" && ({then})"
        )

    def screenshot(self, path: Path) -> None:
        shot = self.send("Page.captureScreenshot", format="png", captureBeyondViewport=False)
        path.write_bytes(base64.b64decode(shot["data"]))
