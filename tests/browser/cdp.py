#!/usr/bin/env python3
"""Drive a page in headless Chromium through the DevTools protocol over a
pipe (--remote-debugging-pipe: no port, no websocket library, nothing to
download), for the html report's browser test and bench.

Usage: cdp.py CHROMIUM FILE STEP...
  STEP '#HASH'      navigate to file://FILE#HASH (the first one loads the page,
                    later ones only change the hash, as a user's link would),
                    then wait for data-ready="1" and one frame
  STEP '@PATH'      save a screenshot (PNG) there
  STEP 'NAME=EXPR'  evaluate EXPR in the page and print 'NAME<TAB>VALUE'
At the end it prints 'errors<TAB>N' (uncaught exceptions, console errors)
and 'requests<TAB>N' (requests for anything but the file itself), listing
each on stderr.  Exit status 2 when Chromium cannot be driven.
"""
import fcntl
import json
import os
import subprocess
import sys
import tempfile
import time


class Browser:
    def __init__(self, chromium):
        self.profile = tempfile.mkdtemp(prefix="fk-cdp.")
        r1, w1 = os.pipe()  # we write, chromium reads (its fd 3)
        r2, w2 = os.pipe()  # chromium writes (its fd 4), we read
        # 5..9 (the shell takes one digit), so that moving them onto 3 and 4 cannot close one
        hi = [fcntl.fcntl(fd, fcntl.F_DUPFD, 5) for fd in (r1, w2)]
        os.close(r1)
        os.close(w2)
        r1, w2 = hi

        # chromium expects the pipe on fds 3 and 4: a shell puts it there
        self.proc = subprocess.Popen(
            ["sh", "-c", 'exec "$@" 3<&%d 4>&%d %d<&- %d>&-' % (r1, w2, r1, w2), "sh", chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
             "--no-first-run", "--disable-background-networking", "--disable-component-update",
             "--disable-sync", "--remote-debugging-pipe", "--window-size=1280,900",
             "--user-data-dir=" + self.profile, "about:blank"],
            pass_fds=(r1, w2), stdout=subprocess.DEVNULL,
            stderr=open(os.environ["FK_CDP_LOG"], "w") if os.environ.get("FK_CDP_LOG") else subprocess.DEVNULL)
        os.close(r1)
        os.close(w2)
        self.w = os.fdopen(w1, "wb", buffering=0)
        self.r = os.fdopen(r2, "rb", buffering=0)
        self.buf = b""
        self.next_id = 0
        self.session = None
        self.events = []

    def _read(self):
        while b"\0" not in self.buf:
            chunk = self.r.read(1 << 16)
            if not chunk:
                raise RuntimeError("chromium closed the pipe")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, params=None, session=True):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        self.w.write(json.dumps(msg).encode() + b"\0")
        while True:
            m = self._read()
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            if "method" in m:
                self.events.append(m)

    def evaluate(self, expr, await_promise=False):
        r = self.call("Runtime.evaluate", {"expression": expr, "returnByValue": True,
                                           "awaitPromise": await_promise})
        if "exceptionDetails" in r:
            return "<exception: %s>" % r["exceptionDetails"].get("exception", {}).get(
                "description", r["exceptionDetails"].get("text"))
        return r.get("result", {}).get("value")

    def close(self):
        try:
            self.call("Browser.close", session=False)
        except Exception:
            pass
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        subprocess.run(["rm", "-rf", self.profile])


def main():
    chromium, path = sys.argv[1], os.path.abspath(sys.argv[2])
    url = "file://" + path
    b = Browser(chromium)
    loaded = False
    try:
        t = b.call("Target.createTarget", {"url": "about:blank"}, session=False)
        s = b.call("Target.attachToTarget", {"targetId": t["targetId"], "flatten": True},
                   session=False)
        b.session = s["sessionId"]
        for m in ("Runtime.enable", "Page.enable", "Network.enable", "Log.enable"):
            b.call(m)
        for step in sys.argv[3:]:
            if step.startswith("#"):
                t0 = time.monotonic()
                b.call("Page.navigate", {"url": url + step})
                if not loaded:
                    loaded = True
                while b.evaluate("document.documentElement.getAttribute('data-ready')") != "1":
                    if time.monotonic() - t0 > 60:
                        raise RuntimeError("the page never set data-ready")
                    time.sleep(0.02)
                b.evaluate("new Promise(function (r) { requestAnimationFrame(function () "
                           "{ setTimeout(r, 0); }); })", True)
            elif step.startswith("@"):  # @PATH: a PNG screenshot, for a person to look at
                import base64
                with open(step[1:], "wb") as f:
                    f.write(base64.b64decode(b.call("Page.captureScreenshot")["data"]))
            else:
                name, expr = step.split("=", 1)
                v = b.evaluate(expr, True)  # a promise is awaited
                print("%s\t%s" % (name, v if isinstance(v, str) else json.dumps(v)))
                sys.stdout.flush()
        errors = requests = 0
        for e in b.events:
            m, p = e["method"], e.get("params", {})
            if m == "Runtime.exceptionThrown":
                errors += 1
                print("page error: %s" % p.get("exceptionDetails", {}).get("exception", {}).get(
                    "description"), file=sys.stderr)
            elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                errors += 1
                print("console error: %s" % p["entry"].get("text"), file=sys.stderr)
            elif m == "Runtime.consoleAPICalled" and p.get("type") == "error":
                errors += 1
                print("console.error: %s" % p.get("args"), file=sys.stderr)
            elif m == "Network.requestWillBeSent":
                u = p.get("request", {}).get("url", "")
                if u.split("#")[0] != url and u != "about:blank":
                    requests += 1
                    print("request: %s" % u, file=sys.stderr)
        print("errors\t%d" % errors)
        print("requests\t%d" % requests)
    except Exception as e:
        print("cdp.py: %s" % e, file=sys.stderr)
        b.close()
        sys.exit(2)
    b.close()


if __name__ == "__main__":
    main()
