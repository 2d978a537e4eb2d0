"""Headless Chromium (Debian package chromium) driven with the Chrome DevTools
protocol over --remote-debugging-pipe (JSON messages ended by NUL on file
descriptors 3 and 4), so no websocket client is needed; and a small PNG
reader for its screenshots."""
import base64
import fcntl
import json
import os
import select
import shutil
import struct
import subprocess
import time
import zlib

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--remote-debugging-pipe"]


def chromium():
    return shutil.which("chromium") or shutil.which("chromium-browser")


class BrowserError(Exception):
    pass


class Browser:
    def __init__(self, user_data_dir, width=1280, height=800, timeout=30):
        self.width, self.height, self.timeout = width, height, timeout
        to_browser_r, to_browser_w = os.pipe()
        from_browser_r, from_browser_w = os.pipe()
        # the child's ends go to descriptors 3 and 4: first move them out of
        # the way (they may be 3 or 4 themselves), close-on-exec
        child_r = fcntl.fcntl(to_browser_r, fcntl.F_DUPFD_CLOEXEC, 10)
        child_w = fcntl.fcntl(from_browser_w, fcntl.F_DUPFD_CLOEXEC, 10)
        os.close(to_browser_r)
        os.close(from_browser_w)

        def in_child():
            os.dup2(child_r, 3)   # dup2 clears close-on-exec
            os.dup2(child_w, 4)

        self.stderr_path = os.path.join(user_data_dir, "chromium.stderr")
        with open(self.stderr_path, "w") as stderr:
            self.proc = subprocess.Popen(
                [chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={user_data_dir}",
                 f"--window-size={width},{height}", "about:blank"],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=stderr,
                close_fds=False, preexec_fn=in_child)
        os.close(child_r)
        os.close(child_w)
        self._out = to_browser_w
        self._in = from_browser_r
        self._buffer = b""
        self._id = 0

    def close(self):
        for fd in (self._out, self._in):
            try:
                os.close(fd)
            except OSError:
                pass
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def _receive(self, deadline):
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._in], [], [], left)[0]:
                raise BrowserError("no answer from chromium in time")
            chunk = os.read(self._in, 1 << 20)
            if not chunk:
                raise BrowserError("chromium closed the pipe: " + open(self.stderr_path).read()[-2000:])
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method, session=None, **params):
        self._id += 1
        message = {"id": self._id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self._out, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            answer = self._receive(deadline)
            if answer.get("id") == self._id:
                if "error" in answer:
                    raise BrowserError(f"{method}: {answer['error']}")
                return answer["result"]

    def new_page(self, url):
        """A fresh tab (its own document) showing url; returns a Page."""
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        self.call("Emulation.setDeviceMetricsOverride", session=session, width=self.width,
                  height=self.height, deviceScaleFactor=1, mobile=False)
        self.call("Page.navigate", session=session, url=url)
        return Page(self, session)


class Page:
    def __init__(self, browser, session):
        self.browser, self.session = browser, session

    def evaluate(self, expression):
        result = self.browser.call("Runtime.evaluate", session=self.session, expression=expression,
                                   returnByValue=True)
        if "exceptionDetails" in result:
            raise BrowserError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def text(self):
        return self.evaluate("document.body ? document.body.innerText : ''") or ""

    def wait_for(self, predicate, timeout=30, what="the page"):
        deadline = time.monotonic() + timeout
        while True:
            value = predicate()
            if value:
                return value
            if time.monotonic() > deadline:
                raise BrowserError(f"timed out waiting for {what}; page text: {self.text()[:1000]!r}")
            time.sleep(0.2)

    def move_mouse(self, x, y):
        self.browser.call("Input.dispatchMouseEvent", session=self.session, type="mouseMoved", x=x, y=y)

    def click(self, x, y):
        for kind in ("mousePressed", "mouseReleased"):
            self.browser.call("Input.dispatchMouseEvent", session=self.session, type=kind, x=x, y=y,
                              button="left", clickCount=1)

    def screenshot(self, path, max_rows=None):
        data = self.browser.call("Page.captureScreenshot", session=self.session, format="png")["data"]
        png = base64.b64decode(data)
        with open(path, "wb") as stream:
            stream.write(png)
        return read_png(png, max_rows)


def read_png(data, max_rows=None):
    """(width, height, rows) of an 8-bit RGB or RGBA, non-interlaced PNG;
    rows[y][x] is an (r, g, b) tuple, for the first max_rows rows (all by
    default)."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG file")
    pos, idat = 8, b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or colour not in (2, 6) or interlace:
                raise ValueError(f"unsupported PNG (depth {depth}, colour type {colour}, interlace {interlace})")
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height if max_rows is None else min(height, max_rows)):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            up_left = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - up_left
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - up_left)
                predictor = left if pa <= pb and pa <= pc else up if pb <= pc else up_left
                line[i] = (line[i] + predictor) & 0xFF
        rows.append([tuple(line[x * channels:x * channels + 3]) for x in range(width)])
        previous = line
    return width, height, rows
