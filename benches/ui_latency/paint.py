"""First paint of `esker ui`'s pages in Debian's headless Chromium (Selenium and the system
chromedriver; nothing is downloaded). Run by benches/ui_latency (`cargo bench --bench
ui_latency`), which starts the server and prints the table.

  paint.py START_URL ROUNDS PATH [PATH ...]

Opens START_URL once (the token becomes the page's cookie), then loads each PATH ROUNDS times
as a fresh navigation and prints one JSON line per load on stdout:

  {"path", "round", "fcp_ms", "rendered_ms", "dcl_ms", "longest_task_ms", "tasks_over_50ms"}

- fcp_ms: the browser's first-contentful-paint, from the navigation's start.
- rendered_ms: the app's `esker:rendered` mark (src/ui/assets/js/app.js: the view's data is on
  screen), from the navigation's start.
- dcl_ms: DOMContentLoaded.
- longest_task_ms / tasks_over_50ms: long tasks on the main thread until the mark (a page that
  "freezes" shows one long task here).
"""

import json
import os
import shutil
import sys
import tempfile

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support.ui import WebDriverWait

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

# Installed before any page script runs: collects the main thread's long tasks from the start.
LONG_TASKS = """
window.__eskerLongTasks = [];
try {
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) window.__eskerLongTasks.push(entry);
  }).observe({ type: 'longtask', buffered: true });
} catch (error) {}
"""

READ_TIMINGS = """
const rendered = performance.getEntriesByName('esker:rendered')[0];
const paint = performance.getEntriesByName('first-contentful-paint')[0];
const navigation = performance.getEntriesByType('navigation')[0];
const until = rendered ? rendered.startTime : performance.now();
const tasks = (window.__eskerLongTasks || []).filter((task) => task.startTime <= until);
return {
  fcp_ms: paint ? paint.startTime : null,
  rendered_ms: rendered ? rendered.startTime : null,
  dcl_ms: navigation ? navigation.domContentLoadedEventEnd : null,
  longest_task_ms: tasks.reduce((longest, task) => Math.max(longest, task.duration), 0),
  tasks_over_50ms: tasks.length,
};
"""


def start_browser():
    profile = tempfile.mkdtemp(prefix="esker-ui-bench-chromium-")
    options = Options()
    options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    for flag in FLAGS + [f"--user-data-dir={profile}"]:
        options.add_argument(flag)
    service = Service(executable_path=os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver"))
    driver = webdriver.Chrome(service=service, options=options)
    driver.set_page_load_timeout(WAIT)
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": LONG_TASKS})
    return driver, profile


def rendered(driver):
    return driver.execute_script(
        "return performance.getEntriesByName('esker:rendered').length > 0"
    )


def load(driver, url):
    driver.get(url)
    WebDriverWait(driver, WAIT, poll_frequency=0.01).until(rendered)
    return driver.execute_script(READ_TIMINGS)


def main():
    start_url, rounds, paths = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    origin = start_url.split("/?", 1)[0]
    driver, profile = start_browser()
    try:
        load(driver, start_url)
        for path in paths:
            for round_index in range(rounds):
                timings = load(driver, origin + path)
                timings.update({"path": path, "round": round_index})
                print(json.dumps(timings), flush=True)
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


if __name__ == "__main__":
    main()
