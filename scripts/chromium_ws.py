#!/usr/bin/env python3
"""A WebSocket conversation held by headless Chromium's own `WebSocket`, from a page, for
Tapedeck's tests.

    chromium_ws.py CHROMIUM URL [--page URL] [--browser-flag FLAG]... STEP...

Starts the browser with a fresh profile and drives it in real time over the DevTools protocol
(--remote-debugging-pipe: JSON messages ended by NUL on file descriptors 3 and 4), so the page's
socket lives as long as the conversation needs; `--dump-dom` would not wait for it. The page runs
the steps of `ws_calls.py` (recv, send:TEXT, bin:HEX, close:CODE:WHY) and the script prints what
the page heard, one line per message, and last how the connection closed. The page is
about:blank, or the one --page names (loaded first: a WebSocket to the same https origin may then
ride its HTTP/2 connection, RFC 8441). The browser gets only
the pipe, a fresh profile and the flags given (the tests give headless, and no network of its own).
"""
import argparse
import fcntl
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

# The page's side: runs the steps, returns the lines. Each wait gives up after 10 s.
CONVERSATION = r"""
(async (url, steps) => {
  const lines = [];
  const heard = [];
  let wake = null;
  const hear = (line) => { heard.push(line); if (wake) { wake(); wake = null; } };
  const next = async () => {
    if (heard.length === 0) {
      await new Promise((resolve) => { wake = resolve; setTimeout(resolve, 10000); });
    }
    return heard.length ? heard.shift() : "timeout";
  };
  const hex = (buffer) => Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, "0")).join("");
  const socket = new WebSocket(url);
  socket.binaryType = "arraybuffer";
  socket.onmessage = (event) => hear(typeof event.data === "string" ? "text " + event.data : "binary " + hex(event.data));
  socket.onclose = (event) => hear("closed " + event.code + " " + event.reason);
  await new Promise((resolve) => { socket.onopen = resolve; socket.addEventListener("close", resolve); });
  for (const step of steps) {
    if (socket.readyState !== WebSocket.OPEN) break;
    const [kind, ...rest] = step.split(":");
    const argument = rest.join(":");
    if (kind === "recv") {
      lines.push(await next());
    } else if (kind === "send") {
      socket.send(argument);
    } else if (kind === "bin") {
      socket.send(new Uint8Array(argument.match(/../g).map((pair) => parseInt(pair, 16))));
    } else if (kind === "close") {
      const [code, ...reason] = rest;
      socket.close(Number(code), reason.join(":"));
    }
  }
  if (socket.readyState === WebSocket.OPEN) socket.close(1000);
  while (!(lines.length && lines[lines.length - 1].startsWith("closed "))) {
    const line = await next();
    if (line.startsWith("text ") || line.startsWith("binary ")) continue;  // left unread by the steps
    lines.push(line);
  }
  return lines.join("\n");
})
"""


class Browser:
    """Chromium with its DevTools pipe, one command at a time."""

    def __init__(self, chromium, flags):
        self.profile = tempfile.mkdtemp(prefix="tapedeck-chromium-")
        to_browser_read, self.to_browser = os.pipe()
        self.from_browser, from_browser_write = os.pipe()

        def pipe_on_3_and_4():
            # Moved above 100 first, so neither end lands on the other's number.
            read_end = fcntl.fcntl(to_browser_read, fcntl.F_DUPFD, 100)
            write_end = fcntl.fcntl(from_browser_write, fcntl.F_DUPFD, 100)
            os.dup2(read_end, 3)
            os.dup2(write_end, 4)

        self.process = subprocess.Popen(
            [chromium, "--remote-debugging-pipe", "--user-data-dir=" + self.profile] + flags + ["about:blank"],
            preexec_fn=pipe_on_3_and_4, pass_fds=(3, 4), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            env=dict(os.environ, HOME=self.profile))
        os.close(to_browser_read)
        os.close(from_browser_write)
        self.buffer = b""
        self.last_id = 0

    def command(self, method, params=None, session=None):
        self.last_id += 1
        message = {"id": self.last_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.to_browser, json.dumps(message).encode() + b"\0")
        while True:
            answer = self.read()
            if answer.get("id") == self.last_id:
                if "error" in answer:
                    raise RuntimeError("%s: %s" % (method, answer["error"]))
                return answer["result"]

    def read(self):
        while b"\0" not in self.buffer:
            chunk = os.read(self.from_browser, 65536)
            if not chunk:
                raise RuntimeError("chromium closed its DevTools pipe")
            self.buffer += chunk
        message, _, self.buffer = self.buffer.partition(b"\0")
        return json.loads(message)

    def close(self):
        try:
            self.command("Browser.close")
        except (RuntimeError, OSError):
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        shutil.rmtree(self.profile, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("chromium")
    parser.add_argument("url")
    parser.add_argument("--page", default="about:blank")
    parser.add_argument("--browser-flag", action="append", default=[], help="one more flag for the browser")
    parser.add_argument("--load-timeout", type=float, default=10, help="seconds the page may take to load (default 10)")
    parser.add_argument("steps", nargs="*")
    arguments = parser.parse_intermixed_args()
    browser = Browser(arguments.chromium, arguments.browser_flag)
    try:
        target = browser.command("Target.createTarget", {"url": arguments.page})["targetId"]
        session = browser.command("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        loaded = "document.readyState === 'complete' && location.href !== 'about:blank'"
        deadline = time.monotonic() + arguments.load_timeout
        while arguments.page != "about:blank" and not browser.command(
                "Runtime.evaluate", {"expression": loaded, "returnByValue": True}, session)["result"].get("value"):
            if time.monotonic() > deadline:
                # Evaluated now, the conversation would be cut off by the page's load.
                print("the page %s did not load within %g s" % (arguments.page, arguments.load_timeout), file=sys.stderr)
                sys.exit(1)
            time.sleep(0.05)
        expression = "%s(%s, %s)" % (CONVERSATION, json.dumps(arguments.url), json.dumps(arguments.steps))
        result = browser.command("Runtime.evaluate", {"expression": expression, "awaitPromise": True,
                                                      "returnByValue": True}, session)
        if "exceptionDetails" in result:
            print("page error: %s" % result["exceptionDetails"], file=sys.stderr)
            sys.exit(1)
        print(result["result"]["value"], flush=True)
    finally:
        browser.close()


main()
