"""Drives `esker ui` in Debian's headless Chromium (Selenium, the system chromedriver; nothing
is downloaded). Run by tests/it/ui.rs.

  ui_browser.py views START_URL USAGE_JSON SCREENSHOT_DIR
      search finds a known prompt, the hit opens its turn, a tool call unfolds, the page's URL
      is stable across a reload, the usage totals equal `esker usage --json` (USAGE_JSON), the
      Files page lists the files touched most and one opens its sessions, no
      Content-Security-Policy violation; screenshots of each main view into SCREENSHOT_DIR.
  ui_browser.py long START_URL SESSION_ID TURN_ID TOTAL
      a session of TOTAL turns shows its first turns with the first paint, then every turn in
      order; the deep link to TURN_ID draws it at once, focused.
  ui_browser.py live START_URL LOG_FILE LINE
      opens the session of the prompt "pelican", appends LINE to LOG_FILE and waits for its
      text to appear without a reload.
"""

import json
import os
import shutil
import sys
import tempfile

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

# Generous: CI runs the whole suite at once on two cores (support::BACKGROUND_WAIT).
WAIT = 120

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=1280,900",
]


def start_browser():
    profile = tempfile.mkdtemp(prefix="esker-ui-chromium-")
    options = Options()
    options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    for flag in FLAGS + [f"--user-data-dir={profile}"]:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = Service(executable_path=os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver"))
    driver = webdriver.Chrome(service=service, options=options)
    driver.set_page_load_timeout(WAIT)
    return driver, profile


def wait_for(driver, condition, what):
    try:
        return WebDriverWait(driver, WAIT, poll_frequency=0.2).until(condition)
    except Exception as error:
        raise AssertionError(f"timed out waiting for {what}; page text:\n{body_text(driver)}") from error


def body_text(driver):
    try:
        return driver.find_element(By.TAG_NAME, "body").text
    except Exception:
        return "(no page)"


def css(driver, selector):
    return driver.find_elements(By.CSS_SELECTOR, selector)


def shoot(driver, directory, name):
    os.makedirs(directory, exist_ok=True)
    driver.save_screenshot(os.path.join(directory, f"{name}.png"))


def nav(driver, section):
    css(driver, f'.nav a[data-section="{section}"]')[0].click()


def assert_no_csp_violation(driver):
    problems = [
        entry["message"]
        for entry in driver.get_log("browser")
        if entry.get("level") == "SEVERE"
        and ("Content Security Policy" in entry["message"] or "Refused to" in entry["message"])
    ]
    assert not problems, f"CSP violations: {problems}"


def views(start_url, usage_file, screenshots):
    with open(usage_file, encoding="utf-8") as handle:
        expected_total = json.load(handle)["total"]
    driver, profile = start_browser()
    try:
        driver.get(start_url)
        wait_for(driver, lambda d: "token=" not in d.current_url, "the token to leave the address bar")
        wait_for(driver, lambda d: css(d, "#live.on"), "the live link (server-sent events)")

        # Search as you type finds a known prompt, with the terms highlighted.
        box = driver.find_element(By.ID, "q")
        box.send_keys("ferret deploy script hang")
        wait_for(driver, lambda d: css(d, '.results[data-state="done"] .hit'), "search hits")
        assert "/search?q=" in driver.current_url, driver.current_url
        hits = css(driver, ".hit")
        known = [hit for hit in hits if "why does the ferret deploy script hang?" in hit.text]
        assert known, f"the known prompt among the hits: {[hit.text for hit in hits]}"
        assert known[0].find_elements(By.TAG_NAME, "mark"), "hit terms are highlighted"
        shoot(driver, screenshots, "search")

        # Opening the hit shows its turn.
        known[0].find_element(By.TAG_NAME, "a").click()
        wait_for(driver, lambda d: "/event/" in d.current_url, "the event's page")
        turn = wait_for(
            driver,
            lambda d: [t for t in css(d, "section.turn.focused") if "why does the ferret deploy script hang?" in t.text],
            "the hit's turn",
        )[0]
        wait_for(driver, lambda d: turn.find_elements(By.CSS_SELECTOR, 'details.turn-events[data-loaded="done"]'), "the turn's events")

        # A tool call unfolds into its arguments.
        call = turn.find_elements(By.CSS_SELECTOR, "details.tool-call")[0]
        call.find_element(By.TAG_NAME, "summary").click()
        arguments = wait_for(
            driver,
            lambda d: [pre for pre in call.find_elements(By.CSS_SELECTOR, "pre.tool-args") if pre.text],
            "the tool call's arguments",
        )[0]
        assert "deploy.sh --dry-run" in arguments.text, arguments.text
        shoot(driver, screenshots, "session")

        # The page's URL is stable: loaded again (the cookie carries the token), same turn.
        driver.get(driver.current_url)
        wait_for(
            driver,
            lambda d: [t for t in css(d, "section.turn.focused") if "why does the ferret deploy script hang?" in t.text],
            "the same turn after a reload",
        )

        nav(driver, "sessions")
        wait_for(driver, lambda d: css(d, '.table-wrap[data-state="done"] tbody tr'), "the sessions list")
        assert "/sessions" in driver.current_url
        shoot(driver, screenshots, "sessions")

        # Usage totals equal `esker usage --json`.
        nav(driver, "usage")
        wait_for(driver, lambda d: css(d, '.usage[data-state="done"] tfoot td[data-total]'), "the usage totals")
        shown = {cell.get_attribute("data-total"): int(cell.get_attribute("data-value")) for cell in css(driver, "tfoot td[data-total]")}
        for name, value in expected_total.items():
            if name in shown:
                assert shown[name] == value, f"usage total {name}: page {shown[name]}, CLI {value}"
        assert shown.get("total_tokens") == expected_total["total_tokens"], (shown, expected_total)
        shoot(driver, screenshots, "usage")

        nav(driver, "activity")
        wait_for(driver, lambda d: css(d, '.activity[data-state="done"]'), "the activity chart")
        shoot(driver, screenshots, "activity")

        # Files opens on the files touched most; one opens its sessions.
        nav(driver, "files")
        top = wait_for(driver, lambda d: css(d, '.files[data-state="done"] table.top-files tbody tr'), "the files touched most")
        first = top[0].find_element(By.TAG_NAME, "a")
        tail = first.text
        sessions = int(top[0].find_elements(By.TAG_NAME, "td")[1].text)
        assert sessions >= 1, top[0].text
        shoot(driver, screenshots, "files")
        first.click()
        wait_for(driver, lambda d: "/files?path=" in d.current_url, "the file's page")
        rows = wait_for(driver, lambda d: css(d, '.files[data-state="done"] table.sessions tbody tr'), f"the sessions that touched {tail}")
        assert len(rows) >= sessions, f"{tail}: {len(rows)} sessions listed, {sessions} in the top list"

        assert_no_csp_violation(driver)
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def live(start_url, log_file, line):
    appended_text = json.loads(line)["message"]["content"]
    driver, profile = start_browser()
    try:
        driver.get(start_url)
        box = wait_for(driver, lambda d: d.find_element(By.ID, "q"), "the search box")
        box.send_keys("pelican")
        # The startup pass may commit after the page loads: the search refreshes on the commit.
        hit = wait_for(driver, lambda d: css(d, ".hit a"), "the pelican prompt")[0]
        hit.click()
        wait_for(
            driver,
            lambda d: [t for t in css(d, "section.turn") if "why is the pelican cache cold" in t.text],
            "the session's first turn",
        )
        driver.execute_script("window.__eskerNoReload = 42;")
        with open(log_file, "a", encoding="utf-8") as handle:
            handle.write(line + "\n")
        wait_for(driver, lambda d: appended_text in body_text(d), "the appended prompt")
        assert driver.execute_script("return window.__eskerNoReload;") == 42, "the page was reloaded"
        assert_no_csp_violation(driver)
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def long_session(start_url, session_id, focus_turn_id, total):
    """A long session draws its first turns at once, then the rest in order; a deep link to
    a late turn draws up to it at once and marks it focused."""
    total = int(total)
    origin = start_url.split("/?", 1)[0]
    tail = lambda id: id.split(":", 1)[1]
    driver, profile = start_browser()
    try:
        driver.get(start_url)
        wait_for(driver, lambda d: d.find_element(By.ID, "q"), "the search box")
        driver.get(f"{origin}/session/{tail(session_id)}")
        turns = wait_for(driver, lambda d: css(d, ".turns[data-first]"), "the first turns")[0]
        first = int(turns.get_attribute("data-first"))
        assert 0 < first < total, f"{first} of {total} turns drawn with the first paint"
        wait_for(driver, lambda d: css(d, '.turns[data-drawn="all"]'), "every turn")
        ordinals = driver.execute_script(
            "return [...document.querySelectorAll('section.turn .turn-no')].map((a) => a.textContent)")
        assert ordinals == [f"Turn {n}" for n in range(1, total + 1)], ordinals[:5] + ordinals[-5:]
        driver.get(f"{origin}/turn/{tail(focus_turn_id)}")
        focused = wait_for(driver, lambda d: css(d, "section.turn.focused"), "the focused turn")
        assert focused[0].get_attribute("data-turn") == focus_turn_id, focused[0].get_attribute("data-turn")
        assert_no_csp_violation(driver)
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def main():
    mode, *args = sys.argv[1:]
    if mode == "views":
        views(*args)
    elif mode == "live":
        live(*args)
    elif mode == "long":
        long_session(*args)
    else:
        raise SystemExit(f"unknown mode {mode}")
    print(f"ui_browser.py {mode}: ok")


if __name__ == "__main__":
    main()
