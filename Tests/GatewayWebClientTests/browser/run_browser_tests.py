"""Browser tests: two lane pages and the fleet console in headless Chromium (Selenium)
against a real reader-gateway and reader-sim, over the WebSocket binding.

    python run_browser_tests.py --bin-dir "$(swift build --show-bin-path)" --artifacts test-artifacts/browser

The lane pages (pages/lane.html, written against docs/client.md's API only) are served by a
small static server whose origin is on the gateway's allow-list; the same page from a second
server (another origin) is refused with ORIGIN_NOT_ALLOWED, once. The page imports the library
from the gateway's own URL. At the end, docs/client.md's quickstart (its two files, taken from
the page as written) runs in two browsers, and a Stripe Terminal JS page ported by changing its
import alone (pages/terminal-js-port.html beside terminal-js-original.html) runs its flow. The fleet console
(served by the gateway at /console/, signed in with the account's secret key) is open in a
third browser and must show each takeover within 1 s, without a reload. Every wait is a
WebDriverWait on a DOM condition (or a line the gateway or simulator prints), never a sleep.
The console re-renders its navigation and its table on every change, so the console is read
and clicked through one script each time (Console.texts, Console.click): an element handle
kept between two WebDriver calls could be replaced in between.
Screenshots of each step go to --artifacts (described in README.md beside this file).
"""

import argparse
import base64
import difflib
import hashlib
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "live"))
from run_live_tests import Child  # noqa: E402

from selenium import webdriver  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

OFFLINE_BOUND_SECONDS = 2
# The console shows each takeover within this bound (the product's promise, issue #16).
CONSOLE_TAKEOVER_SECONDS = 1.0


# The gateway address the pages are written with (docs/client.md's `make run` default),
# replaced by the test gateway's when a page is served.
WRITTEN_GATEWAY = "127.0.0.1:7443"


def serve_pages(token, state):
    """A static server for pages/ on 127.0.0.1 (a free port). POST /token answers `token()`
    as text (lane.html); the Terminal JS page's backend: POST /connection_token answers
    {secret} for the quickstart's location, /create_payment_intent a made-up intent,
    /capture_payment_intent {captured} (the capture stays with the payment processor)."""

    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=os.path.join(HERE, "pages"), **kwargs)

        def do_GET(self):
            path = self.path.split("?")[0].lstrip("/")
            if not path.endswith(".html"):
                return super().do_GET()
            with open(os.path.join(HERE, "pages", path), encoding="utf-8") as page:
                self.answer(page.read().replace(WRITTEN_GATEWAY, state["gateway"]), "text/html; charset=utf-8")

        def do_POST(self):
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}") if length else {}
            if self.path == "/token":
                self.answer(token(state["location"]), "text/plain")
            elif self.path == "/connection_token":
                self.answer(json.dumps({"secret": token(state["quick_location"])}), "application/json")
            elif self.path == "/create_payment_intent":
                state["intents"] = state.get("intents", 0) + 1
                intent = f"pi_port{state['intents']}"
                self.answer(json.dumps({"client_secret": f"{intent}_secret_x{body.get('amount')}"}), "application/json")
            elif self.path == "/capture_payment_intent":
                state["captured"] = body.get("payment_intent_id")
                self.answer(json.dumps({"captured": body.get("payment_intent_id")}), "application/json")
            else:
                self.send_error(404)

        def answer(self, text, content_type):
            data = text.encode()
            self.send_response(200)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def spki_hash(certificate_path):
    """The base64 SHA-256 of the certificate's public key, for --ignore-certificate-errors-spki-list."""
    public_key = subprocess.run(["openssl", "x509", "-in", certificate_path, "-pubkey", "-noout"], capture_output=True, check=True).stdout
    der = subprocess.run(["openssl", "pkey", "-pubin", "-outform", "der"], input=public_key, capture_output=True, check=True).stdout
    return base64.b64encode(hashlib.sha256(der).digest()).decode()


def browser(profile, spki, size="900,700"):
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", f"--window-size={size}",
                     f"--user-data-dir={profile}", f"--ignore-certificate-errors-spki-list={spki}"]:
        options.add_argument(argument)
    # The page's console (WebSocket failures, failed loads) is read back by console_lines().
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = webdriver.ChromeService(executable_path=shutil.which("chromedriver") or "/usr/bin/chromedriver")
    return webdriver.Chrome(options=options, service=service)


def console_lines(driver):
    """What the page's console printed since the last call (Chromium's browser log)."""
    return [entry["message"] for entry in driver.get_log("browser")]


def docs_files():
    """The quickstart's files as docs/client.md writes them: each fenced block titled with its name."""
    with open(os.path.join(HERE, "..", "..", "..", "docs", "client.md"), encoding="utf-8") as docs:
        text = docs.read()
    files = {name: body for name, body in re.findall(r'```\w+ title="([^"]+)"\n(.*?)```', text, re.S)}
    check(set(files) >= {"quickstart.py", "quickstart.html"}, f"docs/client.md has no quickstart files: {sorted(files)}")
    return files


