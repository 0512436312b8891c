"""The fleet console's webhook endpoints in headless Chromium (Selenium) against a real
reader-gateway, a reader-sim reader and the tests' HTTPS webhook receiver.

    python run_console_webhooks_test.py --bin-dir "$(swift build --show-bin-path)" --artifacts test-artifacts/browser

With the account key: bad inputs are refused with the server's reason and message and the
form keeps what was typed; an endpoint is created, its signing secret shown once (gone after
"I have copied it" and after a reload); it is edited, sent an event again (the receiver gets
the POST, and its signature verifies with the secret the page showed), disabled, and deleted
after a confirmation (Cancel keeps it). A change to an endpoint deleted meanwhile shows the
server's refusal. A read-only key sees the list and no change control; a key without
webhooks:read sees no webhook section. Every wait is a WebDriverWait on a DOM condition or a
line a process prints or writes; there is no sleep.
"""

import argparse
import base64
import hashlib
import hmac
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "live"))
from run_browser_tests import Console, browser, check, spki_hash  # noqa: E402
from run_live_tests import Child  # noqa: E402

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

RECEIVER = os.path.join(HERE, "..", "..", "..", "Sources", "GatewayTestSupport", "Webhooks", "webhook_receiver.py")


class Page(Console):
    """The console's webhook section, read and clicked through one script each time (it re-renders)."""

    def text(self, element_id):
        return self.driver.execute_script("return document.getElementById(arguments[0]).innerText.trim()", element_id)

    def shown(self, element_id):
        return self.driver.find_element(By.ID, element_id).is_displayed()

    def value(self, element_id):
        return self.driver.find_element(By.ID, element_id).get_attribute("value")

    def type(self, element_id, text):
        field = self.driver.find_element(By.ID, element_id)
        field.clear()
        field.send_keys(text)

    def until(self, condition, what, timeout=10):
        WebDriverWait(self.driver, timeout, poll_frequency=0.05).until(lambda d: condition(), f"console: {what}")

    def until_result(self, predicate, what):
        self.until(lambda: predicate(self.text("webhooks-result")), f"{what} (the page says {self.text('webhooks-result')!r})")
        return self.text("webhooks-result")

    def cell(self, endpoint_id, name):
        cells = self.texts(f'tr[data-endpoint="{endpoint_id}"] td.{name}')
        return cells[0] if cells else None

    def rows(self):
        return self.driver.execute_script(
            "return Array.from(document.querySelectorAll('#webhooks-table tbody tr'), (r) => r.dataset.endpoint)")


def receiver_certificate(directory):
    """A self-signed certificate for localhost (the gateway trusts it by --webhook-ca-file)."""
    certificate, key = os.path.join(directory, "hook.pem"), os.path.join(directory, "hook-key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                    "-keyout", key, "-out", certificate, "-days", "1", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=DNS:localhost"], check=True, capture_output=True)
    return certificate, key


def received(log_path):
    """The receiver's requests so far: (path, signature header, body bytes)."""
    with open(log_path, encoding="utf-8") as log:
        return [(r["path"], r["signature"], base64.b64decode(r["body"])) for r in map(json.loads, filter(str.strip, log))]


