"""A small Chrome DevTools Protocol driver over --remote-debugging-pipe (Python stdlib only).

Chromium reads commands from fd 3 and writes replies and events to fd 4, each a JSON text ended by a
NUL byte. The browser runs headless with the network off: every request must be for a file: or
data: URL (Browser.requests lists them), and a proxy that does not exist stops anything else.
"""
import base64
import fcntl
import json
import os
import select
import subprocess
import tempfile
import time


class CdpError(RuntimeError):
    pass


class Browser:
    def __init__(self, chromium='/usr/bin/chromium', width=1600, height=1000, timeout=60.0):
        self.timeout = timeout
        self.profile = tempfile.TemporaryDirectory(prefix='nnef-draw-chromium-')
        cmd_r, self._cmd_w = os.pipe()
        self._ev_r, ev_w = os.pipe()
        # Chromium's ends at 5 or above (so that none is fd 3 or 4 already; dash names fds up to 9).
        cmd_r, ev_w = [self._high(fd) for fd in (cmd_r, ev_w)]

        # The shell puts the pipe's ends on fds 3 and 4 (subprocess would close them after a preexec_fn).
        args = ['/bin/sh', '-c', 'exec "$0" "$@" 3<&%d 4>&%d %d<&- %d>&-' % (cmd_r, ev_w, cmd_r, ev_w), chromium, '--headless=new', '--no-sandbox', '--disable-gpu', '--remote-debugging-pipe',
                '--proxy-server=127.0.0.1:9', '--proxy-bypass-list=<-loopback>',
                '--host-resolver-rules=MAP * ~NOTFOUND', '--no-first-run', '--no-default-browser-check',
                '--disable-extensions', '--disable-background-networking', '--disable-component-update',
                '--disable-sync', '--metrics-recording-only', '--mute-audio', '--hide-scrollbars',
                '--window-size=%d,%d' % (width, height), '--user-data-dir=' + self.profile.name, 'about:blank']
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, pass_fds=(cmd_r, ev_w))
        os.close(cmd_r)
        os.close(ev_w)
        self._buf = b''
        self._next = 0
        self.events = []
        self.requests = []
        self.exceptions = []
        self.console_errors = []
        self.session = None
        targets = self.call('Target.getTargets')['targetInfos']
        page = [t for t in targets if t['type'] == 'page']
        if not page:
            page = [{'targetId': self.call('Target.createTarget', url='about:blank')['targetId']}]
        self.session = self.call('Target.attachToTarget', targetId=page[0]['targetId'], flatten=True)['sessionId']
        for domain in ('Page', 'Runtime', 'Network', 'Log'):
            self.call(domain + '.enable')
        self.call('Emulation.setDeviceMetricsOverride', width=width, height=height, deviceScaleFactor=1, mobile=False)

    @staticmethod
    def _high(fd):
        high = fcntl.fcntl(fd, fcntl.F_DUPFD, 5)
        os.close(fd)
        return high

    def close(self):
        try:
            self.call('Browser.close', session=False)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._cmd_w)
        os.close(self._ev_r)
        self.profile.cleanup()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _read_message(self, deadline):
        while b'\0' not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise CdpError('no reply from chromium within %.0f s' % self.timeout)
            ready, _, _ = select.select([self._ev_r], [], [], left)
            if not ready:
                continue
            chunk = os.read(self._ev_r, 1 << 20)
            if not chunk:
                err = self.proc.stderr.read().decode(errors='replace') if self.proc.poll() is not None else ''
                raise CdpError('chromium closed the pipe (exit %s): %s' % (self.proc.poll(), err[-2000:]))
            self._buf += chunk
        msg, self._buf = self._buf.split(b'\0', 1)
        return json.loads(msg)

    def _event(self, m):
        method, p = m.get('method'), m.get('params', {})
        if method == 'Network.requestWillBeSent':
            self.requests.append(p['request']['url'])
        elif method == 'Runtime.exceptionThrown':
            d = p['exceptionDetails']
            self.exceptions.append(d.get('exception', {}).get('description') or d.get('text'))
        elif method == 'Runtime.consoleAPICalled' and p.get('type') == 'error':
            self.console_errors.append(' '.join(str(a.get('value', a.get('description'))) for a in p.get('args', [])))
        elif method == 'Log.entryAdded' and p['entry'].get('level') == 'error':
            self.console_errors.append(p['entry'].get('text'))
        self.events.append(m)

    def call(self, method, session=True, **params):
        self._next += 1
        msg = {'id': self._next, 'method': method, 'params': params}
        if session and self.session:
            msg['sessionId'] = self.session
        os.write(self._cmd_w, json.dumps(msg).encode() + b'\0')
        deadline = time.monotonic() + self.timeout
        while True:
            m = self._read_message(deadline)
            if m.get('id') == self._next:
                if 'error' in m:
                    raise CdpError('%s: %s' % (method, m['error'].get('message')))
                return m.get('result', {})
            self._event(m)

    def wait_event(self, method, timeout=None):
        for i, m in enumerate(self.events):
            if m.get('method') == method:
                del self.events[i]
                return m
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            m = self._read_message(deadline)
            self._event(m)
            if m.get('method') == method:
                self.events.remove(m)
                return m

    def evaluate(self, expression):
        r = self.call('Runtime.evaluate', expression=expression, returnByValue=True, awaitPromise=True)
        if 'exceptionDetails' in r:
            d = r['exceptionDetails']
            raise CdpError('evaluate %r: %s' % (expression[:80], d.get('exception', {}).get('description') or d.get('text')))
        return r['result'].get('value')

    def open(self, url):
        self.events.clear()
        self.call('Page.navigate', url=url)
        self.wait_event('Page.loadEventFired')

    def wait_for(self, expression, timeout=None):
        deadline = time.monotonic() + (timeout or self.timeout)
        while time.monotonic() < deadline:
            v = self.evaluate(expression)
            if v:
                return v
            time.sleep(0.05)
        raise CdpError('timed out waiting for ' + expression)

    def click(self, x, y):
        for kind in ('mouseMoved', 'mousePressed', 'mouseReleased'):
            self.call('Input.dispatchMouseEvent', type=kind, x=x, y=y, button='left', clickCount=1)

    def type_text(self, text):
        self.call('Input.insertText', text=text)

    def press(self, key, code=None, key_code=13):
        for kind in ('keyDown', 'keyUp'):
            self.call('Input.dispatchKeyEvent', type=kind, key=key, code=code or key,
                      windowsVirtualKeyCode=key_code, nativeVirtualKeyCode=key_code)

    def screenshot(self, path):
        data = self.call('Page.captureScreenshot', format='png')['data']
        with open(path, 'wb') as f:
            f.write(base64.b64decode(data))
