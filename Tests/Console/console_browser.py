"""Drives the web console of a running push-server --embedded in headless Chromium through Selenium.

Usage: console_browser.py --url http://127.0.0.1:PORT --key KEY --read-key KEY --screenshot PATH

Steps: refused without a key; sign in; both embedded apps on the overview; a test push to a user is
accepted; the mock (through its control API) rejects the user's token and Apple's reason shows in the
pages; a row APNs answers 503 counts in its app's outbox row; sign out; a read-only key may look but not
send; the Content-Security-Policy header is present; the browser logged no errors. Prints one line per
step; exits 1 at the first failure.
"""

import argparse
import json
import secrets
import sys
import time
import urllib.request

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait

WAIT_S = 60


def rest(base, key, method, path, body=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(base + path, data=data, method=method)
    request.add_header("Authorization", "Bearer " + key)
    request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=WAIT_S) as response:
        text = response.read().decode()
        return response.status, json.loads(text) if text else None


def control(url, method, path, body=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url + path, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=WAIT_S) as response:
        return response.status


def gone(element):
    """True once `element` left the document (the next page replaced it). Chromium's driver reports a node of
    a replaced document either as stale or as not belonging to the document: both mean gone."""
    try:
        element.is_enabled()
        return False
    except StaleElementReferenceException:
        return True
    except WebDriverException as error:
        if "does not belong to the document" in str(error) or "No node with given id" in str(error):
            return True
        raise