def verifies(secret, header, body):
    """PROTOCOL.md section 23's receiver check, without the clock (the POST was just made)."""
    fields = dict(part.split("=", 1) for part in header.split(",") if "=" in part)
    expected = hmac.new(secret.encode(), fields.get("t", "").encode() + b"." + body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, fields.get("v1", ""))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin-dir", required=True)
    parser.add_argument("--artifacts", required=True)
    args = parser.parse_args()
    os.makedirs(args.artifacts, exist_ok=True)
    directory = tempfile.mkdtemp(prefix="rg-console-webhooks-")
    os.chmod(directory, 0o777)
    children, drivers = [], []
    ok = False
    try:
        certificate, key = receiver_certificate(directory)
        log_path, control = os.path.join(directory, "requests.jsonl"), os.path.join(directory, "control.json")
        open(log_path, "w").close()
        with open(control, "w") as file:
            file.write("{}")
        receiver = Child("webhook-receiver", [sys.executable, "-u", RECEIVER, certificate, key, log_path, control], directory)
        children.append(receiver)
        receiver_port = receiver.wait_for(r"listening port=(\d+)").group(1)
        gateway = Child("reader-gateway", [
            os.path.join(args.bin_dir, "reader-gateway"), "--data-dir", os.path.join(directory, "data"),
            "--port", "0", "--internal-port", "0",
            "--webhook-allow-private-addresses", "--webhook-ca-file", certificate, "--webhook-retry-base", "200ms",
        ], directory)
        children.append(gateway)
        port = gateway.wait_for(r"gateway listening\"? address=127\.0\.0\.1:(\d+)").group(1)
        secret_key = gateway.wait_for(r"secret key: (sk_\S+)").group(1)
        ca = os.path.join(directory, "data", "tls", "ca.pem")
        env = {**os.environ, "GATEWAYCTL_GATEWAY": f"127.0.0.1:{port}", "GATEWAYCTL_CA": ca, "GATEWAYCTL_SECRET_KEY": secret_key}
        ctl = lambda *arguments: subprocess.run([os.path.join(args.bin_dir, "gatewayctl"), *arguments], capture_output=True, text=True, check=True, env=env).stdout.strip()
        location = ctl("locations", "create", "Webhook store").splitlines()[-1].strip()
        simulator = Child("reader-sim", [
            os.path.join(args.bin_dir, "reader-sim"), "--gateway", f"127.0.0.1:{port}", "--ca", ca, "--serial", "WHC-1",
        ], directory)
        children.append(simulator)
        code = simulator.wait_for(r"registration_code serial=WHC-1 code=(\S+)").group(1)
        ctl("readers", "register", "--code", code, "--label", "Counter 1", "--location", location)
        registered = json.loads(ctl("--json", "events", "list", "--type", "reader.registered"))["events"][0]["id"]

        spki = spki_hash(os.path.join(directory, "data", "tls", "server.pem"))
        console_url = f"https://127.0.0.1:{port}/console/"
        driver = browser(os.path.join(directory, "profile-admin"), spki, size="1280,900")
        drivers.append(driver)
        page = Page(driver, console_url, args.artifacts)
        page.open()
        page.sign_in(secret_key)
        page.until(lambda: page.shown("webhooks") and page.shown("webhooks-empty"), "the account key sees the webhook section, empty")
        check(page.shown("webhook-create-form"), "console: the account key is offered no create form")

        # Bad inputs: the server's reason and message, and the form keeps what was typed.
        url = f"https://localhost:{receiver_port}/hooks"
        page.type("webhook-url", "http://localhost/hooks")
        page.type("webhook-events", "reader.online")
        page.type("webhook-description", "Back office")
        page.click("#webhook-create-form button")
        refused = page.until_result(lambda text: "refused" in text, "an http URL is refused")
        check(refused.startswith("CreateWebhookEndpoint refused: INVALID_REQUEST: ") and "https" in refused, f"console: an http URL: {refused}")
        check(page.value("webhook-url") == "http://localhost/hooks" and page.value("webhook-events") == "reader.online"
              and page.value("webhook-description") == "Back office", "console: the refused form lost what was typed")
        check(page.text("webhooks-result").strip() and "error" in driver.find_element(By.ID, "webhooks-result").get_attribute("class"),
              "console: the refusal is not shown as an error")
        page.type("webhook-url", url)
        page.type("webhook-events", "reader.online, reader.onlin")
        page.click("#webhook-create-form button")
        refused = page.until_result(lambda text: '"reader.onlin"' in text, "an unknown event type is refused, named")
        check("INVALID_REQUEST" in refused, f"console: an unknown event type: {refused}")
        check(page.value("webhook-url") == url and page.value("webhook-events") == "reader.online, reader.onlin", "console: the refused form lost what was typed")
        check(page.rows() == [], f"console: a refused create listed an endpoint: {page.rows()}")
        print(f"console-webhooks: refusals shown as the server said them: {refused}")

        # Create: the secret once, with the warning; the row.
        page.type("webhook-events", "reader.online, reader.offline")
        page.click("#webhook-create-form button")
        page.until_result(lambda text: text.startswith("created we_"), "the endpoint is created")
        secret = page.text("webhook-secret-value")
        check(re.fullmatch(r"whsec_[0-9A-Za-z]{43}", secret) is not None, f"console: the secret shown: {secret!r}")
        check("Copy it now: it is not shown again." in page.text("webhook-secret"), f"console: no warning beside the secret: {page.text('webhook-secret')}")
        endpoint = page.text("webhooks-result").split()[1]
        page.until(lambda: page.rows() == [endpoint], "the new endpoint is listed")
        check(page.cell(endpoint, "url") == url and page.cell(endpoint, "events") == "reader.online, reader.offline"
              and page.cell(endpoint, "description") == "Back office" and page.cell(endpoint, "state") == "enabled",
              f"console: the row: {page.texts(f'tr[data-endpoint={endpoint!r}] td')}")
        check(page.value("webhook-url") == "" and page.value("webhook-events") == "", "console: the create form keeps a created endpoint's values")
        page.screenshot("15-console-webhook-secret-shown-once")
        page.click("#webhook-secret-dismiss")
        page.until(lambda: not page.shown("webhook-secret"), "the secret is put away")
        check(secret not in driver.page_source, "console: the secret stays in the page after 'I have copied it'")
        page.open()
        page.until(lambda: page.rows() == [endpoint], "the endpoint is listed after a reload")
        check(secret not in driver.page_source and not page.shown("webhook-secret"), "console: the secret is shown again after a reload")
        listed = json.loads(ctl("--json", "webhooks", "list"))
        check(secret not in json.dumps(listed), "gatewayctl webhooks list: the secret")

        # Edit: description and event types.
        page.click(f'tr[data-endpoint="{endpoint}"] button.edit')
        page.until(lambda: page.shown("webhook-edit-form"), "the edit form opens")
        check(page.value("webhook-edit-description") == "Back office" and page.value("webhook-edit-events") == "reader.online, reader.offline",
              "console: the edit form does not start from the endpoint")
        page.type("webhook-edit-events", "reader.online, reader.nope")
        page.click("#webhook-edit-form button[type=submit]")
        refused = page.until_result(lambda text: "refused" in text, "an unknown type in an edit is refused")
        check("UpdateWebhookEndpoint refused: INVALID_REQUEST" in refused and "reader.nope" in refused, f"console: an edit's refusal: {refused}")
        check(page.shown("webhook-edit-form") and page.value("webhook-edit-events") == "reader.online, reader.nope", "console: the refused edit lost what was typed")
        page.type("webhook-edit-description", "Alerts")
        page.type("webhook-edit-events", "")
        page.click("#webhook-edit-form button[type=submit]")
        page.until_result(lambda text: text == f"saved {endpoint}", "the edit is saved")
        page.until(lambda: page.cell(endpoint, "events") == "all events" and page.cell(endpoint, "description") == "Alerts", "the row shows the edit")
        check(not page.shown("webhook-edit-form"), "console: the edit form stays open after saving")
        page.click(f'tr[data-endpoint="{endpoint}"] button.edit')
        page.type("webhook-edit-description", "")
        page.click("#webhook-edit-form button[type=submit]")
        page.until(lambda: page.cell(endpoint, "description") == "", "emptying the description clears it")
        check(json.loads(ctl("--json", "webhooks", "list"))[0]["enabled_events"] == ["*"], "gatewayctl: the edit's event types")

        # Resend: an unknown event is refused (the id kept); a real one is POSTed, signed with the secret shown.
        page.click(f'tr[data-endpoint="{endpoint}"] button.resend')
        page.until(lambda: page.shown("webhook-resend-form"), "the resend form opens")
        page.type("webhook-resend-event", "evt_nope")
        page.click("#webhook-resend-form button[type=submit]")
        refused = page.until_result(lambda text: "refused" in text, "an unknown event is refused")
        check(refused.startswith("ResendEvent refused: EVENT_NOT_FOUND: "), f"console: an unknown event: {refused}")
        check(page.value("webhook-resend-event") == "evt_nope", "console: the refused resend lost the event id")
        page.type("webhook-resend-event", registered)
        page.click("#webhook-resend-form button[type=submit]")
        page.until_result(lambda text: text == f"queued {registered} again for {endpoint}", "the resend is queued")
        WebDriverWait(driver, 30, poll_frequency=0.1).until(
            lambda d: any(json.loads(body)["id"] == registered for _, _, body in received(log_path)), "the receiver gets the resent event")
        path, signature, body = next(r for r in received(log_path) if json.loads(r[2])["id"] == registered)
        check(path == "/hooks" and verifies(secret, signature, body), f"receiver: the resent event's signature does not verify with the secret the console showed: {signature}")
        check(not verifies(secret, signature, body + b" "), "receiver: a tampered body verifies")
        print(f"console-webhooks: {registered} resent from the console reached the receiver, signed with the secret shown once")

        # Disable, then enable.
        page.click(f'tr[data-endpoint="{endpoint}"] button.disable')
        page.until(lambda: page.cell(endpoint, "state") == "disabled: requested", "the endpoint is disabled")
        check(page.texts(f'tr[data-endpoint="{endpoint}"] button.enable') == ["Enable"], "console: a disabled endpoint offers no Enable")
        check(json.loads(ctl("--json", "webhooks", "list"))[0]["enabled"] is False, "gatewayctl: the endpoint is still enabled")
        page.screenshot("16-console-webhook-disabled")

        # A read-only key: the list, no control. A key without webhooks:read: no section.
        viewer = json.loads(ctl("--json", "keys", "create", "webhook", "viewer", "--read-only"))
        viewer_driver = browser(os.path.join(directory, "profile-viewer"), spki, size="1280,900")
        drivers.append(viewer_driver)
        viewer_page = Page(viewer_driver, console_url, args.artifacts)
        viewer_page.open()
        viewer_page.sign_in(viewer["secret"])
        viewer_page.until(lambda: viewer_page.rows() == [endpoint], "a read-only key sees the endpoint")
        check(viewer_page.cell(endpoint, "state") == "disabled: requested", "read-only console: the endpoint's state")
        check(not viewer_page.shown("webhook-create-form"), "read-only console: the create form is offered")
        check(viewer_page.texts("#webhooks-table tbody button") == [], f"read-only console: buttons offered: {viewer_page.texts('#webhooks-table tbody button')}")
        viewer_page.screenshot("17-console-webhooks-read-only")
        blind = json.loads(ctl("--json", "keys", "create", "floor", "staff", "--permissions", "readers=read"))
        blind_driver = browser(os.path.join(directory, "profile-blind"), spki, size="1280,900")
        drivers.append(blind_driver)
        blind_page = Page(blind_driver, console_url, args.artifacts)
        blind_page.open()
        blind_page.sign_in(blind["secret"])
        check(not blind_page.shown("webhooks") and blind_page.rows() == [], "a key without webhooks:read: the webhook section is shown")

        page.click(f'tr[data-endpoint="{endpoint}"] button.enable')
        page.until(lambda: page.cell(endpoint, "state") == "enabled", "the endpoint is enabled again")

        # A change to an endpoint deleted meanwhile: the server's refusal, shown.
        other = json.loads(ctl("--json", "webhooks", "create", "--url", "https://localhost:1/gone"))["id"]
        page.click("#webhooks-refresh")
        page.until(lambda: other in page.rows(), "the endpoint made by gatewayctl is listed after Refresh")
        ctl("webhooks", "delete", other)
        page.click(f'tr[data-endpoint="{other}"] button.disable')
        refused = page.until_result(lambda text: "refused" in text, "a change to a deleted endpoint is refused")
        check(refused.startswith("UpdateWebhookEndpoint refused: WEBHOOK_ENDPOINT_NOT_FOUND: "), f"console: a deleted endpoint: {refused}")
        print(f"console-webhooks: a change to an endpoint deleted meanwhile: {refused}")

        # Delete, after a confirmation; Cancel keeps it.
        page.click("#webhooks-refresh")
        page.until(lambda: page.rows() == [endpoint], "Refresh drops the deleted endpoint")
        page.click(f'tr[data-endpoint="{endpoint}"] button.delete')
        page.until(lambda: page.shown("webhook-delete") and endpoint in page.text("webhook-delete-question"), "the delete asks first")
        page.click("#webhook-delete-cancel")
        page.until(lambda: not page.shown("webhook-delete"), "Cancel closes the question")
        check(page.rows() == [endpoint] and len(json.loads(ctl("--json", "webhooks", "list"))) == 1, "console: Cancel deleted the endpoint")
        page.click(f'tr[data-endpoint="{endpoint}"] button.delete')
        page.until(lambda: page.shown("webhook-delete"), "the delete asks again")
        page.click("#webhook-delete-confirm")
        page.until_result(lambda text: text == f"deleted {endpoint}", "the endpoint is deleted")
        page.until(lambda: page.rows() == [] and page.shown("webhooks-empty"), "the list is empty")
        check(json.loads(ctl("--json", "webhooks", "list")) == [], "gatewayctl: the endpoint is still there")
        audit = ctl("audit")
        for action in ["CreateWebhookEndpoint", "UpdateWebhookEndpoint", "ResendEvent", "DeleteWebhookEndpoint"]:
            check(action in audit, f"gatewayctl audit: no {action} from the console")
        ok = True
        print("console-webhooks: all checks passed; screenshots in", args.artifacts)
    finally:
        for driver in drivers:
            driver.quit()
        for child in reversed(children):
            child.stop()
        if ok:
            shutil.rmtree(directory, ignore_errors=True)
        else:
            print(f"console-webhooks: logs in {directory}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
