"""The review app in headless Chromium: keyboard-only annotation, undo, adjudication of a
disagreement, escaped script, and the screenshots of docs/review.md.

The screenshots go to a temporary directory; ``ZHBENCH_SCREENSHOTS=docs/screenshots pytest
tests/review/test_browser.py`` writes the docs' own (a test run never changes the checkout)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from review.store import Annotation

from .conftest import NAME, ROOT, VERSION, cdtp_pair, live_server, mcq, password, simpleqa

CHROMIUM, CHROMEDRIVER = Path("/usr/bin/chromium"), Path("/usr/bin/chromedriver")
if not (CHROMIUM.exists() and CHROMEDRIVER.exists()):
    pytest.skip(f"headless browser tests need {CHROMIUM} and {CHROMEDRIVER} (Debian packages chromium, "
                "chromium-driver)", allow_module_level=True)
webdriver = pytest.importorskip("selenium.webdriver", reason="the browser tests need selenium (dev extra)")

from selenium.common.exceptions import (NoAlertPresentException, NoSuchElementException,  # noqa: E402
                                        StaleElementReferenceException)
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

ANNOTATE = f"/annotate/{NAME}/{VERSION}"


@pytest.fixture(scope="module")
def screenshots(tmp_path_factory) -> Path:
    where = os.environ.get("ZHBENCH_SCREENSHOTS")
    directory = (ROOT / where) if where else tmp_path_factory.mktemp("screenshots")
    directory.mkdir(parents=True, exist_ok=True)
    return directory


def saved(path: Path) -> None:
    """A screenshot was written: a PNG file, not an empty one."""
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", path


@pytest.fixture(scope="module")
def driver():
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,1000",
                "--lang=zh-CN"):
        options.add_argument(arg)
    # an explicit driver path: Selenium Manager never downloads a browser or driver
    browser = webdriver.Chrome(options=options, service=webdriver.ChromeService(str(CHROMEDRIVER)))
    yield browser
    browser.quit()


@pytest.fixture()
def live(data_dir, driver):
    with live_server(data_dir) as url:
        yield url
    driver.delete_all_cookies()


def log_in(driver, url: str, name: str) -> None:
    driver.get(f"{url}/login")
    driver.find_element(By.NAME, "name").send_keys(name)
    driver.find_element(By.NAME, "password").send_keys(password(name))
    driver.find_element(By.CSS_SELECTOR, "form.login button[type=submit]").click()
    wait_for(driver, lambda d: d.current_url == f"{url}/")


def log_out(driver) -> None:
    driver.find_element(By.XPATH, "//button[text()='log out']").click()
    wait_for(driver, lambda d: d.current_url.endswith("/login"))


def keys(driver, *sequence) -> None:
    """Press keys on the page, outside any text box (the body has the focus)."""
    driver.execute_script("document.activeElement && document.activeElement.blur()")
    ActionChains(driver).send_keys(*sequence).perform()


def ctrl_enter(driver) -> None:
    ActionChains(driver).key_down(Keys.CONTROL).send_keys(Keys.ENTER).key_up(Keys.CONTROL).perform()


def progress(driver) -> str:
    return driver.find_element(By.ID, "progress").text


def wait_for(driver, predicate, seconds: float = 10):
    # the page is replaced while we look: an element found on the old page goes stale
    return WebDriverWait(driver, seconds, ignored_exceptions=(StaleElementReferenceException,
                                                              NoSuchElementException)).until(predicate)


def annotate_simpleqa_by_keyboard(driver, url: str, answer: str, screenshot: Path | None = None) -> None:
    driver.get(f"{url}{ANNOTATE}")
    keys(driver, "1", "2", "3", "4", "5", "a")
    answer_box = driver.find_element(By.NAME, "answer")
    answer_box.send_keys(answer)  # an "a" typed here must not count as a shortcut
    driver.find_element(By.NAME, "urls").send_keys("https://www.nobelprize.org/prizes/medicine/2015/tu/facts/",
                                                   Keys.ENTER, "https://baike.example.cn/item/屠呦呦")
    if screenshot:
        driver.save_screenshot(str(screenshot))
    ctrl_enter(driver)


def test_annotate_by_keyboard_then_undo(driver, live, store, screenshots):
    store.enqueue(NAME, VERSION, [simpleqa(), mcq("z-qa-wei")])
    log_in(driver, live, "ann1")
    driver.get(f"{live}{ANNOTATE}")
    assert progress(driver) == "done 0 · left 2"
    keys(driver, "1", "2", "3", "4", "5", "a")
    checked = driver.execute_script(
        "return Array.from(document.querySelectorAll('input:checked')).map(i => i.name + '=' + i.value)")
    assert sorted(checked) == sorted([f"crit_{c}=yes" for c in ("factual", "unique", "time_invariant",
                                                               "challenging", "answerable")] + ["verdict=accept"])
    keys(driver, "2")  # a second press toggles the criterion to no, a third back to yes
    assert driver.find_element(By.CSS_SELECTOR, "input[name=crit_unique][value=no]").is_selected()
    keys(driver, "2")
    annotate_simpleqa_by_keyboard(driver, live, "青蒿素", screenshots / "annotator.png")
    saved(screenshots / "annotator.png")

    wait_for(driver, lambda d: progress(d) == "done 1 · left 1")
    assert "卫青的职业是什么？" in driver.page_source
    assert driver.find_element(By.NAME, "answer").get_attribute("value") == ""  # the "a"s went into the box
    [label] = store.labels(NAME, VERSION, "sqa-tu")
    assert (label["verdict"], label["answer"], len(label["urls"])) == ("accept", "青蒿素", 2)

    keys(driver, "u")
    wait_for(driver, lambda d: progress(d) == "done 0 · left 2")
    assert "屠呦呦因发现哪种药物获得2015年诺贝尔生理学或医学奖？" in driver.page_source
    assert store.labels(NAME, VERSION, "sqa-tu") == []


def test_disagreement_goes_to_the_adjudicator_who_sees_both_labels(driver, live, store, screenshots):
    store.enqueue(NAME, VERSION, [simpleqa()])
    for person, answer in (("ann1", "青蒿素"), ("ann2", "双氢青蒿素")):
        log_in(driver, live, person)
        annotate_simpleqa_by_keyboard(driver, live, answer)
        wait_for(driver, lambda d: "queue empty" in d.page_source)
        driver.get(f"{live}/")  # the second annotator's home shows their own work, nothing of the dispute
        home = driver.find_element(By.TAG_NAME, "main").text
        assert "labelled by you" in home and "disputed" not in home and "agreed" not in home
        log_out(driver)
    assert store.item(NAME, VERSION, "sqa-tu")["status"] == "disputed"

    log_in(driver, live, "judge")
    driver.get(f"{live}/adjudicate/{NAME}/{VERSION}")
    side_by_side = driver.find_elements(By.CSS_SELECTOR, ".labels .label")
    assert [e.get_attribute("data-person") for e in side_by_side] == ["ann1", "ann2"]
    assert "双氢青蒿素" in side_by_side[1].text and "青蒿素" in side_by_side[0].text
    first, second = (e.location for e in side_by_side)
    assert first["y"] == second["y"] and first["x"] < second["x"]  # side by side, not stacked
    driver.find_element(By.NAME, "note").send_keys("以诺贝尔奖官网为准")
    driver.execute_script("document.activeElement.blur(); window.scrollTo(0, 0)")
    driver.save_screenshot(str(screenshots / "adjudication.png"))
    saved(screenshots / "adjudication.png")
    keys(driver, "a")
    ctrl_enter(driver)
    wait_for(driver, lambda d: "queue empty" in d.page_source)
    item = store.item(NAME, VERSION, "sqa-tu")
    assert (item["status"], item["verdict"], item["answer"]) == ("adjudicated", "accept", "青蒿素")


def test_admin_page_with_labels(driver, live, store, screenshots):
    store.enqueue(NAME, VERSION, [mcq(f"qa-{i}") for i in range(6)] + [mcq(f"kgc-{i}", "kgc") for i in range(4)])
    said = {"ann1": "AARRAARARA", "ann2": "AARRAARAAR"}
    for person, verdicts in said.items():
        for v in verdicts:
            item = store.next_item(NAME, VERSION, person)
            verdict = "accept" if v == "A" else "reject"
            store.annotate(NAME, VERSION, item["item_id"], person,
                           Annotation(verdict, options={"gold_right": v == "A", "distractors_wrong": True}))
    store.next_item(NAME, VERSION, "ann3")
    log_in(driver, live, "boss")
    driver.get(f"{live}/admin/{NAME}/{VERSION}")
    text = driver.find_element(By.TAG_NAME, "main").text
    assert "ann1 / ann2 10 80% 0.58" in text
    driver.save_screenshot(str(screenshots / "admin.png"))
    saved(screenshots / "admin.png")


def test_script_in_a_pair_text_renders_as_visible_text(driver, live, store):
    store.enqueue(NAME, VERSION, [cdtp_pair(text="卫青<script>alert(1)</script>是西汉军事家。")])
    log_in(driver, live, "ann1")
    driver.get(f"{live}{ANNOTATE}")
    assert driver.find_element(By.CSS_SELECTOR, ".pair .text").text == "卫青<script>alert(1)</script>是西汉军事家。"
    with pytest.raises(NoAlertPresentException):
        driver.switch_to.alert.text



# What an annotator presses to accept a sound item of each kind, outside any text box.
ACCEPT_KEYS = {
    "simpleqa": ["y", "t", "6", "7", "a", Keys.ENTER],  # criteria, the pipeline's answer, two sources checked
    "cdtp_pairs": ["c", "a", Keys.ENTER],  # the triples cover the text
    "qa": ["g", "d", "a", Keys.ENTER],  # gold right, distractors wrong
}


def test_a_scripted_annotator_accepts_twenty_items_in_few_keystrokes(driver, live, store, capsys):
    """Chinese SimpleQA asks each annotator for an answer and two supporting sources; the page offers the
    pipeline's answer and the sources it shows, so a sound item takes a few keys, not 120-190."""
    import time

    queued = ([simpleqa(f"sqa-{i:02d}") for i in range(10)] + [cdtp_pair(f"p-{i:02d}") for i in range(5)]
              + [mcq(f"qa-{i:02d}") for i in range(5)])
    store.enqueue(NAME, VERSION, queued)
    log_in(driver, live, "ann1")
    driver.get(f"{live}{ANNOTATE}")
    pressed: dict[str, list[int]] = {}
    started = time.perf_counter()
    for done in range(1, len(queued) + 1):
        config = driver.find_element(By.CSS_SELECTOR, "#item .config").text
        sequence = ACCEPT_KEYS[config]
        keys(driver, *sequence)
        # the last page is the empty queue's, which has no progress line of its own
        wait_for(driver, lambda d: "queue empty" in d.page_source or d.find_elements(By.CSS_SELECTOR, "p.error")
                 or progress(d).startswith(f"done {done} "))
        errors = driver.find_elements(By.CSS_SELECTOR, "p.error")
        assert not errors, (config, errors[0].text)
        pressed.setdefault(config, []).append(len(sequence))
    seconds = time.perf_counter() - started
    assert "queue empty" in driver.page_source
    labels = {i["item_id"]: store.labels(NAME, VERSION, i["item_id"]) for i in queued}
    assert all(len(v) == 1 and v[0]["verdict"] == "accept" for v in labels.values())
    sqa = labels["sqa-00"][0]
    assert sqa["answer"] == "青蒿素" and sqa["criteria"] == dict.fromkeys(sqa["criteria"], True)
    assert sqa["urls"] == ["https://baike.example.cn/item/屠呦呦", "https://zh.wikipedia.org/wiki/屠呦呦"]
    assert labels["p-00"][0]["covered"] is True
    assert {k: len(v) for k, v in pressed.items()} == {"simpleqa": 10, "cdtp_pairs": 5, "qa": 5}
    assert max(pressed["simpleqa"]) <= 10 and max(pressed["cdtp_pairs"]) <= 3
    with capsys.disabled():
        print(f"\n  scripted annotator: 20 items in {seconds:.1f} s; keystrokes per accepted item: "
              + ", ".join(f"{k} {v[0]}" for k, v in pressed.items()))