class Run:
    def __init__(self, args):
        self.base = args.url.rstrip("/")
        options = webdriver.ChromeOptions()
        options.binary_location = "/usr/bin/chromium"
        for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,1000",
                     "--disable-gpu", "--no-first-run", "--disable-extensions"):
            options.add_argument(flag)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        self.driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
        self.wait = WebDriverWait(self.driver, WAIT_S)
        self.errors = []

    def step(self, text):
        print("step: " + text, flush=True)

    def collect_log(self):
        for entry in self.driver.get_log("browser"):
            if entry.get("level") in ("SEVERE", "ERROR"):
                self.errors.append(entry.get("message", ""))

    def open(self, path):
        self.driver.get(self.base + path)
        self.collect_log()

    def text(self):
        return self.driver.find_element(By.TAG_NAME, "body").text

    def submit(self, button_id):
        """Clicks a submit button and waits until the next page replaced this one."""
        page = self.driver.find_element(By.TAG_NAME, "html")
        self.driver.find_element(By.ID, button_id).click()
        self.wait.until(lambda _: gone(page))
        self.collect_log()

    def sign_in(self, key):
        self.open("/console/signin")
        field = self.driver.find_element(By.ID, "key")
        field.clear()
        field.send_keys(key)
        self.submit("sign-in")

    def send_to_user(self, user):
        self.open("/console/send")
        field = self.driver.find_element(By.ID, "send-user")
        field.clear()
        field.send_keys(user)
        self.submit("send")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--read-key", required=True)
    parser.add_argument("--screenshot", required=True)
    args = parser.parse_args()
    base = args.url.rstrip("/")

    # The Content-Security-Policy header, as any client sees it.
    with urllib.request.urlopen(base + "/console/signin", timeout=WAIT_S) as response:
        policy = response.headers.get("Content-Security-Policy", "")
    assert policy.startswith("default-src 'none'"), "Content-Security-Policy missing: %r" % policy
    assert "script-src 'nonce-" in policy and "frame-ancestors 'none'" in policy, policy

    # A user with one development device, through the REST API.
    user = "browser-" + secrets.token_hex(4)
    token = secrets.token_hex(32)
    rest(base, args.key, "PUT", "/v1/users/" + user, {"name": "Browser", "dog_name": "Chrome"})
    rest(base, args.key, "POST", "/v1/devices", {"token": token, "user_id": user, "environment": "development"})

    run = Run(args)
    driver = run.driver
    try:
        run.step("without a session the console asks for a key; an empty or wrong key is refused")
        run.open("/console")
        assert driver.current_url.endswith("/console/signin"), driver.current_url
        run.sign_in("")
        assert "A valid API key is required." in run.text(), run.text()
        run.sign_in("not-the-key")
        assert "A valid API key is required." in run.text(), run.text()
        # Only the expected 401 answers were logged so far; they are not the page's errors.
        run.errors = [e for e in run.errors if "401" not in e]

        run.step("sign in; the overview lists both embedded apps")
        run.sign_in(args.key)
        run.wait.until(expected_conditions.presence_of_element_located((By.ID, "apps")))
        apps = [row.find_elements(By.TAG_NAME, "td")[0].text for row in driver.find_elements(By.CSS_SELECTOR, "#apps tr.app")]
        assert apps == ["sniffmeet", "dogwalk"], apps
        assert args.key not in driver.page_source, "the key is in the page"

        run.step("send a test push to the user and see it accepted")
        run.send_to_user(user)
        run.wait.until(lambda d: "/console/pushes/" in d.current_url)
        run.wait.until(expected_conditions.presence_of_element_located((By.CSS_SELECTOR, "td.state.accepted")))
        run.collect_log()

        run.step("the mock rejects the token through its control API; Apple's reason shows in the pages")
        run.open("/console/mock")
        urls = [element.text for element in driver.find_elements(By.CSS_SELECTOR, "code.control-url")]
        assert urls, run.text()
        assert token in driver.page_source, "the mock page does not list the accepted push"
        status = control(urls[0], "POST", "/rules", {"match": {"token": token}, "answer": {"reason": "BadDeviceToken"}})
        assert status == 201, status
        run.send_to_user(user)
        run.wait.until(lambda d: "/console/pushes/" in d.current_url)
        run.wait.until(expected_conditions.presence_of_element_located((By.CSS_SELECTOR, "td.state.rejected")))
        reason = driver.find_element(By.CSS_SELECTOR, "tr.notification td.reason").text
        assert reason == "BadDeviceToken", reason
        run.open("/console/users/" + user)
        devices = driver.find_element(By.ID, "devices").text
        assert "BadDeviceToken" in devices, devices
        assert "BadDeviceToken" in driver.find_element(By.ID, "recent-pushes").text

        run.step("APNs answers a second user's token 503 (retried later); the overview counts it for its app")
        other = "browser-" + secrets.token_hex(4)
        other_token = secrets.token_hex(32)
        rest(base, args.key, "PUT", "/v1/users/" + other, {"name": "Later", "dog_name": "Retry"})
        rest(base, args.key, "POST", "/v1/devices", {"token": other_token, "user_id": other, "environment": "development"})
        status = control(urls[0], "POST", "/rules", {"match": {"token": other_token}, "answer": {"reason": "ServiceUnavailable"}})
        assert status == 201, status
        status, _ = rest(base, args.key, "POST", "/v1/pushes", {"user_id": other, "alert": "later"})
        assert status == 202, status
        run.open("/console")
        rows = {}
        for row in driver.find_elements(By.CSS_SELECTOR, "#outbox tr.outbox-app"):
            cells = [cell.text for cell in row.find_elements(By.TAG_NAME, "td")]
            rows[cells[0]] = (int(cells[1]) + int(cells[2]), cells[3])
        assert sorted(rows) == ["dogwalk", "sniffmeet"], rows
        assert rows["sniffmeet"][0] == 1 and rows["sniffmeet"][1] != "nothing pending", rows
        assert rows["dogwalk"] == (0, "nothing pending"), rows

        run.step("the overview shows the outcomes and the rejection; screenshot")
        run.open("/console")
        assert "BadDeviceToken" in driver.find_element(By.ID, "rejections").text
        driver.find_element(By.ID, "outcomes-chart")
        driver.save_screenshot(args.screenshot)

        run.step("sign out; the console asks for a key again")
        run.submit("sign-out")
        assert driver.current_url.endswith("/console/signin"), driver.current_url
        run.open("/console")
        assert driver.current_url.endswith("/console/signin"), driver.current_url

        run.step("a read-only key may look but not send")
        run.sign_in(args.read_key)
        run.wait.until(expected_conditions.presence_of_element_located((By.ID, "apps")))
        run.send_to_user(user)
        assert "lacks the send scope" in run.text(), run.text()
        run.errors = [e for e in run.errors if "403" not in e]

        run.step("no errors in the browser console")
        run.collect_log()
        assert not run.errors, "browser console errors: %r" % run.errors
    finally:
        driver.quit()
    print("console browser test: ok", flush=True)


if __name__ == "__main__":
    try:
        main()
    except AssertionError as error:
        print("FAILED: %s" % error, flush=True)
        sys.exit(1)