class Lane:
    """One lane page in its own browser."""

    def __init__(self, driver, name, artifacts):
        self.driver = driver
        self.name = name
        self.artifacts = artifacts
        self.wait = WebDriverWait(driver, 20)

    def text(self, element_id):
        return self.driver.find_element(By.ID, element_id).text

    def until_text(self, element_id, predicate, what, timeout=20):
        WebDriverWait(self.driver, timeout).until(lambda d: predicate(d.find_element(By.ID, element_id).text), f"{self.name}: {what}")
        return self.text(element_id)

    def run(self, script):
        """Starts window.lane.<script> and waits for its result (the next data-seq)."""
        seq = int(self.driver.find_element(By.ID, "result").get_attribute("data-seq"))
        self.driver.execute_script(f"window.lane.{script}")
        self.wait.until(lambda d: int(d.find_element(By.ID, "result").get_attribute("data-seq")) > seq, f"{self.name}: no result for {script}")
        return self.text("result")

    def start(self, script):
        """Starts window.lane.<script> without waiting for its end."""
        self.driver.execute_script(f"window.lane.{script}")

    def screenshot(self, name):
        self.driver.save_screenshot(os.path.join(self.artifacts, f"{name}.png"))


class Console:
    """The fleet console in its own browser, signed in with the account's secret key."""

    def __init__(self, driver, url, artifacts):
        self.driver = driver
        self.url = url
        self.artifacts = artifacts

    def open(self):
        self.driver.get(self.url)
        WebDriverWait(self.driver, 20).until(
            lambda d: d.find_element(By.ID, "signin").is_displayed() or d.find_element(By.ID, "fleet").is_displayed(), "the console page loads")

    def sign_in(self, key):
        self.driver.find_element(By.ID, "key").send_keys(key)
        self.driver.find_element(By.CSS_SELECTOR, "#signin-form button").click()
        WebDriverWait(self.driver, 20).until(lambda d: d.find_element(By.ID, "live").text == "live", "the console goes live")
        # A reload would drop this marker; it is checked at the end.
        self.driver.execute_script("window.consoleNeverReloaded = true")

    def texts(self, css):
        """The rendered text of every element matching css, read in one script (one DOM state)."""
        return self.driver.execute_script(
            "return Array.from(document.querySelectorAll(arguments[0]), (e) => e.innerText.trim())", css)

    def click(self, css, containing=""):
        """Clicks the first element matching css whose text contains `containing`, found and
        clicked in one script; waits until there is one."""
        WebDriverWait(self.driver, 10).until(lambda d: d.execute_script(
            "const e = Array.from(document.querySelectorAll(arguments[0])).find((e) => e.innerText.includes(arguments[1]));"
            "if (e) { e.click(); return true; } return false;", css, containing), f"console: nothing to click at {css} {containing!r}")

    def cell(self, reader_id, name):
        cells = self.texts(f'tr[data-reader="{reader_id}"] td.{name}')
        return cells[0] if cells else None

    def until_cell(self, reader_id, name, predicate, what, timeout):
        WebDriverWait(self.driver, timeout, poll_frequency=0.02).until(lambda d: predicate(self.cell(reader_id, name)), f"console: {what} (within {timeout}s)")
        return self.cell(reader_id, name)

    def takeover_shown(self, reader_id, holder, what):
        started = time.time()
        self.until_cell(reader_id, "holder", lambda text: text == holder, what, CONSOLE_TAKEOVER_SECONDS)
        print(f"browser: console showed '{holder}' {time.time() - started:.3f}s after the connect answered")

    def never_reloaded(self):
        return self.driver.execute_script("return window.consoleNeverReloaded === true")

    def screenshot(self, name):
        self.driver.save_screenshot(os.path.join(self.artifacts, f"{name}.png"))


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def quickstart(args, directory, children, drivers, state, spki, port, ca, secret, allowed, ctl):
    """docs/client.md's quickstart as written (the gateway's address changed to this run's):
    its backend mints tokens with gatewayctl, its page discovers, connects, collects and
    processes, and a second tab takes the reader; then the ported Terminal JS page's flow."""
    location = ctl("locations", "create", "Quickstart store").splitlines()[-1].strip()
    state["quick_location"] = location
    reader = Child("reader-sim-quickstart", [
        os.path.join(args.bin_dir, "reader-sim"), "--gateway", f"127.0.0.1:{port}", "--ca", ca,
        "--serial", "WSQ-1", "--heartbeat-interval", "400ms", "--card", "manual",
    ], directory, stdin=True)
    children.append(reader)
    code = reader.wait_for(r"registration_code serial=WSQ-1 code=(\S+)").group(1)
    ctl("readers", "register", "--code", code, "--label", "Counter Q", "--location", location)
    reader.wait_for(r"online serial=WSQ-1")

    folder = os.path.join(directory, "quickstart")
    os.makedirs(folder)
    for name, body in docs_files().items():
        with open(os.path.join(folder, name), "w", encoding="utf-8") as file:
            file.write(body.replace(WRITTEN_GATEWAY, f"127.0.0.1:{port}"))
    backend = Child("quickstart.py", [sys.executable, "quickstart.py"], directory, cwd=folder, env={
        **os.environ, "PORT": "0", "LOCATION": location, "PATH": f"{args.bin_dir}:{os.environ['PATH']}",
        "GATEWAYCTL_GATEWAY": f"127.0.0.1:{port}", "GATEWAYCTL_CA": ca, "GATEWAYCTL_SECRET_KEY": secret,
    })
    children.append(backend)
    url = backend.wait_for(r"serving (http://localhost:\d+/quickstart\.html)").group(1)

    def tab(name, query=""):
        driver = browser(os.path.join(directory, f"profile-{name}"), spki)
        drivers.append(driver)
        driver.get(url + query)
        return driver

    def click_and_wait(driver, button, expected, what, timeout=20):
        count = len(driver.find_elements(By.CSS_SELECTOR, "#log li"))
        WebDriverWait(driver, 10).until(lambda d: d.find_element(By.ID, button).is_enabled(), f"quickstart: {button} enabled")
        driver.find_element(By.ID, button).click()
        return wait_line(driver, count, expected, what, timeout)

    def wait_line(driver, count, expected, what, timeout=20):
        WebDriverWait(driver, timeout).until(lambda d: any(re.search(expected, line.text) for line in d.find_elements(By.CSS_SELECTOR, "#log li")[count:])
                                             or any("failed" in line.text for line in d.find_elements(By.CSS_SELECTOR, "#log li")[count:]),
                                             f"quickstart: {what}")
        lines = [line.text for line in driver.find_elements(By.CSS_SELECTOR, "#log li")[count:]]
        check(any(re.search(expected, line) for line in lines), f"quickstart: {what}: {lines}")
        return lines

    first = tab("quickstart-1")
    click_and_wait(first, "discover", r"^discoverReaders: Counter Q WSQ-1 online$", "discovers the reader")
    click_and_wait(first, "connect", r"^connectReader: connected to Counter Q$", "connects")
    check(first.find_element(By.ID, "status").text == "connected", "quickstart: the status line")
    # A declined card: the page's error carries CARD_DECLINED and Terminal JS's decline_code.
    count = len(first.find_elements(By.CSS_SELECTOR, "#log li"))
    first.find_element(By.ID, "collect").click()
    reader.wait_for(r"command serial=WSQ-1 kind=collect .*amount=495 currency=usd", timeout=20)
    reader.wait_for(r"waiting_for_card serial=WSQ-1", timeout=20)
    reader.send("decline WSQ-1 insufficient_funds")
    lines = wait_line(first, count, r'^collectPaymentMethod failed: .*"reason":"CARD_DECLINED".*"decline_code":"insufficient_funds"', "a declined card is told with its decline code")
    check(len(lines) == 1 and '"code":"FAILED_PRECONDITION"' in lines[0], f"quickstart: the decline: {lines}")
    count = len(first.find_elements(By.CSS_SELECTOR, "#log li"))
    first.find_element(By.ID, "collect").click()
    reader.wait_for(r"command serial=WSQ-1 kind=collect .*amount=495 currency=usd", timeout=20)
    reader.wait_for(r"waiting_for_card serial=WSQ-1", timeout=20)
    reader.send("present WSQ-1 visa 4242")
    lines = wait_line(first, count, r"^processPayment: pi_\w+ succeeded$", "processes the payment")
    check(lines[0] == "collectPaymentMethod: requires_confirmation visa", f"quickstart: {lines}")
    first.save_screenshot(os.path.join(args.artifacts, "12-quickstart-payment-processed.png"))
    second = tab("quickstart-2", "?lane=Lane%202")
    click_and_wait(second, "discover", r"^discoverReaders: Counter Q", "the second tab discovers")
    count = len(first.find_elements(By.CSS_SELECTOR, "#log li"))
    click_and_wait(second, "connect", r"^connectReader: connected to Counter Q$", "the second tab takes the reader")
    wait_line(first, count, r"^onUnexpectedReaderDisconnect: taken by Lane 2$", "the first tab hears who took the reader", timeout=5)
    first.save_screenshot(os.path.join(args.artifacts, "13-quickstart-taken-by-lane-2.png"))
    print("browser: docs/client.md's quickstart ran as written: discover, connect, a declined card told with its decline code, collect, process, a takeover told")

    # A Terminal JS page, ported by its import alone, runs its flow unchanged.
    with open(os.path.join(HERE, "pages", "terminal-js-original.html"), encoding="utf-8") as original, \
            open(os.path.join(HERE, "pages", "terminal-js-port.html"), encoding="utf-8") as ported:
        changed = [line for line in difflib.ndiff(original.readlines(), ported.readlines()) if line[:2] in ("- ", "+ ")]
    check(changed == ['-   <script src="https://js.stripe.com/terminal/v1/"></script>\n',
                      '+     import { ReaderGateway as StripeTerminal } from "https://127.0.0.1:7443/readergateway/v1/js/readergateway.js";\n'],
          f"the port changes more than the import: {changed}")
    driver = browser(os.path.join(directory, "profile-port"), spki)
    drivers.append(driver)
    driver.get(f"http://127.0.0.1:{allowed.server_address[1]}/terminal-js-port.html?location={location}")
    log = lambda: driver.find_element(By.ID, "log").text
    for button, expected in [("discover-button", "terminal.discoverReaders: "), ("connect-button", "Connected to reader: : \"Counter Q\"")]:
        driver.find_element(By.ID, button).click()
        WebDriverWait(driver, 20).until(lambda d: expected in log() or "Failed" in log(), f"port: {button}")
        check(expected in log(), f"port: {button}: {log()}")
    driver.find_element(By.ID, "collect-button").click()
    reader.wait_for(r"command serial=WSQ-1 kind=collect .*payment_intent|command serial=WSQ-1 kind=collect", timeout=20)
    reader.wait_for(r"waiting_for_card serial=WSQ-1", timeout=20)
    reader.send("present WSQ-1 mastercard 4444")
    WebDriverWait(driver, 20).until(lambda d: "server.capture" in log() or "Failed" in log(), "port: the payment is processed and captured")
    processed = json.loads(re.search(r"^terminal\.processPayment: (.*)$", log(), re.M).group(1))
    check(processed["object"] == "payment_intent" and processed["status"] == "succeeded" and processed["id"] == state["captured"]
          and processed["sdk_payment_details"]["card_present"]["last4"] == "4444", f"port: processPayment answered {processed}")
    driver.save_screenshot(os.path.join(args.artifacts, "14-terminal-js-port-processed.png"))
    print(f"browser: the Terminal JS page ran with its import changed: {processed['id']} {processed['status']}, captured")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin-dir", required=True)
    parser.add_argument("--artifacts", required=True)
    args = parser.parse_args()
    os.makedirs(args.artifacts, exist_ok=True)
    directory = tempfile.mkdtemp(prefix="rg-browser-")
    os.chmod(directory, 0o777)
    children, drivers, servers = [], [], []
    ok = False
    try:
        state = {}

        def token(location):
            output = subprocess.run(
                [os.path.join(args.bin_dir, "gatewayctl"), "--json", "tokens", "create", "--location", location],
                capture_output=True, text=True, check=True, env=state["ctl_env"],
            ).stdout
            return json.loads(output)["secret"]

        allowed = serve_pages(token, state)
        foreign = serve_pages(token, state)
        servers += [allowed, foreign]
        allowed_origin = f"http://127.0.0.1:{allowed.server_address[1]}"
        foreign_origin = f"http://127.0.0.1:{foreign.server_address[1]}"
        # The lane pages' origin, and any localhost port for the quickstart (as `make run` allows).
        gateway = Child("reader-gateway", [
            os.path.join(args.bin_dir, "reader-gateway"), "--data-dir", os.path.join(directory, "data"),
            "--port", "0", "--internal-port", "0", "--websocket-origins", f"{allowed_origin},http://localhost:*",
            "--reader-offline-bound", f"{OFFLINE_BOUND_SECONDS}s",
        ], directory)
        children.append(gateway)
        port = gateway.wait_for(r"gateway listening\"? address=127\.0\.0\.1:(\d+)").group(1)
        state["gateway"] = f"127.0.0.1:{port}"
        secret = gateway.wait_for(r"secret key: (sk_\S+)").group(1)
        ca = os.path.join(directory, "data", "tls", "ca.pem")
        state["ctl_env"] = {**os.environ, "GATEWAYCTL_GATEWAY": f"127.0.0.1:{port}", "GATEWAYCTL_CA": ca, "GATEWAYCTL_SECRET_KEY": secret}
        ctl = lambda *arguments: subprocess.run([os.path.join(args.bin_dir, "gatewayctl"), *arguments], capture_output=True, text=True, check=True, env=state["ctl_env"]).stdout.strip()
        state["location"] = ctl("locations", "create", "Browser store").splitlines()[-1].strip()
        # --card manual: a collect waits for a `present` line (the customer's tap), so lane B's
        # collect keeps the reader mid-transaction for cells 3 and 4.
        simulator = Child("reader-sim", [
            os.path.join(args.bin_dir, "reader-sim"), "--gateway", f"127.0.0.1:{port}", "--ca", ca,
            "--serial", "WSB-1", "--heartbeat-interval", "400ms", "--card", "manual",
        ], directory, stdin=True)
        children.append(simulator)
        code = simulator.wait_for(r"registration_code serial=WSB-1 code=(\S+)").group(1)
        ctl("readers", "register", "--code", code, "--label", "Counter 1", "--location", state["location"])
        simulator.wait_for(r"online serial=WSB-1")

        spki = spki_hash(os.path.join(directory, "data", "tls", "server.pem"))
        reader_id = json.loads(ctl("--json", "readers", "list"))[0]["id"]

        # gatewayctl watch, as text and as JSON lines, beside the console: the same changes.
        ctl_flags = [os.path.join(args.bin_dir, "gatewayctl"), "--gateway", f"127.0.0.1:{port}", "--ca", ca, "--secret-key", secret]
        watch_text = Child("gatewayctl-watch", ctl_flags + ["watch"], directory)
        watch_json = Child("gatewayctl-watch-json", ctl_flags + ["--json", "watch", "--location", state["location"]], directory)
        children += [watch_text, watch_json]
        watch_text.wait_for(rf'snapshot {reader_id} "Counter 1" serial=WSB-1 online \S+ holder=-', timeout=30)
        watch_text.wait_for(r"snapshot complete; watching", timeout=30)
        first = json.loads(watch_json.wait_for(r'^(\{"at".*"event":"snapshot".*)$', timeout=30).group(1))
        check(first["reader"]["id"] == reader_id and first["reader"]["status"] == "online" and first["holder"] is None, f"gatewayctl --json watch: {first}")

        # The fleet console in a third browser: signed in, it shows the reader online and free.
        console_url = f"https://127.0.0.1:{port}/console/"
        console_driver = browser(os.path.join(directory, "profile-console"), spki, size="1280,720")
        drivers.append(console_driver)
        console = Console(console_driver, console_url, args.artifacts)
        console.open()
        check(console_driver.find_element(By.ID, "signin").is_displayed(), "console: a new browser is asked to sign in")
        console.sign_in(secret)
        console.until_cell(reader_id, "status", lambda text: text == "online", "the reader is online", 10)
        check(console.cell(reader_id, "holder") == "free", f"console: the reader starts free: {console.cell(reader_id, 'holder')}")
        check(console.cell(reader_id, "label") == "Counter 1" and console.cell(reader_id, "serial") == "WSB-1", "console: label and serial")
        check(secret not in console_driver.execute_script("return document.cookie + JSON.stringify(localStorage) + JSON.stringify(sessionStorage)"),
              "console: the secret key is kept in the browser")
        check(console_driver.execute_script("return document.cookie") == "", "console: the session cookie is readable by the page (not HttpOnly)")
        page = lambda server, lane, pos: f"http://127.0.0.1:{server.server_address[1]}/lane.html?gateway=127.0.0.1:{port}&lane={lane}&pos={pos}&location={state['location']}"
        lanes = {}
        for name, pos in [("Lane A", "pos-a"), ("Lane B", "pos-b")]:
            driver = browser(os.path.join(directory, f"profile-{pos}"), spki)
            drivers.append(driver)
            driver.get(page(allowed, name.replace(" ", "%20"), pos))
            lane = Lane(driver, name, args.artifacts)
            lane.until_text("library", lambda text: text != "loading", "the library loads from the gateway")
            check(lane.text("library") == "ready", f"{name}: the library did not load: {lane.text('library')}")
            lanes[name] = lane
        a, b = lanes["Lane A"], lanes["Lane B"]

        # Cell 1: failIfInUse, idle reader, no owner: connected.
        check(a.run("connect(true)") == "connected failIfInUse", f"cell 1: {a.text('result')}")
        console.takeover_shown(reader_id, "Lane A (pos-a)", "lane A holds the reader")
        check(a.run("display()") == "display set", f"display: {a.text('result')}")
        a.screenshot("1-lane-a-connected")
        # Cell 2: failIfInUse, idle reader another lane holds: taken; lane A shows who took it at once.
        check(b.run("connect(true)") == "connected failIfInUse", f"cell 2: {b.text('result')}")
        console.takeover_shown(reader_id, "Lane B (pos-b)", "lane B took the reader from lane A")
        watch_text.wait_for(rf'changed {reader_id} "Counter 1" .* holder="Lane A" pos=pos-a', timeout=10)
        watch_text.wait_for(rf'changed {reader_id} "Counter 1" .* holder="Lane B" pos=pos-b', timeout=10)
        taken = json.loads(watch_json.wait_for(r'^(\{.*"lane_label":"Lane B".*)$', timeout=10).group(1))
        check(taken["event"] == "changed" and taken["holder"]["pos_device_id"] == "pos-b" and taken["generation"] >= 2, f"gatewayctl --json watch: {taken}")
        a.until_text("taken-by", lambda text: text == "Lane B (pos-b)", "lane A shows who took the reader", timeout=5)
        a.screenshot("2-lane-a-taken-by-lane-b")
        # Lane B starts a collect; the reader is then mid-transaction.
        b.start("collect()")
        simulator.wait_for(r"command serial=WSB-1 kind=collect", timeout=20)
        b.until_text("result", lambda text: text == "collecting", "lane B collecting")
        # Cell 3: failIfInUse, reader mid-transaction: READER_BUSY; lane B keeps it.
        busy = a.run("connect(true)")
        check(busy.startswith("error READER_BUSY"), f"cell 3: {busy}")
        check(b.text("taken-by") == "", "cell 3: lane B keeps the reader")
        a.screenshot("3-lane-a-reader-busy")
        # Cell 4: replace, reader mid-transaction: taken; lane B shows who took it at once.
        check(console.cell(reader_id, "holder") == "Lane B (pos-b)", f"cell 3: the console shows lane B keeping the reader: {console.cell(reader_id, 'holder')}")
        check(a.run("connect(false)") == "connected replace", f"cell 4: {a.text('result')}")
        console.takeover_shown(reader_id, "Lane A (pos-a)", "lane A took the reader from lane B mid-transaction")
        console.screenshot("7-console-lane-a-holds-the-reader")
        b.until_text("taken-by", lambda text: text == "Lane A (pos-a)", "lane B shows who took the reader", timeout=5)
        b.screenshot("4-lane-b-taken-by-lane-a")
        # The gateway cancelled lane B's collect on the reader when lane A took it.
        simulator.wait_for(r"result serial=WSB-1 kind=collect .*status=COMMAND_CANCELED", timeout=10)

        # processPayment: lane A collects, the customer taps, the intent is processed.
        check(a.text("reader").startswith("Counter 1 WSB-1 simulated_wisepos_e online"), f"lane A's reader: {a.text('reader')}")
        a.start("pay()")
        simulator.wait_for(r"command serial=WSB-1 kind=collect .*amount=1250 currency=eur", timeout=20)
        simulator.wait_for(r"waiting_for_card serial=WSB-1", timeout=20)
        simulator.send("present WSB-1 visa 4242")
        paid = a.until_text("result", lambda text: text.startswith("processed") or text.startswith("error"), "lane A's payment is processed")
        check(paid == "processed requires_confirmation succeeded 1250 eur 4242 ready", f"processPayment: {paid}")
        a.screenshot("11-lane-a-payment-processed")

        # Bad arguments of every kind: each resolves with INVALID_REQUEST naming the argument,
        # and JSON writes each error with its message; nothing throws.
        answers = json.loads(a.run("badArguments()"))
        check(len(answers) == 10, f"bad arguments: {answers}")
        for answer in answers:
            error = answer.get("error") or {}
            check(error.get("reason") == "INVALID_REQUEST" and error.get("code") == "INVALID_ARGUMENT" and error.get("argument")
                  and error.get("message", "").startswith(error["argument"]), f"a bad argument's answer: {answer}")
        print(f"browser: {len(answers)} bad calls resolved, e.g. {json.dumps(answers[2])}")

        # Release from the console: the reader is free at once, and the page that held it hears it.
        console.click(f'tr[data-reader="{reader_id}"] button.release')
        WebDriverWait(console_driver, 10).until(lambda d: d.find_element(By.ID, "action-result").text == "released Counter 1",
                                                "console: the release is answered")
        console.until_cell(reader_id, "holder", lambda text: text == "free", "the released reader is free", CONSOLE_TAKEOVER_SECONDS)
        a.until_text("lost", lambda text: text != "", "lane A hears the console released its reader", timeout=5)
        print(f"browser: lane A heard '{a.text('lost')}' when the console released its reader")
        # Lane A connects again, so that it is the reader's owner when the reader dies below.
        check(a.run("connect(false)") == "connected replace", f"lane A connects again after the release: {a.text('result')}")
        console.takeover_shown(reader_id, "Lane A (pos-a)", "lane A holds the reader again")

        # The reader dies: the owning page hears within the offline bound.
        killed_at = time.time()
        simulator.process.kill()
        a.until_text("lost", lambda text: text == "reader_lost", "lane A hears the reader is gone", timeout=OFFLINE_BOUND_SECONDS + 3)
        heard_after = int(a.driver.find_element(By.ID, "lost").get_attribute("data-at")) / 1000 - killed_at
        check(heard_after <= OFFLINE_BOUND_SECONDS + 1, f"lane A heard after {heard_after:.2f}s (offline bound {OFFLINE_BOUND_SECONDS}s)")
        print(f"browser: lane A heard '{a.text('lost')}' {heard_after:.2f}s after the reader was killed")
        a.screenshot("5-lane-a-reader-lost")
        # One reason for one loss: the next command fails as the event said.
        lost_error = a.driver.find_element(By.ID, "lost").get_attribute("data-error")
        check(lost_error == "UNAVAILABLE/READER_OFFLINE", f"the loss event's error: {lost_error}")
        after = a.run("afterLoss()")
        check(after == lost_error, f"the command after the loss fails {after}, the event said {lost_error}")
        # The console shows the reader offline (and free) within the same bound, still without a reload.
        console.until_cell(reader_id, "status", lambda text: text == "offline", "the killed reader is offline", OFFLINE_BOUND_SECONDS + 1)
        offline_after = time.time() - killed_at
        check(offline_after <= OFFLINE_BOUND_SECONDS + 1, f"console showed the reader offline after {offline_after:.2f}s")
        print(f"browser: console showed the reader offline {offline_after:.2f}s after it was killed")
        console.until_cell(reader_id, "holder", lambda text: text == "free", "the lost reader is free", 5)
        watch_text.wait_for(rf'changed {reader_id} "Counter 1" serial=WSB-1 offline', timeout=10)
        watch_json.wait_for(r'"status":"offline"', timeout=10)
        check(console.never_reloaded(), "console: the page reloaded")
        console.screenshot("8-console-reader-offline")

        # Register a reader by its code from the console: it appears online without a reload.
        second = Child("reader-sim-2", [
            os.path.join(args.bin_dir, "reader-sim"), "--gateway", f"127.0.0.1:{port}", "--ca", ca,
            "--serial", "WSB-2", "--heartbeat-interval", "400ms",
        ], directory)
        children.append(second)
        code = second.wait_for(r"registration_code serial=WSB-2 code=(\S+)").group(1)
        console_driver.find_element(By.ID, "code").send_keys(code)
        console_driver.find_element(By.ID, "label").send_keys("Counter 2")
        console_driver.find_element(By.CSS_SELECTOR, "#register-form button").click()
        WebDriverWait(console_driver, 20).until(lambda d: d.find_element(By.ID, "register-result").text.startswith("registered Counter 2"),
                                                "console: registering by code")
        second.wait_for(r"online serial=WSB-2", timeout=20)
        WebDriverWait(console_driver, 10).until(
            lambda d: d.execute_script(
                "return Array.from(document.querySelectorAll('#readers tbody tr')).some((row) =>"
                " row.querySelector('td.serial').innerText === 'WSB-2' && row.querySelector('td.status').innerText === 'online')"),
            "console: the registered reader is listed online")
        watch_text.wait_for(r'changed \S+ "Counter 2" serial=WSB-2 online', timeout=10)
        check(console.never_reloaded(), "console: the page reloaded while registering")

        # One page per location: a second location's reader is on its own page only.
        back_office = ctl("locations", "create", "Back office").splitlines()[-1].strip()
        ctl("readers", "register", "--serials", "WSB-BO", "--label-prefix", "Back", "--location", back_office)
        WebDriverWait(console_driver, 10).until(lambda d: any("Back office" in text for text in console.texts("#locations a")),
                                                "console: the new location appears in the navigation")
        console.click("#locations a", "Back office")
        WebDriverWait(console_driver, 10).until(lambda d: console.texts("#readers tbody td.serial") == ["WSB-BO"],
                                                "console: the back office page lists its one reader")
        check(console_driver.find_element(By.ID, "location-title").text == "Back office", "console: the page's title")
        console.screenshot("10-console-second-location")
        console.click("#locations a", "Browser store")
        WebDriverWait(console_driver, 10).until(lambda d: "WSB-1" in console.texts("#readers tbody td.serial"),
                                                "console: back on the first location's page")

        # History: the console reads the reader's ownership changes.
        console.click(f'tr[data-reader="{reader_id}"] button.history')
        WebDriverWait(console_driver, 10).until(lambda d: len(console.texts("#history-list li")) >= 4, "console: the history lists the takeovers")
        history = console.texts("#history-list li")
        check(any("replaced" in line and "Lane A" in line for line in history), f"console: history without lane A's replace: {history}")
        # The console's release names the key it signed in with (the audit log's release statement).
        check(any("admin released" in line and "by key account key (key_" in line for line in history),
              f"console: history without the key that released the reader: {history}")
        audit = ctl("audit", "--action", "ForceReleaseReader", "--reader", reader_id)
        check("ForceReleaseReader" in audit and "account key (key_" in audit and "(console)" in audit,
              f"gatewayctl audit: the console's release: {audit}")

        # A browser that never signed in sees nothing: the sign-in form, no readers, and its
        # WebSocket (no cookie) is refused WatchFleet.
        stranger_driver = browser(os.path.join(directory, "profile-stranger"), spki, size="1280,720")
        drivers.append(stranger_driver)
        stranger = Console(stranger_driver, console_url, args.artifacts)
        stranger.open()
        check(stranger_driver.find_element(By.ID, "signin").is_displayed(), "signed-out tab: no sign-in form")
        check(not stranger_driver.find_element(By.ID, "fleet").is_displayed(), "signed-out tab: the fleet is shown")
        check(stranger_driver.find_elements(By.CSS_SELECTOR, "#readers tbody tr") == [], "signed-out tab: readers are listed")
        check(reader_id not in stranger_driver.page_source and "WSB-1" not in stranger_driver.page_source, "signed-out tab: the reader appears in the page")
        noise = [line for line in console_lines(stranger_driver) if "401" in line or "favicon" in line or "404" in line]
        check(noise == [], f"signed-out console load logged errors: {noise}")
        refused = stranger_driver.execute_async_script("""
            const done = arguments[arguments.length - 1];
            import("/readergateway/v1/js/readergateway.js").then(({ AdminClient, GatewayConnection }) => {
              const client = new AdminClient(new GatewayConnection(`wss://${location.host}/readergateway/v1/websocket`), null);
              client.stream("WatchFleet", {}, (event) => done("event " + JSON.stringify(Object.keys(event))))
                .then(() => done("ended"), (error) => done("error " + (error.reason ?? error.message)));
            });
        """)
        check(refused == "error SECRET_KEY_INVALID", f"signed-out tab: WatchFleet without a session: {refused}")
        stranger.screenshot("9-console-signed-out")

        # Keys: the account key's console lists them. A read-only key's console shows the fleet
        # and the history, offers no change (no register form, no release button), and a change
        # sent from its page anyway is refused naming the permission it lacks.
        console.click("#locations a", "Browser store")
        WebDriverWait(console_driver, 10).until(lambda d: "account key" in console.texts("#keys-table td.name"), "console: the keys are listed")
        viewer_key = json.loads(ctl("--json", "keys", "create", "wall", "dashboard", "--read-only"))
        viewer_driver = browser(os.path.join(directory, "profile-viewer"), spki, size="1280,720")
        drivers.append(viewer_driver)
        viewer = Console(viewer_driver, console_url + f"#location={state['location']}", args.artifacts)
        viewer.open()
        viewer.sign_in(viewer_key["secret"])
        WebDriverWait(viewer_driver, 10).until(lambda d: "WSB-1" in viewer.texts("#readers tbody td.serial"), "read-only console: the fleet is shown")
        check("wall dashboard" in viewer_driver.find_element(By.ID, "account").text, f"read-only console: the key's name: {viewer_driver.find_element(By.ID, 'account').text}")
        check(not viewer_driver.find_element(By.ID, "register-form").is_displayed(), "read-only console: the register form is offered")
        check(viewer_driver.find_elements(By.CSS_SELECTOR, "button.release") == [], "read-only console: a release button is offered")
        viewer.click(f'tr[data-reader="{reader_id}"] button.history')
        WebDriverWait(viewer_driver, 10).until(lambda d: len(viewer.texts("#history-list li")) >= 4, "read-only console: the history is shown")
        WebDriverWait(viewer_driver, 10).until(lambda d: "wall dashboard" in viewer.texts("#keys-table td.name"), "read-only console: the keys are listed")
        forced = viewer_driver.execute_async_script("""
            const [readerId, done] = arguments;
            Promise.all([fetch("/console/session").then((r) => r.json()), import("/readergateway/v1/js/readergateway.js")]).then(([session, { AdminClient, GatewayConnection }]) => {
              const client = new AdminClient(new GatewayConnection(`wss://${location.host}/readergateway/v1/websocket`), null, { csrfToken: session.csrf_token });
              client.call("ForceReleaseReader", { readerId }).then(() => done("released"), (error) => done(`error ${error.reason} ${error.message}`));
            });
        """, reader_id)
        check(forced.startswith("error PERMISSION_DENIED") and "ownership:write" in forced, f"read-only console: a forced release: {forced}")
        viewer.screenshot("12-console-read-only-key")
        print(f"browser: a read-only key's console reads the fleet and is refused a release: {forced}")

        # Sign-out in the console: the fleet disappears, the cookie no longer works.
        console_driver.find_element(By.ID, "signout").click()
        WebDriverWait(console_driver, 10).until(lambda d: d.find_element(By.ID, "signin").is_displayed(), "console: sign-out shows the sign-in form")
        check(console_driver.find_elements(By.CSS_SELECTOR, "#readers tbody tr") == [], "console: readers still listed after sign-out")
        console.open()
        check(console_driver.find_element(By.ID, "signin").is_displayed(), "console: still signed in after sign-out and a reload")

        quickstart(args, directory, children, drivers, state, spki, port, ca, secret, allowed, ctl)

        # A page from an origin not on the allow-list is refused (403 on the upgrade), and told
        # so: ORIGIN_NOT_ALLOWED naming its origin and the flag, after one attempt (no retries).
        driver = browser(os.path.join(directory, "profile-foreign"), spki)
        drivers.append(driver)
        driver.get(page(foreign, "Foreign", "pos-x"))
        intruder = Lane(driver, "Foreign", args.artifacts)
        intruder.until_text("library", lambda text: text != "loading", "the library loads (files are public)")
        refused = intruder.run("connect(true)")
        check(refused.startswith(f"error ORIGIN_NOT_ALLOWED: the gateway refused this page's origin {foreign_origin}:")
              and f"--websocket-origins {foreign_origin}" in refused, f"foreign origin: {refused}")
        gateway.wait_for(r"websocket upgrade refused", timeout=10)
        attempts = [line for line in console_lines(driver) if "WebSocket connection to" in line]
        check(len(attempts) == 1, f"the refused upgrade was tried {len(attempts)} times: {attempts}")
        print(f"browser: the foreign page was told '{refused[6:]}' after {len(attempts)} attempt")
        intruder.screenshot("6-foreign-origin-refused")
        ok = True
        print("browser: all checks passed; screenshots in", args.artifacts)
    finally:
        for driver in drivers:
            driver.quit()
        for server in servers:
            server.shutdown()
        for child in reversed(children):
            child.stop()
        if ok:
            shutil.rmtree(directory, ignore_errors=True)
        else:
            print(f"browser: logs in {directory}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
